// MPIJob (kubeflow.org/v2beta1) for the standalone MPI Operator: one
// Launcher running mpirun and numWorkers Workers that the launcher reaches
// over SSH. Workers get workerGpus (default numGpus); the launcher only
// starts processes, so it gets launcherGpus (default 0, no fallback).
local jobs = import 'kubeflow/common/jobs.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  mpiImplementations:: ['OpenMPI', 'Intel', 'MPICH'],

  // totalGpus (ksonnet's mpi-job-simple `gpus`, which the v1alpha1 operator split with
  // its --gpus-per-node): as many workers as it takes with gpusPerNode each, or one
  // worker with all of them when they fit on a node. v2beta1 has no such field, so kf
  // does the split and sets numWorkers and workerGpus.
  withTotalGpus(params)::
    local total = util.optInt(util.get(params, 'totalGpus'), 'totalGpus');
    local perNode = util.toInt(util.get(params, 'gpusPerNode', 8), 'gpusPerNode');
    if total == null || total == 0 then params
    else if total < 0 then error 'totalGpus: %d is negative' % total
    else if perNode < 1 then error 'gpusPerNode: %d is not a positive number' % perNode
    else if total <= perNode then params { numWorkers: 1, workerGpus: total }
    else if total % perNode != 0 then
      error 'totalGpus: %d is more than one node holds (gpusPerNode %d) and not a multiple of it; use a multiple, or set numWorkers and workerGpus' % [total, perNode]
    else params { numWorkers: total / perNode, workerGpus: perNode },

  // OpenMPI's mpirun refuses to run as root unless both variables are set (OpenMPI 4+);
  // images whose SSH keys live in /root/.ssh run as root.
  rootEnv(params)::
    local auto = std.startsWith(util.get(params, 'sshAuthMountPath', '/root/.ssh'), '/root')
                 && util.get(params, 'mpiImplementation', 'OpenMPI') == 'OpenMPI';
    if util.toBool(util.get(params, 'allowRunAsRoot', auto), 'allowRunAsRoot')
    then { OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' } else {},

  // Workers run sshd, which the launcher's mpirun reaches. The operator mounts the SSH
  // keys from a Secret at sshAuthMountPath, whose ownership and modes sshd's StrictModes
  // refuses ("bad ownership or modes for directory /root/.ssh", kubeflow/mpi-operator#424);
  // the operator's own images turn StrictModes off in sshd_config (build/base/Dockerfile),
  // horovod/horovod does not, so kf's default says it on sshd's command line.
  workerSshd:: ['/usr/sbin/sshd', '-De', '-o', 'StrictModes=no'],

  // kf's stock image, and what a job of it with no command trains: Horovod's PyTorch
  // synthetic benchmark (examples/pytorch/pytorch_synthetic_benchmark.py, under
  // /horovod/examples in the image), a few iterations on random data, on every slot.
  stockImage:: 'horovod/horovod:0.28.1',
  // The stock image is Horovod's CUDA build, whose imports can fail on a node with no GPU
  // driver: a job that asks for no GPU runs Horovod's CPU build of the same release (same
  // layout, /horovod/examples included) where the image is the stock one. A job with GPUs
  // keeps one build on the launcher and the workers, so their mpirun and orted match.
  stockCpuImage:: 'horovod/horovod-cpu:0.28.1',
  imageFor(params, image)::
    local gpus = jobs.gpus(params, 'worker') + jobs.gpus(params, 'launcher');
    if gpus == 0 && image == $.stockImage then $.stockCpuImage else image,
  // mpi-operator v0.8 accepts only these (pkg/apis/kubeflow/validation/validation.go,
  // validRestartPolicies).
  restartPolicies:: ['OnFailure', 'Never'],
  exampleCommand(params)::
    local np = jobs.count(params, 'numWorkers', 1) * $.slotsPerWorker(params);
    ['mpirun', '-np', std.toString(np), '-bind-to', 'none', '-map-by', 'slot',
     '-x', 'NCCL_DEBUG=INFO', '-x', 'LD_LIBRARY_PATH', '-x', 'PATH',
     'python', '/horovod/examples/pytorch/pytorch_synthetic_benchmark.py',
     '--model', 'resnet18', '--batch-size', '8', '--num-warmup-batches', '1',
     '--num-batches-per-iter', '1', '--num-iters', '3']
    + (if jobs.gpus(params, 'worker') == 0 then ['--no-cuda'] else []),

  launcherCommand(params)::
    local own = !util.isNone(util.get(params, 'command')) || !util.isNone(util.get(params, 'args'))
                || util.get(params, 'launcherImage', util.get(params, 'image')) != $.stockImage;
    if own then util.get(params, 'command') else $.exampleCommand(params),

  replicaTypes(params):: {
    local restart = jobs.restartPolicy(params, 'OnFailure', $.restartPolicies),
    Launcher: jobs.replica(params, 'mpi-launcher', 1, 'launcher', {
      image: $.imageFor(params, util.get(params, 'launcherImage', util.get(params, 'image'))),
      restartPolicy: restart,
      command: $.launcherCommand(params),
      env:
        local user = util.envVars(util.envParam(params));
        local root = $.rootEnv(params);
        user + [{ name: k, value: root[k] } for k in std.objectFields(root) if !std.member([e.name for e in user], k)],
    }),
    Worker: jobs.replica(params, 'mpi-worker', jobs.count(params, 'numWorkers', 1), 'worker', {
      image: $.imageFor(params, util.get(params, 'image')),
      restartPolicy: restart,
      local command = util.get(params, 'workerCommand'),
      local args = util.get(params, 'workerArgs'),
      command: if util.isNone(command) && util.isNone(args) then $.workerSshd else command,
      args: args,
    }),
  },

  // MPI slots per worker: the param, else the worker's GPU count, else 1.
  slotsPerWorker(params)::
    local set = util.optInt(util.get(params, 'slotsPerWorker'), 'slotsPerWorker');
    if set != null then set
    else std.max(1, jobs.gpus(params, 'worker')),

  // mpi-operator v0.8 refuses a job whose last worker's host name, <name>-worker-<n>, is
  // not a DNS-1035 label (validateMPIJobName in pkg/apis/kubeflow/validation/validation.go).
  checkWorkerNames(params)::
    local workers = jobs.count(params, 'numWorkers', 1);
    local host = '%s-worker-%d' % [params.name, std.max(workers, 1) - 1];
    local problem = util.dns1035Problem(host);
    if problem == null then true
    else error 'MPIJob %s: its last worker\'s host name %s is not a DNS-1035 label (%s), and mpi-operator v0.8 refuses the job; shorten the name to at most %d characters' % [std.manifestJson(params.name), std.manifestJson(host), problem, 63 - std.length(host) + std.length(params.name)],

  job(params0, env)::
    local params = $.withTotalGpus(params0);
    assert jobs.checkName('MPIJob', params.name) == params.name;
    assert $.checkWorkerNames(params);
    jobs.job(params, env, 'kubeflow.org/v2beta1', 'MPIJob', 'mpiReplicaSpecs', $.replicaTypes(params), {
      slotsPerWorker: $.slotsPerWorker(params),
      sshAuthMountPath: util.get(params, 'sshAuthMountPath', '/root/.ssh'),
      mpiImplementation: util.oneOf(util.get(params, 'mpiImplementation', 'OpenMPI'), $.mpiImplementations, 'mpiImplementation'),
      runLauncherAsWorker: if util.toBool(util.get(params, 'runLauncherAsWorker', false), 'runLauncherAsWorker') then true else null,
    }),
}
