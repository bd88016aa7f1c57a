// @apiVersion 0.1
// @name io.ksonnet.pkg.kserve
// @description A KServe InferenceService (serving.kserve.io/v1beta1) serving one model: the predictor names the model format (framework) and storageUri, and KServe picks a matching ServingRuntime (or the one named by runtime). With numGpus > 0 the predictor gets the GPU limit, gpuNodeSelector, gpuTolerations and gpuRuntimeVersion (e.g. 2.6.2-gpu for tensorflow). Needs KServe installed in the cluster.
// @shortDescription A KServe InferenceService (any framework), with GPUs.
// @requires KServe: the kserve-controller prototype (controller and serving.kserve.io CRDs) and kserve-runtimes (ServingRuntimes)
// @requires For private storageUri: a ServiceAccount (serviceAccountName) listing the credential Secret
// @checkedAgainst KServe v0.20.0: InferenceService `predictor.model` (format, storageUri, resources) and the GPU tag of its tensorflow runtime (config/runtimes/kserve-tensorflow-serving.yaml)
// @param name string Name of the InferenceService
// @param storageUri string Where the model is: gs://, s3://, pvc://claim/path, https:// or hf://
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam framework string tensorflow Model format: tensorflow, pytorch, sklearn, xgboost, onnx, triton, tensorrt, lightgbm, paddle, pmml or huggingface
// @optionalParam frameworkVersion string null Model format version (e.g. 2 for tensorflow), to match a runtime
// @optionalParam runtime string null ServingRuntime/ClusterServingRuntime to use (default: KServe picks one)
// @optionalParam runtimeVersion string null Runtime image tag (default: the runtime's)
// @optionalParam gpuRuntimeVersion string null Runtime image tag when numGpus > 0 (e.g. 2.6.2-gpu)
// @optionalParam protocolVersion string null Inference protocol: v1, v2, grpc-v1 or grpc-v2
// @optionalParam minReplicas integer null Minimum replicas (0 allows scale to zero in Serverless mode)
// @optionalParam maxReplicas integer null Maximum replicas
// @optionalParam scaleMetric string null Autoscaling metric: cpu, memory, concurrency or rps
// @optionalParam scaleTarget integer null Autoscaling target of that metric
// @optionalParam resources object {} Predictor container resources, e.g. {"requests":{"cpu":"1","memory":"2Gi"}}
// @optionalParam numGpus integer 0 GPUs of the predictor
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector when numGpus > 0 (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations when numGpus > 0 (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam args array null Extra model server args
// @optionalParam envVars object {} Environment variables of the predictor (object, or "K=v,K2=v2")
// @optionalParam serviceAccountName string null Service account (e.g. one listing the S3/GCS credential Secret)
// @optionalParam deploymentMode string null serving.kserve.io/deploymentMode annotation: Serverless, RawDeployment (Standard, Knative on newer KServe)
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the predictor's pods (Kueue's pod integration))
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the predictor's pods (Kueue's pod integration))

local kserve = import 'kubeflow/kserve/kserve.libsonnet';

kserve.inferenceService(params, env)
