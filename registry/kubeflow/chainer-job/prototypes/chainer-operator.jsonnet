// @apiVersion 0.1
// @name io.ksonnet.pkg.chainer-operator
// @description The archived kubeflow/chainer-operator that runs ChainerJobs (kubeflow.org/v1alpha1): its CRD, ServiceAccount, ClusterRole, ClusterRoleBinding and Deployment. Archived upstream and unmaintained: kf ships it so ksonnet-era ChainerMN jobs (workerSets, backend mpi, mpiConfig.slots) can still run. The CRD is upstream's, moved to apiextensions.k8s.io/v1 (v1beta1 CRDs are not served since Kubernetes 1.22) with a schema that keeps every field.
// @shortDescription The archived Chainer operator (legacy) and its ChainerJob CRD.
// @requires Nothing: it installs its own CRD (installCRD=true)
// @param name string Name of the operator's objects
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string gcr.io/kubeflow-images-public/chainer-operator:v0.3.0 Operator image
// @optionalParam v integer 2 Log level (the operator's -v flag)
// @optionalParam stderrthreshold string INFO Log severity written to stderr (-stderrthreshold)
// @optionalParam installCRD boolean true Also install the ChainerJob CRD

local operator = import 'kubeflow/chainer-job/chainer-operator.libsonnet';

operator.all(params, env)
