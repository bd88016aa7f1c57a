// @apiVersion 0.1
// @name io.ksonnet.pkg.llm-serve
// @description A large language model served by KServe (serving.kserve.io/v1beta1 InferenceService) on its Hugging Face runtime, kserve-huggingfaceserver, with the vLLM backend and an OpenAI-compatible API (/openai/v1/completions and /openai/v1/chat/completions). model is hf://org/model (downloaded by the server, with the token of hfTokenSecret for gated models), or pvc://, s3:// or gs:// (the storage initializer puts it in /mnt/models). numGpus GPUs per replica; the model is sharded over them (tensorParallelSize, default numGpus). The default, Qwen/Qwen2.5-0.5B-Instruct, is open and fits on one GPU. Replicas with GPUs get the GPU limit, gpuNodeSelector and gpuTolerations; queueName and workloadPriorityClass go on the predictor's pods for Kueue.
// @shortDescription An LLM on KServe's Hugging Face runtime with vLLM, OpenAI-compatible.
// @requires The kserve-controller prototype, and kserve-runtimes with its huggingface runtime (kserve-huggingfaceserver)
// @requires For gated models: a Secret holding a Hugging Face token (hfTokenSecret, key HF_TOKEN)
// @checkedAgainst KServe v0.20.0: config/runtimes/kserve-huggingfaceserver.yaml (--model_name={{.Name}}, image kserve/huggingfaceserver, -gpu tag on GPUs) and python/huggingfaceserver/huggingfaceserver/__main__.py (--model_id, --model_dir /mnt/models, --backend, --max_model_len, vLLM's engine flags)
// @param name string Name of the InferenceService (and, by default, of the model in the API)
// @optionalParam model string hf://Qwen/Qwen2.5-0.5B-Instruct The model: hf://org/model, pvc://claim/path, s3://bucket/path or gs://bucket/path
// @optionalParam modelName string null Model name clients ask for (default: name)
// @optionalParam numGpus integer 1 GPUs per replica (0: CPU, for tests only)
// @optionalParam tensorParallelSize integer null GPUs the model is sharded over (default: numGpus)
// @optionalParam maxModelLen integer null Longest context in tokens (default: the model's; lower it to fit a small GPU)
// @optionalParam dtype string null vLLM's --dtype: auto, half, bfloat16 or float32 (half for GPUs older than Ampere)
// @optionalParam hfTokenSecret string null Secret with a Hugging Face token, for gated models
// @optionalParam hfTokenKey string HF_TOKEN Key of the token in hfTokenSecret
// @optionalParam extraArgs array null More server or vLLM flags (e.g. ["--gpu-memory-utilization=0.85"])
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam cpu string 4 CPU of each replica, as request and limit
// @optionalParam memory string 16Gi Memory of each replica, as request and limit
// @optionalParam resources object {} More resources ({requests, limits}) over cpu and memory
// @optionalParam minReplicas integer 1 Fewest replicas (0: scale to zero, with Knative)
// @optionalParam maxReplicas integer null Most replicas
// @optionalParam deploymentMode string RawDeployment KServe deployment mode: RawDeployment (a Deployment) or Serverless (Knative)
// @optionalParam runtime string kserve-huggingfaceserver The ClusterServingRuntime
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs
// @optionalParam gpuNodeSelector object {} Node selector for replicas with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for replicas with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam serviceAccountName string null ServiceAccount of the predictor (e.g. with s3 credentials)
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the predictor's pods)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the predictor's pods)

local llm = import 'kubeflow/kserve/llm-serve.libsonnet';

llm.inferenceService(params, env)
