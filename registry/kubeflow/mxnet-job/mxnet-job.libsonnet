// MXJob (kubeflow.org/v1) for the training-operator up to v1.8: a
// Scheduler, parameter Servers and Workers in MXTrain mode. Workers get
// workerGpus (default numGpus); the scheduler and the servers only move
// parameters, so they get schedulerGpus / serverGpus (default 0).
local jobs = import 'kubeflow/common/jobs.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'mxnet',

  // What a job given no command or args trains: MXNet's MNIST example in the default
  // image, as training-operator v1.8's own end-to-end test runs it on the workers
  // (sdk/python/test/e2e/test_e2e_mxjob.py: docker.io/kubeflow/mxnet-gpu:latest; the
  // scheduler and servers keep the image's entrypoint). Workers with GPUs train on them
  // (`--gpus 0,1,…`), which the script otherwise leaves idle.
  example:: {
    command: ['/usr/local/bin/python3'],
    args: ['/mxnet/mxnet/example/image-classification/train_mnist.py',
           '--num-epochs', '1', '--num-examples', '1000', '--kv-store', 'dist_sync'],
  },

  workerExample(params)::
    local gpus = jobs.gpus(params, 'worker');
    if !util.isNone(util.get(params, 'command')) || !util.isNone(util.get(params, 'args')) then {}
    else {
      command: $.example.command,
      args: $.example.args + (if gpus == 0 then []
                              else ['--gpus', std.join(',', [std.toString(i) for i in std.range(0, gpus - 1)])]),
    },

  replicaTypes(params):: {
    local r(count, prefix, extra={}) = jobs.replica(params, $.containerName, count, prefix, extra),
    Scheduler: r(1, 'scheduler'),
    Server: r(jobs.count(params, 'numServers', 1), 'server'),
    Worker: r(jobs.count(params, 'numWorkers', 1), 'worker', $.workerExample(params)),
  },

  job(params, env)::
    jobs.job(params, env, 'kubeflow.org/v1', 'MXJob', 'mxReplicaSpecs', $.replicaTypes(params), {
      jobMode: 'MXTrain',
    }),
}
