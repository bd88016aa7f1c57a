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
    else jobs.resource(params, env, 'kubeflow.org/v1alpha1', 'Caffe2Job', {
      backendSpecs: $.backendSpecs(params, n),
      replicaSpecs: {
        replicas: n,
        template: {
          spec: replicas.podSpec(jobs.replica(params, $.containerName, n, null, {
            podRestartPolicy: util.oneOf(util.get(params, 'restartPolicy', 'Never'), ['OnFailure', 'Never'], 'restartPolicy'),
          })),
        },
      },
    }),
}
