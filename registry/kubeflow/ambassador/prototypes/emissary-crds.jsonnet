// @apiVersion 0.1
// @name io.ksonnet.pkg.emissary-crds
// @description The 14 getambassador.io CRDs of Emissary-ingress (Mapping, Host, Listener, Module, …; v2 stored, v1/v2/v3alpha1 served) and emissary-apiext, the conversion webhook between those versions, as Emissary 3.9's emissary-crds.yaml installs it: ServiceAccount, ClusterRole (list/watch CRDs, update the getambassador.io ones), a Role for its CA Secret emissary-ingress-webhook-ca, the Service (443 → https 8443) and a Deployment of 3 replicas. The CRDs' conversion webhook points at this Service (name, namespace, port 443, /webhooks/crd-convert); apiext injects the CA bundle itself. Upstream uses the name emissary-apiext in namespace emissary-system: `kf generate emissary-crds emissary-apiext --namespace=emissary-system`.
// @shortDescription The getambassador.io CRDs and Emissary's emissary-apiext conversion webhook.
// @requires Nothing: it installs the CRDs and their conversion webhook (generate it before ambassador)
// @param name string Name of the apiext Service, Deployment and RBAC (upstream: emissary-apiext)
// @optionalParam namespace string null Namespace of apiext and its CA Secret (default: the environment's; upstream: emissary-system)
// @optionalParam image string docker.io/emissaryingress/emissary:3.9.1 Emissary image (apiext is a command of it)
// @optionalParam replicas integer 3 apiext replicas
// @optionalParam installCRDs boolean true Also install the getambassador.io CRDs

local crds = import 'kubeflow/ambassador/emissary-crds.libsonnet';

crds.all(params, env)
