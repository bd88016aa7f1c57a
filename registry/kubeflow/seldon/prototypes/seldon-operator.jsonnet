// @apiVersion 0.1
// @name io.ksonnet.pkg.seldon-operator
// @description Seldon Core v1.17.1's seldon-controller-manager (the last Apache-2.0 release) as operator/config/default installs it with cert-manager: the SeldonDeployment CRD, ServiceAccount seldon-manager, ClusterRoles seldon-manager-role-<ns> and seldon-manager-sas-role-<ns> with bindings, the leader-election Role, the seldon-config ConfigMap (prepackaged server images, storage initializer, credentials, explainer), a self-signed Issuer and Certificate seldon-serving-cert for seldon-webhook-service (443 → 4443, Secret seldon-webhook-server-cert), the Deployment and the ValidatingWebhookConfiguration seldon-validating-webhook-configuration-<ns>. The operator makes Emissary Mappings when ambassador=true and Istio VirtualServices when istio=true.
// @shortDescription The Seldon Core v1 operator, its webhook and the SeldonDeployment CRD.
// @requires cert-manager (cert-manager.io/v1 Issuer and Certificate, and its CA injector), installed first
// @param name string Name of the Deployment (upstream: seldon-controller-manager)
// @optionalParam namespace string null Namespace (default: the environment's; upstream: seldon-system)
// @optionalParam image string docker.io/seldonio/seldon-core-operator:1.17.1 Operator image
// @optionalParam executorImage string docker.io/seldonio/seldon-core-executor:1.17.1 Image of the executor the operator adds to each predictor
// @optionalParam ambassador boolean false Make an Emissary (getambassador.io v2) Mapping per SeldonDeployment
// @optionalParam istio boolean false Make an Istio VirtualService per SeldonDeployment
// @optionalParam istioGateway string istio-system/seldon-gateway Istio Gateway of those VirtualServices
// @optionalParam logLevel string INFO Log level: DEBUG, INFO, WARN or ERROR
// @optionalParam installCRD boolean true Also install the SeldonDeployment CRD

local operator = import 'kubeflow/seldon/seldon-operator.libsonnet';

operator.all(params, env)
