// @apiVersion 0.1
// @name io.ksonnet.pkg.ambassador-route
// @description An Emissary-ingress (Ambassador) Mapping (getambassador.io/v3alpha1) sending requests whose path starts with prefix to a Service, e.g. /tfserving/models/mnist to a tf-serving REST port, /jupyter/ to JupyterHub's proxy-public, /tensorboard/tb/ to TensorBoard or /argo/ to the Argo UI. Emissary replaces the prefix with rewrite (default "/"); keepPrefix passes the path unchanged.
// @shortDescription An Ambassador Mapping to a Service.
// @requires Emissary-ingress 3.x with its getambassador.io CRDs (the `ambassador` prototype, after the emissary-crds prototype)
// @param name string Name of the Mapping
// @param service string Service to route to (its name)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam serviceNamespace string null Namespace of the Service (default: the Mapping's)
// @optionalParam port integer 8501 Port of the Service (default: tf-serving's REST port 8501, as istio-route; without a port Emissary would send to 80)
// @optionalParam prefix string null URL prefix routed (default: /<name>/)
// @optionalParam rewrite string null What the prefix becomes (default: /)
// @optionalParam keepPrefix boolean false Pass the path on unchanged (rewrite "")
// @optionalParam timeoutMs integer null Request timeout in milliseconds (Emissary default: 3000)
// @optionalParam hostname string * Host the Mapping answers for
// @optionalParam websocket boolean false Allow WebSocket upgrades (JupyterHub needs them)
// @optionalParam ambassadorId string null Ambassador ID of the gateway serving this Mapping

local ambassador = import 'kubeflow/ambassador/ambassador.libsonnet';

ambassador.route(params, env)
