// @apiVersion 0.1
// @name io.ksonnet.pkg.seldon-serve
// @description A Seldon Core v1 SeldonDeployment (machinelearning.seldon.io/v1) serving one model: a prepackaged server (implementation, e.g. SKLEARN_SERVER, TENSORFLOW_SERVER, TRITON_SERVER, reading modelUri) or, with implementation null, your own model image. With numGpus > 0 the model container gets the GPU limit (and gpuImage), the pod gpuNodeSelector and gpuTolerations. Needs the Seldon Core operator in the cluster.
// @shortDescription A Seldon Core SeldonDeployment for one model, with GPUs.
// @requires The seldon-operator prototype (the Seldon Core v1 operator and the SeldonDeployment CRD)
// @requires For private modelUri: the Secret named by envSecretRefName
// @checkedAgainst Seldon Core v1.17.1: prepackaged servers (operator/controllers/seldondeployment_prepackaged_servers.go); for TENSORFLOW_SERVER the GPU goes to the `tfserving` container it adds, not to the proxy
// @param name string Name of the SeldonDeployment
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam implementation string SKLEARN_SERVER Prepackaged server: SKLEARN_SERVER, XGBOOST_SERVER, TENSORFLOW_SERVER, MLFLOW_SERVER, TRITON_SERVER, HUGGINGFACE_SERVER, TEMPO_SERVER (null: use image)
// @optionalParam modelUri string gs://seldon-models/sklearn/iris Model location for a prepackaged server (gs://, s3://, pvc://...; the default is Seldon's public iris example)
// @optionalParam envSecretRefName string null Secret with the storage credentials (e.g. AWS_ACCESS_KEY_ID) used to download modelUri
// @optionalParam image string null Your model image (a Seldon-wrapped model), served as its own container when implementation is null or still the default sklearn server on the default modelUri; with a prepackaged server and a modelUri of yours, the image that server runs from
// @optionalParam gpuImage string null Image used when numGpus > 0 (also replaces a prepackaged server's image)
// @optionalParam graphName string classifier Name of the graph node (and of its container)
// @optionalParam predictorName string default Name of the predictor
// @optionalParam replicas integer 1 Replicas of the predictor
// @optionalParam protocol string null API protocol: seldon, v2, kfserving or tensorflow
// @optionalParam resources object {} Model container resources, e.g. {"requests":{"cpu":"1","memory":"1Gi"}}
// @optionalParam envVars object {} Environment variables of the model container (object, or "K=v,K2=v2")
// @optionalParam serviceAccountName string null Service account of the model server
// @optionalParam numGpus integer 0 GPUs of the model container
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector when numGpus > 0 (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations when numGpus > 0 (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the predictor, which Seldon copies to its Deployments)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the predictor)

local seldon = import 'kubeflow/seldon/seldon.libsonnet';

seldon.seldonDeployment(params, env)
