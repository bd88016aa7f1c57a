// @apiVersion 0.1
// @name io.ksonnet.pkg.kserve-controller
// @description KServe v0.20.0's controller manager as config/default installs it: Deployment (containers manager and kube-rbac-proxy), ServiceAccount, ClusterRoles and bindings, leader-election Role, the inferenceservice-config ConfigMap it reads at start-up (defaultDeploymentMode Standard here, so no Knative is needed), the webhook Service kserve-webhook-server-service (443 → 9443), a self-signed cert-manager Issuer and the Certificate serving-cert for that Service (Secret kserve-webhook-server-cert), the Mutating and Validating WebhookConfigurations with cert-manager.io/inject-ca-from, the inferenceservices CRD and the servingruntimes, clusterservingruntimes, trainedmodels, inferencegraphs and clusterstoragecontainers CRDs. Add kserve-runtimes so an InferenceService finds a model server.
// @shortDescription The KServe controller manager, its webhooks and serving.kserve.io CRDs.
// @requires cert-manager (cert-manager.io/v1 Issuer and Certificate, and its CA injector), installed first
// @param name string Name of the Deployment and ServiceAccount (upstream: kserve-controller-manager)
// @optionalParam namespace string null Namespace (default: the environment's; upstream: kserve)
// @optionalParam image string kserve/kserve-controller:v0.20.0 Controller image
// @optionalParam rbacProxyImage string quay.io/brancz/kube-rbac-proxy:v0.18.0 Image of the metrics auth proxy
// @optionalParam deploymentMode string Standard Default deployment mode: Standard (plain Deployments), Knative (needs Knative Serving), ModelMesh, or the legacy RawDeployment / Serverless
// @optionalParam ingressGateway string knative-serving/knative-ingress-gateway Ingress gateway (namespace/name) in the ingress config
// @optionalParam ingressDomain string example.com Domain of InferenceService URLs
// @optionalParam ingressClassName string istio IngressClass of the Ingresses made in Standard mode
// @optionalParam disableIngressCreation boolean false Make no Ingress per InferenceService
// @optionalParam installCRDs boolean true Also install the serving.kserve.io CRDs

local controller = import 'kubeflow/kserve/kserve-controller.libsonnet';

controller.all(params, env)
