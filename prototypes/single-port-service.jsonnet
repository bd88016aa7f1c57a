// @apiVersion 0.0.1
// @name io.ksonnet.pkg.single-port-service
// @description A Service that listens on 'servicePort' and sends traffic to 'targetPort' on the pods matched by 'targetLabelSelector', an object of labels such as "{app: 'nginx'}".
// @shortDescription A Service exposing a single port
// @param name string Name of the Service
// @param targetLabelSelector object Labels of the pods to send traffic to, e.g. "{app: 'MyApp'}"
// @optionalParam servicePort number 80 Port the Service listens on
// @optionalParam targetPort number 80 Port on the selected pods that receives the traffic
// @optionalParam protocol string TCP Transport protocol, TCP or UDP
// @optionalParam serviceType string ClusterIP Service type, e.g. ClusterIP, NodePort or LoadBalancer
// @optionalParam namespace string null Namespace of the objects (default: the environment's namespace)

// Every namespaced object names its namespace, so that `kf show <env> | kubectl
// apply -f -` puts it where `kf apply --env <env>` does.
// A params block written without `namespace` (by hand, by an older kf) still renders.
local namespace = if std.objectHas(params, 'namespace') && params.namespace != null then params.namespace else env.namespace;

{
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: import 'param://name', namespace: namespace },
  spec: {
    type: import 'param://serviceType',
    selector: import 'param://targetLabelSelector',
    ports: [
      {
        protocol: import 'param://protocol',
        port: import 'param://servicePort',
        targetPort: import 'param://targetPort',
      },
    ],
  },
}
