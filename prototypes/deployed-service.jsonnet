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
// @optionalParam ingressHost string null Host name an Ingress (networking.k8s.io/v1) routes to the Service, for a web UI (null: no Ingress)
// @optionalParam ingressClassName string null IngressClass of that Ingress, e.g. nginx (null: the cluster's default class)
// @optionalParam minAvailable string null Pods a PodDisruptionBudget (policy/v1) keeps running through node drains: a number, or a percentage such as 50% (null: no budget)
local name = import 'param://name';
local labels = { app: name };
// Every namespaced object names its namespace, so that `kf show <env> | kubectl
// apply -f -` puts it where `kf apply --env <env>` does.
// A params block written without `namespace` (by hand, by an older kf) still renders.
local namespace = if std.objectHas(params, 'namespace') && params.namespace != null then params.namespace else env.namespace;
// Params newer than the component (an Ingress, a budget) are off when its block lacks them.
local optional(key) = if std.objectHas(params, key) then params[key] else null;
local ingressHost = optional('ingressHost');
local ingressClassName = optional('ingressClassName');
local minAvailable = optional('minAvailable');
// minAvailable is an int-or-string: `kf param set web minAvailable 2` stores '2', which
// the API server reads as a malformed percentage, so digits become a number.
local intOrPercent(v) =
  if std.isString(v) && !std.endsWith(v, '%') then std.parseInt(v) else v;

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
] + (
  if ingressHost == null then [] else [{
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: name, namespace: namespace },
    spec: {
      [if ingressClassName != null then 'ingressClassName']: ingressClassName,
      rules: [{
        host: ingressHost,
        http: {
          paths: [{
            path: '/',
            pathType: 'Prefix',
            backend: { service: { name: name, port: { number: import 'param://servicePort' } } },
          }],
        },
      }],
    },
  }]
) + (
  if minAvailable == null then [] else [{
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: name, namespace: namespace },
    spec: { minAvailable: intOrPercent(minAvailable), selector: { matchLabels: labels } },
  }]
)
