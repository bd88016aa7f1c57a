// ChainerJob (kubeflow.org/v1alpha1) of the archived chainer-operator: a
// master (which runs mpiexec) and, for distributed ChainerMN training, one
// worker set "ws0" of numWorkers workers with backend mpi. mpiConfig.slots
// is the GPU count of the pod (or 1), like the operator's own default.
// Master and workers: masterGpus / workerGpus, both falling back to numGpus.
local jobs = import 'kubeflow/common/jobs.libsonnet';
local replicas = import 'kubeflow/common/replicas.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'chainer',

  slots(params, prefix):: { slots: std.max(1, jobs.gpus(params, prefix)) },

  pod(params, prefix, extra={}):: {
    spec: replicas.podSpec(jobs.replica(params, $.containerName, 1, prefix, extra)),
  },

  job(params, env)::
    local workers = jobs.count(params, 'numWorkers', 0);
    local distributed = workers > 0;
    jobs.resource(params, env, 'kubeflow.org/v1alpha1', 'ChainerJob', {
      backend: if distributed then 'mpi' else null,
      master: util.prune({
        activeDeadlineSeconds: util.optInt(util.get(params, 'activeDeadlineSeconds'), 'activeDeadlineSeconds'),
        backoffLimit: util.optInt(util.get(params, 'backoffLimit'), 'backoffLimit'),
        mpiConfig: if distributed then $.slots(params, 'master') else null,
        template: $.pod(params, 'master', {
          podRestartPolicy: util.oneOf(util.get(params, 'restartPolicy', 'Never'), ['OnFailure', 'Never'], 'restartPolicy'),
        }),
      }),
      workerSets: if distributed then {
        ws0: {
          replicas: workers,
          mpiConfig: $.slots(params, 'worker'),
          // Workers only host MPI processes started by the master's mpiexec.
          template: $.pod(params, 'worker', {
            command: util.get(params, 'workerCommand'),
            args: util.get(params, 'workerArgs'),
          }),
        },
      } else null,
    }),
}
