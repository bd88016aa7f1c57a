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
  // Trainer v2.3's torchtune runtimes (manifests/base/runtimes/torchtune/), for LLM
  // fine-tuning (the llm-finetune prototype): runtime name → the model the model
  // initializer fetches, torchtune's config of it, and its tokenizer files.
  torchtuneModels:: {
    'torchtune-llama3.2-1b': { model: 'meta-llama/Llama-3.2-1B-Instruct', config: 'llama3_2/1B', tokenizer: ['tokenizer.path=/workspace/model/original/tokenizer.model'] },
    'torchtune-llama3.2-3b': { model: 'meta-llama/Llama-3.2-3B-Instruct', config: 'llama3_2/3B', tokenizer: ['tokenizer.path=/workspace/model/original/tokenizer.model'] },
    'torchtune-qwen2.5-1.5b': { model: 'Qwen/Qwen2.5-1.5B-Instruct', config: 'qwen2_5/1.5B', tokenizer: ['tokenizer.path=/workspace/model/vocab.json', 'tokenizer.merges_file=/workspace/model/merges.txt'] },
  },

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

  // A torchtune runtime: a 20Gi `initializer` volume the dataset and model initializers
  // fill (alpaca from the Hub, and the model) and the trainer job reads, once both are
  // Complete; `tune run` of the full fine-tuning recipe on 2 GPUs, its output in
  // /workspace/output. Trainer's torchtune plugin picks the recipe and config the
  // TrainJob asks for (pkg/runtime/framework/plugins/torch/torchtune.go).
  torchtune(name, m, version)::
    local initializer(step, uri) = {
      name: step,
      template: {
        metadata: { labels: { 'trainer.kubeflow.org/trainjob-ancestor-step': step } },
        spec: { template: { spec: { containers: [{
          name: step,
          image: 'ghcr.io/kubeflow/trainer/%s:%s' % [step, version],
          env: [{ name: 'STORAGE_URI', value: uri }],
          volumeMounts: [{ mountPath: '/workspace', name: 'initializer' }],
        }] } } },
      },
    };
    $.runtime(name, 'torchtune', { torch: {} }, {
      volumeClaimPolicies: [{ templates: [{
        metadata: { name: 'initializer' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } },
      }] }],
      replicatedJobs: [
        initializer('dataset-initializer', 'hf://tatsu-lab/alpaca'),
        initializer('model-initializer', 'hf://' + m.model),
        $.job('node', {
          image: 'ghcr.io/kubeflow/trainer/torchtune-trainer:' + version,
          command: ['tune', 'run', '--rdzv_endpoint=localhost:29500', 'full_finetune_distributed',
                    '--config', m.config + '_full',
                    'dataset=torchtune.datasets.instruct_dataset', 'dataset.source=parquet',
                    'dataset.data_dir=/workspace/dataset/data', 'output_dir=/workspace/output']
                   + m.tokenizer + ['checkpointer.checkpoint_dir=/workspace/model'],
          resources: { limits: { 'nvidia.com/gpu': 2 } },
          volumeMounts: [{ mountPath: '/workspace', name: 'initializer' }],
        }, $.ancestor) {
          dependsOn: [{ name: 'dataset-initializer', status: 'Complete' },
                      { name: 'model-initializer', status: 'Complete' }],
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
    } + { [r]: $.torchtune(r, $.torchtuneModels[r], version) for r in std.objectFields($.torchtuneModels) };
    local wanted = util.toArray(util.get(params, 'runtimes', $.names), 'runtimes');
    util.list([
      if std.objectHas(build, r) then build[r]
      else error 'runtimes: unknown runtime "%s"; Trainer v2.3 ships %s' % [r, std.join(', ', $.names + std.objectFields($.torchtuneModels))]
      for r in wanted
    ]),
}
