// @apiVersion 0.1
// @name io.ksonnet.pkg.kserve-runtimes
// @description KServe v0.20.0's ClusterServingRuntimes for TensorFlow (kserve-tensorflow-serving, tensorflow/serving:2.6.2, model formats tensorflow 1 and 2), PyTorch (kserve-torchserve, pytorch/torchserve-kfs:0.9.0) scikit-learn (kserve-sklearnserver, kserve/sklearnserver:v0.20.0) and Hugging Face models (kserve-huggingfaceserver, kserve/huggingfaceserver:v0.20.0, vLLM for the LLMs it supports; the llm-serve prototype uses it), each with autoSelect, so a kserve InferenceService of that framework finds its model server. Cluster-scoped: generate it once per cluster.
// @shortDescription KServe ClusterServingRuntimes for tensorflow, pytorch, sklearn and huggingface (LLMs).
// @requires The kserve-controller prototype (the clusterservingruntimes CRD and its validating webhook)
// @param name string Name used in the runtimes' app label
// @optionalParam frameworks array ["huggingface","pytorch","sklearn","tensorflow"] Which runtimes to install
// @optionalParam tensorflowImage string tensorflow/serving:2.6.2 Image of kserve-tensorflow-serving
// @optionalParam pytorchImage string pytorch/torchserve-kfs:0.9.0 Image of kserve-torchserve
// @optionalParam sklearnImage string kserve/sklearnserver:v0.20.0 Image of kserve-sklearnserver
// @optionalParam huggingfaceImage string kserve/huggingfaceserver:v0.20.0 Image of kserve-huggingfaceserver (the controller appends -gpu to its tag on GPUs)

local runtimes = import 'kubeflow/kserve/kserve-runtimes.libsonnet';

runtimes.all(params, env)
