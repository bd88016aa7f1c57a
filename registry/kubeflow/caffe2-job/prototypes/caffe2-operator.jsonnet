// @apiVersion 0.1
// @name io.ksonnet.pkg.caffe2-operator
// @description The archived kubeflow/caffe2-operator that runs Caffe2Jobs (kubeflow.org/v1alpha1): its CRD, ServiceAccount, ClusterRole, ClusterRoleBinding and Deployment. Archived upstream and unmaintained, and upstream never published an image: build one from the repository (make) and pass it as image. The CRD is upstream's, moved to apiextensions.k8s.io/v1 (v1beta1 CRDs are not served since Kubernetes 1.22) with a schema that keeps every field.
// @shortDescription The archived Caffe2 operator (legacy) and its Caffe2Job CRD.
// @requires An operator image you build from kubeflow/caffe2-operator (upstream published none)
// @param name string Name of the operator's objects
// @param image string Operator image you built from kubeflow/caffe2-operator (its entrypoint the operator binary)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam schedulerName string default-scheduler Scheduler of the job pods (-scheduler-name)
// @optionalParam installCRD boolean true Also install the Caffe2Job CRD

local operator = import 'kubeflow/caffe2-job/caffe2-operator.libsonnet';

operator.all(params, env)
