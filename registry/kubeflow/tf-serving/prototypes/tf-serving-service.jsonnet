// @apiVersion 0.1
// @name io.ksonnet.pkg.tf-serving-service
// @description The Service of a TensorFlow Serving model alone (selecting every pod labelled app=<name>), for Deployments made elsewhere, e.g. one tf-serving component per model version sharing one Service. Optional Prometheus scrape annotations, Ambassador Mapping and Istio VirtualService to the REST port.
// @shortDescription The Service (and routes) in front of TF Serving Deployments.
// @requires TF Serving Deployments labelled app=<name> (e.g. tf-serving components)
// @param name string Name of the Service; it selects pods labelled app=<name>
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam modelName string null Model name used in route URLs (default: name)
// @optionalParam grpcPort integer 8500 gRPC port
// @optionalParam restPort integer 8501 REST (HTTP) port
// @optionalParam serviceType string ClusterIP Service type: ClusterIP, NodePort or LoadBalancer
// @optionalParam monitoring boolean false Add prometheus.io scrape annotations for TF Serving's metrics
// @optionalParam ambassadorRoute boolean false Also make an Ambassador Mapping /tfserving/models/<model> → the REST API
// @optionalParam istioRoute boolean false Also make an Istio VirtualService /tfserving/models/<model> → the REST API
// @optionalParam istioGateway string kubeflow/kubeflow-gateway Istio Gateway (namespace/name) of the VirtualService
// @optionalParam trafficRule string null Canary split between versions, version:percent,... by their version label (e.g. v1:90,v2:10; with istioRoute): a weighted VirtualService and a DestinationRule with one subset per version

local tfServing = import 'kubeflow/tf-serving/tf-serving.libsonnet';

tfServing.serviceOnly(params, env)
