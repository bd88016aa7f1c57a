// A KServe InferenceService (serving.kserve.io/v1beta1) with one predictor in
// the `model` form: {modelFormat: {name: <framework>}, storageUri,
// runtimeVersion, resources}, the KServe controller picking the serving
// runtime for the framework (or `runtime` when given).
local gpu = import 'kubeflow/common/gpu.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';
local kueue = import 'kubeflow/common/kueue.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  // Model formats of KServe's built-in ClusterServingRuntimes.
  frameworks:: ['tensorflow', 'pytorch', 'sklearn', 'xgboost', 'onnx', 'triton', 'tensorrt',
                'lightgbm', 'paddle', 'pmml', 'huggingface'],
  deploymentModes:: ['Serverless', 'RawDeployment', 'Standard', 'Knative'],

  // The runtime version: gpuRuntimeVersion (e.g. "2.6.2-gpu" for tensorflow)
  // when the predictor has GPUs and one is given.
  runtimeVersion(params, g)::
    gpu.image(g.count, util.get(params, 'runtimeVersion'), util.get(params, 'gpuRuntimeVersion'), g.what),

  predictor(params)::
    local g = gpu.settings(params);
    local framework = util.oneOf(util.get(params, 'framework', 'tensorflow'), $.frameworks, 'framework');
    local minR = util.optInt(util.get(params, 'minReplicas'), 'minReplicas');
    local maxR = util.optInt(util.get(params, 'maxReplicas'), 'maxReplicas');
    if minR != null && maxR != null && maxR > 0 && maxR < minR then
      error 'maxReplicas: %d is less than minReplicas %d' % [maxR, minR]
    else util.prune({
      model: util.prune({
        modelFormat: util.prune({ name: framework, version: util.toStringOrNull(util.get(params, 'frameworkVersion')) }),
        runtime: util.get(params, 'runtime'),
        runtimeVersion: $.runtimeVersion(params, g),
        protocolVersion: util.oneOf(util.get(params, 'protocolVersion'), ['v1', 'v2', 'grpc-v1', 'grpc-v2'], 'protocolVersion'),
        storageUri: if util.isNone(util.get(params, 'storageUri')) then error 'storageUri: required (gs://, s3://, pvc://claim/path, https://, hf://...)' else params.storageUri,
        args: util.toArgs(util.get(params, 'args')),
        env: util.envVars(util.envParam(params)),
        resources: gpu.resources(g.count, g.resource, k8s.resources(util.get(params, 'resources', {})), g.what),
      }),
      minReplicas: minR,
      maxReplicas: maxR,
      scaleTarget: util.optInt(util.get(params, 'scaleTarget'), 'scaleTarget'),
      scaleMetric: util.oneOf(util.get(params, 'scaleMetric'), ['cpu', 'memory', 'concurrency', 'rps'], 'scaleMetric'),
      serviceAccountName: util.get(params, 'serviceAccountName'),
      // KServe puts a component's labels on its pods, where Kueue's pod integration reads them.
      labels: if kueue.labels(params) == {} then null else kueue.labels(params),
    }) + gpu.podSpec(g.count, g.resource, g.nodeSelector, g.tolerations, g.what),

  inferenceService(params, env)::
    local name = params.name;
    local mode = util.oneOf(util.get(params, 'deploymentMode'), $.deploymentModes, 'deploymentMode');
    {
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      metadata: k8s.metadata(name, util.namespace(params, env), util.labels(name),
                             if mode == null then {} else { 'serving.kserve.io/deploymentMode': mode }),
      spec: { predictor: $.predictor(params) },
    },
}
