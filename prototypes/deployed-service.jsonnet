// @apiVersion 0.0.1
// @name io.ksonnet.pkg.deployed-service
// @description Runs container 'image' in a Deployment and puts a Service in front of it; the Service listens on 'servicePort' and forwards to 'containerPort' on the pods labelled app=<name>.
// @shortDescription A Deployment plus a Service that exposes it
// @param name string Name shared by the Service, the Deployment and the app label
// @param image string Container image the Deployment runs
// @optionalParam servicePort number 80 Port the Service listens on
// @optionalParam containerPort number 80 Port the container listens on; the Service forwards here
// @optionalParam replicas number 1 How many pod replicas to run
// @optionalParam type string ClusterIP Service type, e.g. ClusterIP, NodePort or LoadBalancer
// @optionalParam namespace string null Namespace of the objects (default: the environment's namespace)
local name = import 'param://name';
local labels = { app: name };
// Every namespaced object names its namespace, so that `kf show <env> | kubectl
// apply -f -` puts it where `kf apply --env <env>` does.
// A params block written without `namespace` (by hand, by an older kf) still renders.
local namespace = if std.objectHas(params, 'namespace') && params.namespace != null then params.namespace else env.namespace;

// Like ksonnet, several objects come out as a plain array; the render
// pipeline wraps a component's array into a v1 List before flattening it.
[
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: name, namespace: namespace },
    spec: {
      type: import 'param://type',
      selector: labels,
      ports: [
        {
          // Written out: server-side apply on 1.20 refuses a Service port without its
          // list key `protocol` (newer servers default it).
          protocol: 'TCP',
          port: import 'param://servicePort',
          targetPort: import 'param://containerPort',
        },
      ],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: name, namespace: namespace },
    spec: {
      replicas: import 'param://replicas',
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: labels },
        spec: {
          containers: [
            {
              name: name,
              image: import 'param://image',
              ports: [{ containerPort: import 'param://containerPort', protocol: 'TCP' }],
            },
          ],
        },
      },
    },
  },
]
