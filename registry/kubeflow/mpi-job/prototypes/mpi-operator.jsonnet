// @apiVersion 0.1
// @name io.ksonnet.pkg.mpi-operator
// @description The Kubeflow MPI Operator (v0.8) that runs MPIJobs (kubeflow.org/v2beta1): its Deployment, ServiceAccount, ClusterRole and ClusterRoleBinding, and the MPIJob CRD. Do not install it next to a training-operator that serves MPIJob v1: both define mpijobs.kubeflow.org.
// @shortDescription The MPI Operator and the MPIJob v2beta1 CRD.
// @requires Nothing: it installs its own CRD (installCRD=true); no training-operator serving MPIJob v1 beside it
// @param name string Name of the operator's objects (e.g. mpi-operator)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string mpioperator/mpi-operator:0.8.0 Operator image
// @optionalParam installCRD boolean true Also install the MPIJob v2beta1 CRD
// @optionalParam watchNamespace string null Only watch MPIJobs of this namespace (default: all namespaces)
// @optionalParam gangScheduler string null Gang scheduler: volcano or a scheduler-plugins scheduler name

local mpiOperator = import 'kubeflow/mpi-job/mpi-operator.libsonnet';

mpiOperator.all(params, env)
