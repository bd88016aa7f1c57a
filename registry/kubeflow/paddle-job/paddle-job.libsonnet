// PaddleJob (kubeflow.org/v1) for the training-operator. Collective mode
// (the usual GPU mode): Workers only, numMasters 0. Parameter-server mode:
// numMasters 1 — the Master serves parameters, so it gets masterGpus
// (default 0, no fallback); workers get workerGpus (default numGpus).
local jobs = import 'kubeflow/common/jobs.libsonnet';

{
  containerName:: 'paddle',

  replicaTypes(params):: {
    local r(count, prefix) = jobs.replica(params, $.containerName, count, prefix),
    Master: r(jobs.zeroOrOne(params, 'numMasters'), 'master'),
    Worker: r(jobs.count(params, 'numWorkers', 1), 'worker'),
  },

  job(params, env)::
    jobs.job(params, env, 'kubeflow.org/v1', 'PaddleJob', 'paddleReplicaSpecs', $.replicaTypes(params)),
}
