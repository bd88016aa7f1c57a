// Building blocks for the Kubeflow training-job custom resources (TFJob,
// PyTorchJob, MPIJob, MXJob, XGBoostJob, PaddleJob, JAXJob, ...): one
// runPolicy, one restartPolicy check and one replica description for all.
//
// Params read here (all optional):
//   restartPolicy            Always | OnFailure | ExitCode | Never
//   cleanPodPolicy           Running | All | None           } spec.runPolicy,
//   backoffLimit             whole number                   } each omitted
//   activeDeadlineSeconds    whole number                   } when not set
//   ttlSecondsAfterFinished  whole number                   }
//   image, gpuImage, command, args, envVars (or an older component's env) and the GPU params (see gpu.libsonnet)
local gpu = import 'kubeflow/common/gpu.libsonnet';
local replicas = import 'kubeflow/common/replicas.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  restartPolicies:: ['Always', 'OnFailure', 'ExitCode', 'Never'],
  cleanPodPolicies:: ['Running', 'All', 'None'],

  // The replica restartPolicy from params.restartPolicy (or `default`).
  restartPolicy(params, default='OnFailure', allowed=$.restartPolicies)::
    util.oneOf(util.get(params, 'restartPolicy', default), allowed, 'restartPolicy'),

  // spec.runPolicy of a Kubeflow job, or null when no field is set.
  runPolicy(params)::
    local rp = util.prune({
      cleanPodPolicy: util.oneOf(util.get(params, 'cleanPodPolicy'), $.cleanPodPolicies, 'cleanPodPolicy'),
      backoffLimit: util.optInt(util.get(params, 'backoffLimit'), 'backoffLimit'),
      activeDeadlineSeconds: util.optInt(util.get(params, 'activeDeadlineSeconds'), 'activeDeadlineSeconds'),
      ttlSecondsAfterFinished: util.optInt(util.get(params, 'ttlSecondsAfterFinished'), 'ttlSecondsAfterFinished'),
    });
    if rp == {} then null else rp,

  // A replica count param (`key`, default `default`) as a whole number >= 0.
  count(params, key, default=0)::
    local n = util.toInt(util.get(params, key, default), key);
    if n < 0 then error '%s: %d is negative' % [key, n] else n,

  // A replica count limited to 0 or 1 (chief, master, launcher, ...).
  zeroOrOne(params, key, default=0)::
    local n = $.count(params, key, default);
    if n > 1 then error '%s: %d is not 0 or 1 (at most one replica of this type)' % [key, n] else n,

  // A replica description for replicas.spec: the job's image, command, args,
  // envVars and the GPU settings read with `gpuPrefix` (e.g. 'worker' reads
  // workerGpus, falling back to numGpus). `extra` overrides any field.
  replica(params, containerName, count, gpuPrefix=null, extra={}):: {
    containerName: containerName,
    image: util.get(params, 'image'),
    command: util.get(params, 'command'),
    args: util.get(params, 'args'),
    env: util.envParam(params),
    gpu: gpu.settings(params, gpuPrefix),
    replicas: count,
    restartPolicy: $.restartPolicy(params),
  } + extra,

  // GPUs of a replica type, for docs and checks ("psGpus" → its count).
  gpus(params, gpuPrefix=null):: gpu.settings(params, gpuPrefix).count,

  // The custom resource itself.
  resource(params, env, apiVersion, kind, spec):: {
    local name = params.name,
    apiVersion: apiVersion,
    kind: kind,
    metadata: {
      name: name,
      namespace: util.namespace(params, env),
      labels: util.labels(name),
    },
    spec: util.prune(spec),
  },

  // A Kubeflow v1-style job: {<field>: replicas.specs(types), runPolicy}
  // merged with `extraSpec`. Fails when no replica type has a replica.
  job(params, env, apiVersion, kind, replicaField, types, extraSpec={})::
    local specs = replicas.specs(types);
    if specs == {} then error '%s %s: every replica count is 0; nothing to run' % [kind, params.name]
    else $.resource(params, env, apiVersion, kind, {
      [replicaField]: specs,
      runPolicy: $.runPolicy(params),
    } + extraSpec),
}
