// @apiVersion 0.1
// @name io.ksonnet.pkg.training-runtimes
// @description The standard ClusterTrainingRuntimes of Kubeflow Trainer v2.3 that TrainJobs reference by runtimeRef: torch-distributed (torchrun), deepspeed-distributed and mlx-distributed (OpenMPI with sshd on port 2222 and a launcher job), jax-distributed and xgboost-distributed; and torchtune-llama3.2-1b, torchtune-llama3.2-3b and torchtune-qwen2.5-1.5b, which fine-tune those models with torchtune after initializer jobs fetch the model and the alpaca dataset into a 20Gi volume (the llm-finetune prototype's runtimes). Each trains in a container named node, the name the TrainJob's trainer settings and kf's train-job GPU patches apply to. Requires the Trainer v2.3 controller and its CRDs (trainer-controller) and JobSet v0.12.0 (jobset) on the cluster.
// @shortDescription Kubeflow Trainer v2.3's standard ClusterTrainingRuntimes.
// @requires Kubeflow Trainer v2.3: the trainer-controller prototype (its controller and the trainer.kubeflow.org CRDs)
// @requires JobSet v0.12.0: the jobset prototype (the jobset package); the runtimes' templates are JobSets
// @param name string Name of the component (the runtimes keep their upstream names)
// @optionalParam runtimes array ["torch-distributed","deepspeed-distributed","mlx-distributed","jax-distributed","xgboost-distributed","torchtune-llama3.2-1b","torchtune-llama3.2-3b","torchtune-qwen2.5-1.5b"] Runtimes to install (JSON array, or names separated by spaces)
// @optionalParam version string v2.3.0 Tag of the ghcr.io/kubeflow/trainer runtime images (deepspeed, mlx, xgboost)
// @optionalParam torchImage string pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime Image of torch-distributed
// @optionalParam jaxImage string nvcr.io/nvidia/jax:25.10-py3 Image of jax-distributed

local runtimes = import 'kubeflow/trainer/training-runtimes.libsonnet';

runtimes.runtimes(params, env)
