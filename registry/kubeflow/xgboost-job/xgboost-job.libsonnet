// XGBoostJob (kubeflow.org/v1) for the training-operator: one Master (the
// Rabit tracker, also a trainer) and Workers. masterGpus and workerGpus fall
// back to numGpus (XGBoost trains on the master too).
local jobs = import 'kubeflow/common/jobs.libsonnet';

{
  containerName:: 'xgboost',

  replicaTypes(params):: {
    local r(count, prefix) = jobs.replica(params, $.containerName, count, prefix),
    Master: r(1, 'master'),
    Worker: r(jobs.count(params, 'numWorkers', 1), 'worker'),
  },

  job(params, env)::
    jobs.job(params, env, 'kubeflow.org/v1', 'XGBoostJob', 'xgbReplicaSpecs', $.replicaTypes(params)),
}
