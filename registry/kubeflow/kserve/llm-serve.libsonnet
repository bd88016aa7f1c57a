// An LLM served by KServe's Hugging Face runtime (kserve-huggingfaceserver, KServe
// v0.20.0) with its vLLM backend. What the server reads, from
// python/huggingfaceserver/huggingfaceserver/__main__.py at v0.20.0: --model_id (a Hub
// model it downloads itself, with HF_TOKEN from the environment, as huggingface_hub
// reads it), else the model in --model_dir (/mnt/models, where the storage initializer
// puts storageUri); --backend (vllm); --max_model_len; and vLLM's own engine flags, added
// to its parser when the vLLM backend is on (--tensor-parallel-size, --dtype).
local gpu = import 'kubeflow/common/gpu.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';
local kueue = import 'kubeflow/common/kueue.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  // hf://org/name → org/name for --model_id; other URIs go to storageUri.
  hubModel(model)::
    if std.startsWith(model, 'hf://') then
      local id = std.substr(model, 5, std.length(model) - 5);
      if std.length(std.split(id, '/')) < 2 then error 'model: %s names no organisation and model (hf://org/model)' % model
      else id
    else null,

  args(params, g)::
    local model = std.toString(util.get(params, 'model'));
    local hub = $.hubModel(model);
    local tp = util.optInt(util.get(params, 'tensorParallelSize'), 'tensorParallelSize');
    local parallel = if tp != null then tp else std.max(1, g.count);
    local maxLen = util.optInt(util.get(params, 'maxModelLen'), 'maxModelLen');
    if g.count > 0 && parallel > g.count then
      error 'tensorParallelSize: %d is more than the %d GPUs of a replica (numGpus); vLLM shards the model over the GPUs of one pod' % [parallel, g.count]
    else
      ['--backend=vllm']
      + (if hub != null then ['--model_id=' + hub] else [])
      + (if maxLen != null then ['--max_model_len=%d' % maxLen] else [])
      + (if g.count > 1 || tp != null then ['--tensor-parallel-size=%d' % parallel] else [])
      + (if util.isNone(util.get(params, 'dtype')) then [] else ['--dtype=' + params.dtype])
      + util.toArgs(util.get(params, 'extraArgs')),

  inferenceService(params, env)::
    local name = params.name;
    local g = gpu.settings(params);
    local model = util.get(params, 'model');
    local secret = util.get(params, 'hfTokenSecret');
    local minR = util.optInt(util.get(params, 'minReplicas', 1), 'minReplicas');
    local maxR = util.optInt(util.get(params, 'maxReplicas'), 'maxReplicas');
    local base = k8s.resources(util.get(params, 'resources', {}));
    local sized = base {
      requests: { cpu: std.toString(util.get(params, 'cpu', '4')), memory: std.toString(util.get(params, 'memory', '16Gi')) } + util.get(base, 'requests', {}),
      limits: { cpu: std.toString(util.get(params, 'cpu', '4')), memory: std.toString(util.get(params, 'memory', '16Gi')) } + util.get(base, 'limits', {}),
    };
    if util.isNone(model) then error 'model: required (hf://org/model, pvc://claim/path, s3://bucket/path or gs://bucket/path)'
    else if maxR != null && minR != null && maxR < minR then error 'maxReplicas: %d is less than minReplicas %d' % [maxR, minR]
    else {
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      metadata: k8s.metadata(name, util.namespace(params, env), util.labels(name),
                             { 'serving.kserve.io/deploymentMode': util.oneOf(util.get(params, 'deploymentMode', 'RawDeployment'), ['RawDeployment', 'Standard', 'Serverless', 'Knative'], 'deploymentMode') }),
      spec: {
        predictor: util.prune({
          model: util.prune({
            modelFormat: { name: 'huggingface' },
            runtime: util.get(params, 'runtime', 'kserve-huggingfaceserver'),
            args: ['--model_name=' + util.get(params, 'modelName', name)] + $.args(params, g),
            storageUri: if $.hubModel(std.toString(model)) == null then std.toString(model) else null,
            env: (if util.isNone(secret) then [] else [{
                    name: 'HF_TOKEN',
                    valueFrom: { secretKeyRef: { name: secret, key: util.get(params, 'hfTokenKey', 'HF_TOKEN') } },
                  }])
                 + util.envVars(util.envParam(params)),
            resources: gpu.resources(g.count, g.resource, sized, g.what),
          }),
          minReplicas: minR,
          maxReplicas: maxR,
          serviceAccountName: util.get(params, 'serviceAccountName'),
          labels: if kueue.labels(params) == {} then null else kueue.labels(params),
        }) + gpu.podSpec(g.count, g.resource, g.nodeSelector, g.tolerations, g.what),
      },
    },
}
