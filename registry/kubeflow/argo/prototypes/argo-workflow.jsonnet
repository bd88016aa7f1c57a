// @apiVersion 0.1
// @name io.ksonnet.pkg.argo-workflow
// @description An Argo Workflow that trains then serves a model: step train runs trainImage/trainCommand with MODEL_DIR set to modelDir (a PVC given as pvc://claim/path is mounted; with no modelDir, a PVC <name>-model the component makes); step serve applies a KServe InferenceService for modelDir (serveKind kserve), runs serveImage (container) or is skipped (none). The train step gets trainGpus (default numGpus) with gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations; the serve step gets serveGpus (default numGpus). Needs the argo prototype (controller, CRDs, the argo-workflow ServiceAccount).
// @shortDescription An Argo Workflow: train (with GPUs) then serve.
// @requires Argo Workflows (the `argo` prototype)
// @requires For serveKind kserve: KServe (its controller and the serving.kserve.io CRDs)
// @requires For s3:// or gs:// model paths: the credential Secret named by s3SecretName or gcpCredentialSecretName
// @checkedAgainst Argo Workflows v4.1.2: container and resource templates (successCondition); KServe v0.20.0's tensorflow runtime loads numbered SavedModel folders under storageUri; kf's example ran here on TensorFlow 2.18 (export and reload through its signature)
// @param name string Name of the Workflow
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam modelDir string null Where training writes the model and serving reads it (gs://, s3://, pvc://claim/path); default: pvc://<name>-model/model, on a PVC the component makes
// @optionalParam modelPvcSize string 1Gi Size of the PVC <name>-model made when modelDir is not given
// @optionalParam modelStorageClass string null StorageClass of that PVC (default: the cluster's default)
// @optionalParam trainImage string tensorflow/tensorflow:2.18.0 Image of the train step without GPUs
// @optionalParam gpuImage string tensorflow/tensorflow:2.18.0-gpu Image of the train step with GPUs
// @optionalParam trainCommand array ["python","/opt/kf-example/train.py"] Command of the train step (array, or a space-separated string); the default runs kf's example, mounted from a ConfigMap: a small model trained on random data and exported as a SavedModel to a new version folder under MODEL_DIR, which the serve step loads
// @optionalParam trainArgs array null Args of the train step
// @optionalParam trainResources object {} Resources of the train step
// @optionalParam numGpus integer 0 GPUs of each step unless trainGpus/serveGpus say otherwise
// @optionalParam trainGpus integer null GPUs of the train step (default: numGpus)
// @optionalParam serveGpus integer null GPUs of the serve step or InferenceService (default: numGpus)
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector of steps with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations of steps with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam serveKind string kserve Serve step: kserve (apply an InferenceService), container (run serveImage) or none
// @optionalParam serveName string null Name of the InferenceService (default: name)
// @optionalParam serveFramework string tensorflow Model format of the InferenceService (tensorflow, pytorch, sklearn, ...)
// @optionalParam serveImage string null Image of a container serve step
// @optionalParam serveGpuImage string null Image of a container serve step with GPUs (default: serveImage)
// @optionalParam serveCommand array null Command of a container serve step
// @optionalParam serveArgs array null Args of a container serve step
// @optionalParam envVars object {} Environment variables of the steps (object, or "K=v,K2=v2")
// @optionalParam serviceAccountName string argo-workflow ServiceAccount of the steps (the argo prototype's executor account)
// @optionalParam createServeRole boolean true For serveKind kserve: a Role and RoleBinding <name>-serve letting serviceAccountName apply and watch InferenceServices
// @optionalParam serveGpuRuntimeVersion string null KServe runtime tag of a GPU InferenceService (default: 2.6.2-gpu for tensorflow, the runtime's own otherwise)
// @optionalParam activeDeadlineSeconds integer null Time limit of the workflow in seconds
// @optionalParam ttlSecondsAfterFinished integer null Seconds after which a finished workflow is deleted
// @optionalParam pvcName string null A PVC mounted at /mnt/model; a relative modelDir lies on it
// @optionalParam gcpCredentialSecretName string null Secret holding a GCP service-account key, for gs:// paths
// @optionalParam gcpCredentialKey string key.json Key of the GCP key file in that Secret
// @optionalParam s3SecretName string null Secret holding the AWS access key id and secret key, for s3:// paths
// @optionalParam s3Endpoint string null S3 endpoint host:port (default: AWS)
// @optionalParam s3Region string us-east-1 S3 region
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the train step's pod and the served model's predictor pods (Kueue's pod integration))
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the train step's pod and the served model's predictor pods (Kueue's pod integration))

local workflow = import 'kubeflow/argo/workflow.libsonnet';

workflow.all(params, env)
