// GPU scheduling, written once for every workload of the registry.
//
// Params (per replica type where a job has several, e.g. workerGpus):
//   numGpus          how many GPUs one replica gets; 0, "0", null, "null" = none
//   gpuResource      the extended resource name (default nvidia.com/gpu; amd.com/gpu works)
//   gpuNodeSelector  object or "k=v,k2=v2" string, applied only when GPUs > 0
//   gpuTolerations   array of tolerations; when not set and GPUs > 0, kf
//                    tolerates the GPU resource's NoSchedule taint
//   gpuImage         the image used instead of `image` when GPUs > 0
local util = import 'kubeflow/common/util.libsonnet';

{
  defaultResource:: 'nvidia.com/gpu',

  // The GPU count of a replica, as a whole number.
  count(n, what='numGpus')::
    local c = util.toInt(n, what);
    if c < 0 then error '%s: %d is negative' % [what, c] else c,

  resourceName(r):: if util.isNone(r) then self.defaultResource else r,

  // Container resources: `base` (an object with limits/requests, or null)
  // plus the GPU limit when the count is positive.
  resources(n, resource=null, base={}, what='numGpus')::
    local c = self.count(n, what);
    local b = if util.isNone(base) then {} else base;
    if c == 0 then b
    else b { limits+: { [$.resourceName(resource)]: c } },

  // Node selector for a replica with n GPUs (empty when none).
  nodeSelector(n, selector, what='numGpus')::
    if self.count(n, what) == 0 then {} else util.kvObject(selector, 'gpuNodeSelector'),

  // Tolerations for a replica with n GPUs (empty when none).
  tolerations(n, resource=null, tolerations=null, what='numGpus')::
    if self.count(n, what) == 0 then []
    else if util.isNone(tolerations) then [{
      key: $.resourceName(resource),
      operator: 'Exists',
      effect: 'NoSchedule',
    }]
    else if std.isArray(tolerations) then tolerations
    // `kf param set c gpuTolerations '[{...}]'` may store the JSON as a string.
    else if std.isString(tolerations) && std.startsWith(std.stripChars(tolerations, ' '), '[') then
      std.parseJson(tolerations)
    else error 'gpuTolerations: expected an array of tolerations, got %s' % std.type(tolerations),

  // kf's stock images that have a GPU build, and that build: a prototype's default
  // `image` and default `gpuImage` (tf-job, jax-job, paddle-job, tf-serving and
  // argo-workflow's train step).
  stockGpuImages:: {
    'tensorflow/tensorflow:2.16.1': 'tensorflow/tensorflow:2.16.1-gpu',
    'tensorflow/tensorflow:2.18.0': 'tensorflow/tensorflow:2.18.0-gpu',
    'tensorflow/serving:2.18.0': 'tensorflow/serving:2.18.0-gpu',
    'docker.io/kubeflow/jaxjob-simple:latest': 'nvcr.io/nvidia/jax:25.10-py3',
    'registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-cpu': 'registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-gpu-cuda11.2-cudnn8.1-trt8.0',
  },

  // The image to run: gpuImage when GPUs are requested and one is given. kf's stock GPU
  // image (which `kf generate` writes into every component's params) goes only with kf's
  // stock image: once the user runs their own image, GPU replicas run it too, rather than
  // kf's image without the user's code.
  image(n, cpuImage, gpuImage=null, what='numGpus')::
    local stockGpu = std.member(std.objectValues($.stockGpuImages), gpuImage);
    local stockCpu = std.isString(cpuImage) && std.objectHas($.stockGpuImages, cpuImage);
    if self.count(n, what) > 0 && !util.isNone(gpuImage) && !(stockGpu && !stockCpu) then gpuImage
    else cpuImage,

  // Fields to merge into a pod spec (nodeSelector, tolerations) — none when n is 0.
  podSpec(n, resource=null, selector=null, tolerations=null, what='numGpus')::
    local ns = self.nodeSelector(n, selector, what);
    local ts = self.tolerations(n, resource, tolerations, what);
    (if ns == {} then {} else { nodeSelector+: ns })
    + (if ts == [] then {} else { tolerations+: ts }),

  // All of the above from a params object, with a per-replica prefix:
  // gpu.fromParams(params, 'worker') reads workerGpus and falls back to
  // numGpus; gpuResource/gpuNodeSelector/gpuTolerations/gpuImage are shared.
  settings(params, prefix=null)::
    local key = if prefix == null then 'numGpus' else prefix + 'Gpus';
    local own = std.objectHas(params, key) && !util.isNone(params[key]);
    // Errors name the param the value came from (workerGpus or numGpus).
    local what = if own then key else 'numGpus';
    local n = if own then params[key] else util.get(params, 'numGpus', 0);
    {
      what:: what,
      count: $.count(n, what),
      resource: $.resourceName(util.get(params, 'gpuResource')),
      nodeSelector: util.get(params, 'gpuNodeSelector'),
      tolerations: util.get(params, 'gpuTolerations'),
      image: util.get(params, 'gpuImage'),
    },
}
