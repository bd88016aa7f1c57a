// @apiVersion 0.1
// @name io.ksonnet.pkg.llm-finetune
// @description Fine-tunes an LLM with Kubeflow Trainer v2.3's torchtune runtimes (a trainer.kubeflow.org/v1alpha1 TrainJob): the runtime's initializers fetch the model (hf://, default the runtime's own) and the dataset (hf://, default tatsu-lab/alpaca) into its volume, then torchtune trains with LoRA (default), QLoRA or full fine-tuning, on numGpus GPUs of one node; Trainer picks the single-device recipe for one GPU and the distributed one for more. The default fine-tunes Qwen2.5 1.5B Instruct with LoRA on one GPU. The result is in /workspace/output of the runtime's initializer volume claim. queueName and workloadPriorityClass go on the TrainJob for Kueue.
// @shortDescription LLM fine-tuning (LoRA, QLoRA or full) on Trainer v2.3's torchtune runtimes.
// @requires Kubeflow Trainer v2.3 (trainer-controller) and the torchtune runtime it names (training-runtimes)
// @requires For gated models (Llama): a Secret with key ACCESS_TOKEN holding a Hugging Face token (hfTokenSecret)
// @checkedAgainst Kubeflow Trainer v2.3.0: pkg/apis/trainer/v1alpha1/trainjob_types.go (initializer.model and .dataset storageUri and secretRef, trainer.numNodes, resourcesPerNode, args), pkg/runtime/framework/plugins/torch/torchtune.go (recipes, LoRA and QLoRA args, immutable configs), manifests/base/runtimes/torchtune/, pkg/initializers (the secret's ACCESS_TOKEN)
// @nameRule dns1035 Trainer v2.3's TrainJob CRD (its CEL rules on metadata.name)
// @param name string Name of the TrainJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam runtime string torchtune-qwen2.5-1.5b The torchtune runtime: torchtune-qwen2.5-1.5b, torchtune-llama3.2-1b or torchtune-llama3.2-3b
// @optionalParam model string null The model to fetch (hf://org/model; default: the runtime's)
// @optionalParam dataset string hf://tatsu-lab/alpaca The instruct dataset to fetch (hf://org/dataset, or s3://)
// @optionalParam method string lora Fine-tuning: lora, qlora (one GPU, Llama 3.2 only) or full
// @optionalParam loraAttnModules array ["q_proj","v_proj"] Attention projections LoRA adapts
// @optionalParam epochs integer null Epochs (default: the torchtune config's)
// @optionalParam batchSize integer null Batch size (default: the torchtune config's)
// @optionalParam extraArgs array null More torchtune config overrides (key=value)
// @optionalParam numNodes integer 1 Nodes (Trainer v2.3 fine-tunes these models on one)
// @optionalParam numGpus integer 1 GPUs per node
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs
// @optionalParam hfTokenSecret string null Secret (key ACCESS_TOKEN) the initializers log in to Hugging Face with, for gated models
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the TrainJob)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the TrainJob)

local llm = import 'kubeflow/trainer/llm-finetune.libsonnet';

llm.trainJob(params, env)
