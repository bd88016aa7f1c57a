// PyTorchJob (kubeflow.org/v1) for the training-operator: a Master and
// Workers, or — with elastic enabled — Workers only, scaled by the
// operator between minReplicas and maxReplicas through torchrun rendezvous.
local jobs = import 'kubeflow/common/jobs.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'pytorch',

  elastic(params):: util.toBool(util.get(params, 'elastic', false), 'elastic'),

  replicaTypes(params):: {
    local r(count, prefix) = jobs.replica(params, $.containerName, count, prefix),
    // Elastic jobs have no Master: torchrun rendezvous replaces it.
    Master: r(if $.elastic(params) then 0 else jobs.zeroOrOne(params, 'numMasters', 1), 'master'),
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

  // spec.nprocPerNode: "auto", "cpu", "gpu" or a whole number, as a string.
  nprocPerNode(params)::
    local v = util.get(params, 'nProcPerNode');
    if v == null then null
    else if std.member(['auto', 'cpu', 'gpu'], std.toString(v)) then std.toString(v)
    else std.toString(util.toInt(v, 'nProcPerNode')),

  job(params, env)::
    jobs.withExample(params, env, importstr 'kubeflow/pytorch-job/example/train.py',
                     jobs.job(params, env, 'kubeflow.org/v1', 'PyTorchJob', 'pytorchReplicaSpecs', $.replicaTypes(params), {
                       elasticPolicy: $.elasticPolicy(params),
                       nprocPerNode: $.nprocPerNode(params),
                     })),
}
