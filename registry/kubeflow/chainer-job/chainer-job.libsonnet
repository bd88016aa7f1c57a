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
  stockImage:: 'everpeace/chainermn:1.3.0',

  slots(params, prefix):: { slots: std.max(1, jobs.gpus(params, prefix)) },

  // What a job given no command, args or image of its own trains: ChainerMN's MNIST
  // example, which the operator's chainermn image holds with its data
  // (examples/docker/chainermn/Dockerfile), under mpiexec on every slot of the master and
  // the workers, as examples/chainerjob-mn.yaml runs it; with -g (one GPU a process) when
  // the master has GPUs, else with Open MPI's CUDA support off.
  masterExample(params, workers)::
    local gpus = jobs.gpus(params, 'master');
    local processes = $.slots(params, 'master').slots + workers * $.slots(params, 'worker').slots;
    if jobs.ownProgram(params, $.stockImage) then {}
    else {
      command: ['mpiexec', '-n', std.toString(processes), '--allow-run-as-root', '--display-map']
               + (if gpus > 0 then [] else ['--mca', 'mpi_cuda_support', '0'])
               + ['python3', '/train_mnist.py', '-e', '2', '-b', '1000', '-u', '100']
               + (if gpus > 0 then ['-g'] else []),
    },

  // Workers only host the processes the master's mpiexec starts through the operator's
  // kubectl-exec agent (pkg/controllers/backends/mpi): they must stay up, as the
  // operator's example keeps them (an image's entrypoint may exit at once).
  workerIdle:: ['sh', '-c', 'while true; do sleep 1 & wait; done'],

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
        } + $.masterExample(params, workers)),
      }),
      workerSets: if distributed then {
        ws0: {
          replicas: workers,
          mpiConfig: $.slots(params, 'worker'),
          // Workers only host MPI processes started by the master's mpiexec.
          template: $.pod(params, 'worker', {
            local command = util.get(params, 'workerCommand'),
            local args = util.get(params, 'workerArgs'),
            command: if util.isNone(command) && util.isNone(args) then $.workerIdle else command,
            args: args,
          }),
        },
      } else null,
    }),
}
