// @apiVersion 0.0.1
// @name io.ksonnet.pkg.single-port-deployment
// @description Runs 'replicas' copies (default 1) of container 'image' and opens one container port (default 80); the pods get the label app=<name>.
// @shortDescription A Deployment of one container with a single open port
// @param name string Name of the Deployment, its container and its app label
// @param image string Container image to run
// @optionalParam replicas number 1 How many pod replicas to run
// @optionalParam containerPort number 80 Port the container listens on
// @optionalParam namespace string null Namespace of the objects (default: the environment's namespace)
local name = import 'param://name';
local labels = { app: name };
// Every namespaced object names its namespace, so that `kf show <env> | kubectl
// apply -f -` puts it where `kf apply --env <env>` does.
// A params block written without `namespace` (by hand, by an older kf) still renders.
local namespace = if std.objectHas(params, 'namespace') && params.namespace != null then params.namespace else env.namespace;

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
}
