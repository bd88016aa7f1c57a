// Caffe2Job (kubeflow.org/v1alpha1) of the archived caffe2-operator: one
// replica spec of numReplicas pods and the rendezvous backend. Facts from
// kubeflow/caffe2-operator: pkg/apis/caffe2/v1alpha1/types.go (Caffe2JobSpec.Backend
// is `backendSpecs`: backendType none|redis|nfs, redisHost, redisPort, nfsPath),
// defaults.go (no backendSpecs: none for one replica, redis for more) and
// pkg/controller/controller_pod.go (every container gets REDIS_HOST, REDIS_PORT,
// NFS_PATH, SHARD_ID and NUM_SHARDS from them); examples/resnet50_redis.yaml.
local jobs = import 'kubeflow/common/jobs.libsonnet';
local replicas = import 'kubeflow/common/replicas.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'caffe2',
  stockImage:: 'kubeflow/caffe2:py2-cuda9.0-cudnn7-ubuntu16.04',

  // What a job given no command, args or image of its own trains: the image's ResNet-50
  // trainer (examples/resnet50_redis.yaml runs it) on simulated images (`--train_data=null`,
  // the trainer's own option), four iterations of 32 images per replica, one epoch, with the
  // rendezvous flags of the backend from the operator's env (REDIS_HOST, REDIS_PORT,
  // NFS_PATH, SHARD_ID, NUM_SHARDS, RUN_ID: pkg/controller/controller_pod.go); on the
  // GPUs when the pods have them, else on the CPU.
  example(params, n, backend)::
    local gpus = jobs.gpus(params);
    if jobs.ownProgram(params, $.stockImage) then {}
    else {
      command: ['python', '/usr/local/caffe2/caffe2/python/examples/resnet50_trainer.py'],
      args: [
        '--train_data=null',
        '--batch_size=32',
        '--epoch_size=%d' % (128 * n),
        '--num_epochs=1',
        '--num_shards=$(NUM_SHARDS)',
        '--shard_id=$(SHARD_ID)',
        '--run_id=$(RUN_ID)',
      ] + (if gpus > 0 then ['--num_gpus=%d' % gpus] else ['--use_cpu=True'])
      + (if n == 1 then []
         else ['--distributed_interfaces=eth0']
              + (if backend.backendType == 'redis' then ['--redis_host=$(REDIS_HOST)', '--redis_port=$(REDIS_PORT)']
                 else if backend.backendType == 'nfs' then ['--file_store_path=$(NFS_PATH)']
                 else [])),
    },

  // spec.backendSpecs: the backend the operator would pick when none is given (none for
  // one replica, redis for more), with what that backend needs.
  backendSpecs(params, n)::
    local chosen = util.oneOf(util.get(params, 'backend'), ['none', 'redis', 'nfs'], 'backend');
    local backend = if chosen != null then chosen else if n == 1 then 'none' else 'redis';
    local redisHost = util.get(params, 'redisHost');
    local nfsPath = util.get(params, 'nfsPath');
    if backend == 'redis' && util.isNone(redisHost) then
      error 'redisHost: %d replicas rendezvous through redis (backend %s), so the Redis server to use is required (e.g. redis-service), or set backend to nfs with nfsPath' % [n, if chosen == null then 'chosen by the operator for more than one replica' else 'redis']
    else if backend == 'nfs' && util.isNone(nfsPath) then
      error 'nfsPath: backend nfs needs the shared folder every replica mounts (e.g. /share/caffe2)'
    else util.prune({
      backendType: backend,
      redisHost: if backend == 'redis' then redisHost else null,
      redisPort: if backend == 'redis' then util.toInt(util.get(params, 'redisPort', 6379), 'redisPort') else null,
      nfsPath: if backend == 'nfs' then nfsPath else null,
    }),

  job(params, env)::
    local n = jobs.count(params, 'numReplicas', 1);
    if n == 0 then error 'numReplicas: must be at least 1'
    else
      local backend = $.backendSpecs(params, n);
      jobs.resource(params, env, 'kubeflow.org/v1alpha1', 'Caffe2Job', {
      backendSpecs: backend,
      replicaSpecs: {
        replicas: n,
        template: {
          spec: replicas.podSpec(jobs.replica(params, $.containerName, n, null, {
            podRestartPolicy: util.oneOf(util.get(params, 'restartPolicy', 'Never'), ['OnFailure', 'Never'], 'restartPolicy'),
          } + $.example(params, n, backend))),
        },
      },
    }),
}
