// MPIJob (kubeflow.org/v2beta1) for the standalone MPI Operator: one
// Launcher running mpirun and numWorkers Workers that the launcher reaches
// over SSH. Workers get workerGpus (default numGpus); the launcher only
// starts processes, so it gets launcherGpus (default 0, no fallback).
local jobs = import 'kubeflow/common/jobs.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  mpiImplementations:: ['OpenMPI', 'Intel', 'MPICH'],

  replicaTypes(params):: {
    Launcher: jobs.replica(params, 'mpi-launcher', 1, 'launcher', {
      image: util.get(params, 'launcherImage', util.get(params, 'image')),
    }),
    Worker: jobs.replica(params, 'mpi-worker', jobs.count(params, 'numWorkers', 1), 'worker', {
      command: util.get(params, 'workerCommand'),
      args: util.get(params, 'workerArgs'),
    }),
  },

  // MPI slots per worker: the param, else the worker's GPU count, else 1.
  slotsPerWorker(params)::
    local set = util.optInt(util.get(params, 'slotsPerWorker'), 'slotsPerWorker');
    if set != null then set
    else std.max(1, jobs.gpus(params, 'worker')),

  job(params, env)::
    jobs.job(params, env, 'kubeflow.org/v2beta1', 'MPIJob', 'mpiReplicaSpecs', $.replicaTypes(params), {
      slotsPerWorker: $.slotsPerWorker(params),
      sshAuthMountPath: util.get(params, 'sshAuthMountPath', '/root/.ssh'),
      mpiImplementation: util.oneOf(util.get(params, 'mpiImplementation', 'OpenMPI'), $.mpiImplementations, 'mpiImplementation'),
      runLauncherAsWorker: if util.toBool(util.get(params, 'runLauncherAsWorker', false), 'runLauncherAsWorker') then true else null,
    }),
}
