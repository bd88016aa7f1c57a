// The standard ClusterTrainingRuntimes of Kubeflow Trainer v2.3 (torch, deepspeed,
// mlx, jax and xgboost distributed), built from the facts of kubeflow/trainer v2.3.0
// manifests/base/runtimes/*.yaml: the runtime names and framework labels, the
// mlPolicy of each, the replicated jobs (`node`, and `launcher` for the MPI ones),
// the container name `node` that TrainJob's trainer settings apply to, the
// `trainer.kubeflow.org/trainjob-ancestor-step: trainer` label on the job the trainer
// overrides go to, and the MPI runtimes' sshd on port 2222 run as user 1000.
local util = import 'kubeflow/common/util.libsonnet';

{
  names:: ['torch-distributed', 'deepspeed-distributed', 'mlx-distributed', 'jax-distributed', 'xgboost-distributed'],

  ancestor:: { 'trainer.kubeflow.org/trainjob-ancestor-step': 'trainer' },

  job(name, container, labels={}, extra={}):: {
    name: name,
    template: {
      [if labels != {} then 'metadata']: { labels: labels },
      spec: { template: { spec: { containers: [{ name: 'node' } + container] } + extra } },
    },
  },

  runtime(name, framework, mlPolicy, spec):: {
    apiVersion: 'trainer.kubeflow.org/v1alpha1',
    kind: 'ClusterTrainingRuntime',
    metadata: {
      name: name,
      labels: { 'trainer.kubeflow.org/framework': framework },
    },
    spec: { mlPolicy: { numNodes: 1 } + mlPolicy, template: { spec: spec } },
  },

  // One framework image on a single `node` job that is also the trainer job.
  single(name, framework, image):: $.runtime(name, framework, { [framework]: {} }, {
    replicatedJobs: [$.job('node', { image: image }, $.ancestor)],
  }),

  // DeepSpeed and MLX: OpenMPI with sshd on every node; the launcher (also a node, as
  // runLauncherAsNode says) runs the trainer once the nodes are Ready.
  mpi(name, framework, image)::
    local user = { securityContext: { runAsUser: 1000 } };
    local pod = { securityContext: { fsGroup: 1000 } };
    $.runtime(name, framework, {
      mpi: {
        numProcPerNode: 1,
        mpiImplementation: 'OpenMPI',
        sshAuthMountPath: '/home/mpiuser/.ssh',
        runLauncherAsNode: true,
      },
    }, {
      network: { publishNotReadyAddresses: true },
      successPolicy: { operator: 'All', targetReplicatedJobs: ['launcher'] },
      replicatedJobs: [
        $.job('node', user {
          image: image,
          command: ['/usr/sbin/sshd'],
          args: ['-De', '-f', '/home/mpiuser/.sshd_config'],
          readinessProbe: { tcpSocket: { port: 2222 }, initialDelaySeconds: 5 },
        }, extra=pod),
        $.job('launcher', user { image: image }, $.ancestor, pod) {
          dependsOn: [{ name: 'node', status: 'Ready' }],
        },
      ],
    }),

  runtimes(params, env)::
    local version = std.toString(util.get(params, 'version', 'v2.3.0'));
    local kubeflowImage(what) = 'ghcr.io/kubeflow/trainer/%s-runtime:%s' % [what, version];
    local build = {
      'torch-distributed': $.single('torch-distributed', 'torch',
                                    util.get(params, 'torchImage', 'pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime')),
      'deepspeed-distributed': $.mpi('deepspeed-distributed', 'deepspeed', kubeflowImage('deepspeed')),
      'mlx-distributed': $.mpi('mlx-distributed', 'mlx', kubeflowImage('mlx')),
      'jax-distributed': $.single('jax-distributed', 'jax', util.get(params, 'jaxImage', 'nvcr.io/nvidia/jax:25.10-py3')),
      'xgboost-distributed': $.single('xgboost-distributed', 'xgboost', kubeflowImage('xgboost')),
    };
    local wanted = util.toArray(util.get(params, 'runtimes', $.names), 'runtimes');
    util.list([
      if std.objectHas(build, r) then build[r]
      else error 'runtimes: unknown runtime "%s"; Trainer v2.3 ships %s' % [r, std.join(', ', $.names)]
      for r in wanted
    ]),
}
