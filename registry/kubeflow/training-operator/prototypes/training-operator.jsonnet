// @apiVersion 0.1
// @name io.ksonnet.pkg.training-operator
// @description The Kubeflow training-operator (v1.9) that runs TFJob, PyTorchJob, XGBoostJob, PaddleJob and JAXJob (and MXJob with a v1.8 image): Deployment, ServiceAccount, ClusterRole and ClusterRoleBinding, a Role for its webhook certificate Secret, the Service of its metrics (8080) and webhook (443 to 9443) ports, its ValidatingWebhookConfiguration and the CRDs of the enabled job kinds. MPIJob is left to the mpi-operator prototype.
// @shortDescription The Kubeflow training-operator and its job CRDs.
// @requires Nothing: it installs the CRDs of its schemes (installCRDs=true)
// @param name string Name of the operator's objects (keep training-operator unless you know why)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string kubeflow/training-operator:v1.9.3 Operator image
// @optionalParam schemes array ["tfjob","pytorchjob","xgboostjob","paddlejob","jaxjob"] Job kinds to serve (also mxjob, with a v1.8.x image only)
// @optionalParam installCRDs boolean true Also install the CRDs of the enabled job kinds
// @optionalParam installWebhook boolean true Install the ValidatingWebhookConfiguration of the job kinds
// @optionalParam watchNamespace string null Only watch jobs of this namespace (default: all namespaces)
// @optionalParam gangSchedulerName string null Gang scheduler: volcano or a scheduler-plugins scheduler name

local trainingOperator = import 'kubeflow/training-operator/training-operator.libsonnet';

trainingOperator.all(params, env)
