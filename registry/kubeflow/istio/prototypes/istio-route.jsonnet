// @apiVersion 0.1
// @name io.ksonnet.pkg.istio-route
// @description An Istio VirtualService (networking.istio.io/v1) sending requests whose path starts with prefix, on an Istio Gateway, to a Service port (e.g. a tf-serving REST port, a KServe predictor or JupyterHub), optionally rewriting the prefix. With createGateway it also makes the Gateway (HTTP, and HTTPS when tlsSecret is given) on the ingress gateway pods.
// @shortDescription An Istio VirtualService (and Gateway) to a Service.
// @requires Istio (networking.istio.io CRDs and an ingress gateway); the Gateway named by gateway unless createGateway=true
// @param name string Name of the VirtualService
// @param service string Service to route to (its name)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam serviceNamespace string null Namespace of the Service (default: the route's)
// @optionalParam port integer 8501 Port of the Service (default: tf-serving's REST port 8501; its gRPC port is 8500)
// @optionalParam prefix string null URL prefix routed (default: /<name>/)
// @optionalParam rewrite string null What the prefix becomes (default: unchanged)
// @optionalParam timeout string null Request timeout (e.g. 300s)
// @optionalParam hosts array ["*"] Hosts the route answers for (JSON array, or separated by spaces)
// @optionalParam gateway string kubeflow/kubeflow-gateway Gateway (namespace/name) the route is bound to
// @optionalParam createGateway boolean false Create a Gateway <name>-gateway and bind to it instead
// @optionalParam gatewaySelector object {"istio":"ingressgateway"} Labels of the ingress gateway pods of a created Gateway
// @optionalParam tlsSecret string null Credential (Secret) of an HTTPS server on a created Gateway

local istioRoute = import 'kubeflow/istio/istio-route.libsonnet';

istioRoute.all(params, env)
