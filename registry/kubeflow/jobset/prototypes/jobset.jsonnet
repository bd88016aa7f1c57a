// @apiVersion 0.1
// @name io.ksonnet.pkg.jobset
// @description The JobSet v0.12.0 controller as kubernetes-sigs/jobset@v0.12.0 installs it (config/default), the version Kubeflow Trainer v2.3.0 pins (its manifests/third-party/jobset and go.mod): the jobsets.jobset.x-k8s.io CRD (installCRD), ServiceAccount, ClusterRole and Roles with their bindings, its Configuration ConfigMap, the Deployment (container manager, image registry.k8s.io/jobset/jobset:v0.12.0), the webhook Service <name>-webhook-service (443 to 9443) and metrics Service, the certificate Secret <name>-webhook-server-cert that the controller fills itself, and the webhook configurations jobset-mutating-webhook-configuration and jobset-validating-webhook-configuration (JobSets and their pods) whose CA it injects. Name it jobset for upstream's object names.
// @shortDescription The JobSet v0.12.0 controller and its CRD.
// @requires Nothing: it installs the JobSet CRD (installCRD=true) and generates its own webhook certificates
// @param name string Prefix of the objects' names (jobset gives upstream's names)
// @optionalParam namespace string null Namespace (default: the environment's namespace; upstream uses jobset-system)
// @optionalParam image string registry.k8s.io/jobset/jobset:v0.12.0 Controller image
// @optionalParam installCRD boolean true Also install the JobSet CRD
// @optionalParam resources object {"requests":{"cpu":"500m","memory":"128Mi"},"limits":{"memory":"4Gi"}} Resources of the controller container
// @optionalParam logLevel integer 2 Log verbosity (--zap-log-level)

local jobset = import 'kubeflow/jobset/jobset.libsonnet';

jobset.all(params, env)
