// XGBoostJob (kubeflow.org/v1) for the training-operator: one Master (the
// Rabit tracker, also a trainer) and Workers. masterGpus and workerGpus fall
// back to numGpus (XGBoost trains on the master too). The default runs kf's
// example (example/train.py), which trains on the GPU of a replica given one.
local jobs = import 'kubeflow/common/jobs.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'xgboost',

  // XGBoost trains on the CPU unless told `device: cuda`: kf's example is told so on a
  // replica with GPUs (a program of the user's decides for itself).
  deviceArgs(params, prefix)::
    if jobs.runsExample(params) && jobs.gpus(params, prefix) > 0 then
      { args: util.toArgs(util.get(params, 'args')) + ['--device=cuda'] }
    else {},

  replicaTypes(params):: {
    local r(count, prefix) = jobs.replica(params, $.containerName, count, prefix, $.deviceArgs(params, prefix)),
    Master: r(1, 'master'),
    Worker: r(jobs.count(params, 'numWorkers', 1), 'worker'),
  },

  job(params, env)::
    jobs.withExample(params, env, importstr 'kubeflow/xgboost-job/example/train.py',
                     jobs.job(params, env, 'kubeflow.org/v1', 'XGBoostJob', 'xgbReplicaSpecs', $.replicaTypes(params))),
}
