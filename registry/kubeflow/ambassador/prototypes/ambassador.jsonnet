// @apiVersion 0.1
// @name io.ksonnet.pkg.ambassador
// @description Emissary-ingress (Ambassador) 3.x as the cluster's API gateway: its Deployment, a Service of serviceType (80 and 443) and an admin Service, ServiceAccount, ClusterRole and ClusterRoleBinding, and HTTP (8080) and HTTPS (8443) Listeners (getambassador.io/v3alpha1). Install the getambassador.io CRDs and their emissary-apiext conversion webhook first (the emissary-crds prototype); then route with ambassador-route.
// @shortDescription Emissary-ingress (Ambassador) API gateway.
// @requires The emissary-crds prototype (the getambassador.io CRDs and the emissary-apiext conversion webhook), applied first
// @param name string Name of the objects (e.g. ambassador)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string docker.io/emissaryingress/emissary:3.9.1 Emissary image
// @optionalParam replicas integer 1 Gateway replicas
// @optionalParam serviceType string LoadBalancer Type of the gateway Service: ClusterIP, NodePort or LoadBalancer
// @optionalParam listeners boolean true Also create the HTTP and HTTPS Listeners
// @optionalParam ambassadorId string null Ambassador ID of this gateway (when several run in one cluster)
// @optionalParam resources object {} Gateway container resources

local ambassador = import 'kubeflow/ambassador/ambassador.libsonnet';

ambassador.all(params, env)
