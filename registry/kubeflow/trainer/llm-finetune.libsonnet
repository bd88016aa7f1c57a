// LLM fine-tuning with Kubeflow Trainer v2.3's torchtune runtimes: a TrainJob
// (trainer.kubeflow.org/v1alpha1) as trainjob_types.go reads it, on one of the runtimes
// training-runtimes carries (torchtune-llama3.2-1b, torchtune-llama3.2-3b,
// torchtune-qwen2.5-1.5b). Trainer's torchtune plugin
// (pkg/runtime/framework/plugins/torch/torchtune.go) picks the recipe from the job:
// one node with one GPU runs the single-device recipe, more GPUs the distributed one;
// model.lora_attn_modules in the args makes it LoRA, model.quantize_base=True QLoRA
// (not for Qwen2.5 1.5B; on one GPU for Llama 3.2); only Llama 3.3 70B takes more than
// one node, and never with LoRA. output_dir, tokenizer.path, tokenizer.merges_file and
// checkpointer.checkpoint_dir belong to the runtime: the result is in /workspace/output
// of the runtime's `initializer` volume claim.
local gpu = import 'kubeflow/common/gpu.libsonnet';
local jobs = import 'kubeflow/common/jobs.libsonnet';
local kueue = import 'kubeflow/common/kueue.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';
local runtimes = import 'kubeflow/trainer/training-runtimes.libsonnet';

{
  methods:: ['lora', 'qlora', 'full'],
  immutable:: ['output_dir', 'tokenizer.path', 'tokenizer.merges_file', 'checkpointer.checkpoint_dir'],

  args(params, runtime, gpus)::
    local method = util.oneOf(util.get(params, 'method', 'lora'), $.methods, 'method');
    local loraModules = util.toArray(util.get(params, 'loraAttnModules', ['q_proj', 'v_proj']), 'loraAttnModules');
    local extra = util.toArgs(util.get(params, 'extraArgs'));
    local clash = [a for a in extra if std.member($.immutable, std.split(a, '=')[0])];
    if clash != [] then error 'extraArgs: %s is set by the runtime (torchtune.go refuses it in a TrainJob); the fine-tuned model is written to /workspace/output of the runtime\'s volume' % clash[0]
    else if method == 'qlora' && runtime == 'torchtune-qwen2.5-1.5b' then error 'method: qlora is not supported for Qwen2.5 1.5B by Trainer v2.3 (torchtune.go); use lora or full'
    else if method == 'qlora' && gpus != 1 then error 'method: qlora on Llama 3.2 needs numGpus 1 (Trainer v2.3 runs it on a single device)'
    else
      (if method == 'full' then [] else ['model.lora_attn_modules=[%s]' % std.join(',', loraModules)])
      + (if method == 'qlora' then ['model.quantize_base=True'] else [])
      + (if util.isNone(util.get(params, 'epochs')) then [] else ['epochs=%d' % util.toInt(params.epochs, 'epochs')])
      + (if util.isNone(util.get(params, 'batchSize')) then [] else ['batch_size=%d' % util.toInt(params.batchSize, 'batchSize')])
      + extra,

  trainJob(params, env)::
    local runtime = util.get(params, 'runtime', 'torchtune-qwen2.5-1.5b');
    local g = gpu.settings(params);
    local numNodes = util.toInt(util.get(params, 'numNodes', 1), 'numNodes');
    local secret = util.get(params, 'hfTokenSecret');
    local source(uri) = util.prune({
      storageUri: uri,
      secretRef: if util.isNone(secret) then null else { name: secret },
    });
    if !std.objectHas(runtimes.torchtuneModels, runtime) then
      error 'runtime: %s is not a torchtune runtime of Trainer v2.3 (%s)' % [runtime, std.join(', ', std.objectFields(runtimes.torchtuneModels))]
    else if numNodes != 1 then error 'numNodes: %d; Trainer v2.3 fine-tunes %s on one node (torchtune.go allows more only for Llama 3.3 70B)' % [numNodes, runtime]
    else if g.count < 1 then error 'numGpus: fine-tuning needs at least one GPU per node'
    else {
      apiVersion: 'trainer.kubeflow.org/v1alpha1',
      kind: 'TrainJob',
      metadata: {
        name: jobs.checkName('TrainJob', params.name),
        namespace: util.namespace(params, env),
        labels: util.labels(params.name) + kueue.labels(params),
      },
      spec: {
        runtimeRef: { name: runtime, apiGroup: 'trainer.kubeflow.org', kind: 'ClusterTrainingRuntime' },
        initializer: {
          model: source(util.get(params, 'model', 'hf://' + runtimes.torchtuneModels[runtime].model)),
          dataset: source(util.get(params, 'dataset', 'hf://tatsu-lab/alpaca')),
        },
        trainer: util.prune({
          numNodes: numNodes,
          resourcesPerNode: gpu.resources(g.count, g.resource, {}, g.what),
          args: $.args(params, runtime, g.count),
        }),
      },
    },
}
