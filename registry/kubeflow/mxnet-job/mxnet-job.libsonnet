// MXJob (kubeflow.org/v1) for the training-operator up to v1.8: a
// Scheduler, parameter Servers and Workers in MXTrain mode. Workers get
// workerGpus (default numGpus); the scheduler and the servers only move
// parameters, so they get schedulerGpus / serverGpus (default 0).
local jobs = import 'kubeflow/common/jobs.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'mxnet',

  replicaTypes(params):: {
    local r(count, prefix) = jobs.replica(params, $.containerName, count, prefix),
    Scheduler: r(1, 'scheduler'),
    Server: r(jobs.count(params, 'numServers', 1), 'server'),
    Worker: r(jobs.count(params, 'numWorkers', 1), 'worker'),
  },

  job(params, env)::
    jobs.job(params, env, 'kubeflow.org/v1', 'MXJob', 'mxReplicaSpecs', $.replicaTypes(params), {
      jobMode: 'MXTrain',
    }),
}
