// @apiVersion 0.1
// @name io.ksonnet.pkg.trainer-controller
// @description The Kubeflow Trainer v2.3.0 controller manager as kubeflow/trainer@v2.3.0 installs it (manifests/overlays/manager): the trainer.kubeflow.org CRDs (TrainJob, TrainingRuntime, ClusterTrainingRuntime; installCRDs), ServiceAccount, ClusterRole and binding, its Configuration ConfigMap, the public version ConfigMap, the Deployment (container manager, --config), the Service <name>-controller-manager (metrics 8443, webhook 443 to 9443, status server 10443), the webhook certificate Secret <name>-webhook-cert that the controller fills itself, and the webhook configurations validator.trainer.kubeflow.org and defaulter.trainer.kubeflow.org whose CA it injects. Name it kubeflow-trainer for upstream's object names. Trainer v2.3.0 pins JobSet v0.12.0 (manifests/third-party/jobset, go.mod).
// @shortDescription The Kubeflow Trainer v2.3 controller and its CRDs.
// @requires JobSet v0.12.0: the jobset prototype (the jobset package); the controller creates and watches JobSets
// @param name string Prefix of the objects' names (kubeflow-trainer gives upstream's names)
// @optionalParam namespace string null Namespace (default: the environment's namespace; upstream uses kubeflow-system)
// @optionalParam image string ghcr.io/kubeflow/trainer/trainer-controller-manager:v2.3.0 Controller image
// @optionalParam installCRDs boolean true Also install the trainer.kubeflow.org CRDs
// @optionalParam featureGates object {} Feature gates (object, or "Gate=true,Other=false"), passed as --feature-gates
// @optionalParam logLevel integer 2 Log verbosity (--zap-log-level)

local trainerController = import 'kubeflow/trainer/trainer-controller.libsonnet';

trainerController.all(params, env)
