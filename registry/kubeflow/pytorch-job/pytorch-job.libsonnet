// PyTorchJob (kubeflow.org/v1) for the training-operator: a Master and
// Workers, or — with elastic enabled — Workers only, scaled by the
// operator between minReplicas and maxReplicas through torchrun rendezvous.
local jobs = import 'kubeflow/common/jobs.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'pytorch',

  elastic(params):: util.toBool(util.get(params, 'elastic', false), 'elastic'),

  // Masters: none when elastic (torchrun rendezvous replaces it); else one. Without a
  // Master, training-operator v1.9 gives the pods no MASTER_ADDR and RANK
  // (pkg/controller.v1/pytorch/envvar.go sets them only when the Master spec exists), and
  // every worker waits for a rendezvous that never comes.
  masters(params)::
    if $.elastic(params) then 0
    else
      local n = jobs.zeroOrOne(params, 'numMasters', 1);
      if n == 0 then error 'numMasters: 0 without elastic leaves the workers with no MASTER_ADDR and RANK (training-operator v1.9 sets them only when a Master exists), so they would wait forever; keep numMasters=1, or set elastic=true to rendezvous without a Master'
      else n,

  replicaTypes(params):: {
    local r(count, prefix) = jobs.replica(params, $.containerName, count, prefix),
    Master: r($.masters(params), 'master'),
    Worker: r(jobs.count(params, 'numWorkers', 1), 'worker'),
  },

  // spec.elasticPolicy, only when elastic is on.
  elasticPolicy(params)::
    if !$.elastic(params) then null
    else
      local workers = jobs.count(params, 'numWorkers', 1);
      local min = util.get(params, 'minReplicas', workers);
      local max = util.get(params, 'maxReplicas', workers);
      local p = util.prune({
        minReplicas: util.optInt(min, 'minReplicas'),
        maxReplicas: util.optInt(max, 'maxReplicas'),
        maxRestarts: util.optInt(util.get(params, 'maxRestarts'), 'maxRestarts'),
        rdzvBackend: util.oneOf(util.get(params, 'rdzvBackend', 'c10d'), ['c10d', 'etcd', 'etcd-v2'], 'rdzvBackend'),
        rdzvPort: util.optInt(util.get(params, 'rdzvPort'), 'rdzvPort'),
        rdzvHost: util.toStringOrNull(util.get(params, 'rdzvHost')),
        rdzvId: util.toStringOrNull(util.get(params, 'rdzvId')),
        rdzvConf: [{ key: k, value: std.toString(c[k]) } for c in [util.kvObject(util.get(params, 'rdzvConf'), 'rdzvConf')] for k in std.objectFields(c)],
      });
      if p.minReplicas > p.maxReplicas
      then error 'minReplicas (%d) is greater than maxReplicas (%d)' % [p.minReplicas, p.maxReplicas]
      else p,

  // spec.nprocPerNode: "auto", "cpu", "gpu" or a whole number, as a string. Unset, the
  // operator's default is "auto", which torchrun makes the node's CPU count on a pod with
  // no GPU (not the pod's): kf sets it as Trainer v2.3 does, from the GPUs of a replica,
  // else 1.
  nprocPerNode(params)::
    local v = util.get(params, 'nProcPerNode');
    if !util.isNone(v) then
      if std.member(['auto', 'cpu', 'gpu'], std.toString(v)) then std.toString(v)
      else std.toString(util.toInt(v, 'nProcPerNode'))
    else
      local counts = std.set([jobs.gpus(params, 'worker')] + (if $.masters(params) > 0 then [jobs.gpus(params, 'master')] else []));
      if std.length(counts) == 1 then std.toString(std.max(1, counts[0]))
      else if counts[0] > 0 then 'gpu'
      else error 'masterGpus and workerGpus differ and one is 0: torchrun starts the same number of processes in every pod; give every replica GPUs, or set nProcPerNode',


  job(params, env)::
    jobs.withExample(params, env, importstr 'kubeflow/pytorch-job/example/train.py',
                     jobs.job(params, env, 'kubeflow.org/v1', 'PyTorchJob', 'pytorchReplicaSpecs', $.replicaTypes(params), {
                       elasticPolicy: $.elasticPolicy(params),
                       nprocPerNode: $.nprocPerNode(params),
                     })),
}
