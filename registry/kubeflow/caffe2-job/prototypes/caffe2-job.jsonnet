// @apiVersion 0.1
// @name io.ksonnet.pkg.caffe2-job
// @description A Caffe2 training job (kubeflow.org/v1alpha1 Caffe2Job) in the format of the archived kubeflow/caffe2-operator: numReplicas pods coordinated through spec.backendSpecs (none, redis with redisHost/redisPort, or nfs with nfsPath; none for 1 replica and redis otherwise, as the operator picks). No maintained operator serves this kind. Pods with numGpus > 0 get the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations.
// @shortDescription A Caffe2 training job (Caffe2Job, legacy, unmaintained operator) with GPUs.
// @requires The caffe2-operator prototype (the archived operator and its Caffe2Job CRD)
// @checkedAgainst kubeflow/caffe2-operator (archived): container `caffe2`, `backendSpecs` (pkg/apis/caffe2/v1alpha1/types.go), the REDIS_HOST, REDIS_PORT, NFS_PATH, SHARD_ID, NUM_SHARDS and RUN_ID it gives each pod (pkg/controller/controller_pod.go), and examples/resnet50_redis.yaml
// @param name string Name of the Caffe2Job
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string kubeflow/caffe2:py2-cuda9.0-cudnn7-ubuntu16.04 Image of pods without GPUs
// @optionalParam gpuImage string null Image of pods with GPUs (null: use image)
// @optionalParam command array null Container command (array, or a space-separated string)
// @optionalParam args array null Container args (array, or a space-separated string)
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam numReplicas integer 1 Number of pods
// @optionalParam backend string null Rendezvous backend: none, redis or nfs (default: none for one replica, redis for more, as the operator picks)
// @optionalParam redisHost string null Redis server of the redis backend (required with it), e.g. redis-service; the pods get it as REDIS_HOST
// @optionalParam redisPort integer 6379 Port of the Redis server (REDIS_PORT)
// @optionalParam nfsPath string null Shared folder of the nfs backend (required with it; NFS_PATH)
// @optionalParam numGpus integer 0 GPUs per pod
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for pods with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for pods with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam restartPolicy string Never Pod restart policy: Never or OnFailure
// @optionalParam cpu string null CPU of each replica, as request and limit (e.g. 4)
// @optionalParam memory string null Memory of each replica, as request and limit (e.g. 16Gi)
// @optionalParam resources object {} Resources of every replica ({requests, limits}); cpu, memory and the GPU limit go on top
// @optionalParam pvcName string null A PVC mounted in every replica for data and checkpoints
// @optionalParam pvcMountPath string /mnt/data Where pvcName is mounted
// @optionalParam shmSize string null Size of /dev/shm as a memory emptyDir (e.g. 8Gi; NCCL and DataLoader workers need more than 64Mi)
// @optionalParam serviceAccountName string null ServiceAccount of the pods
// @optionalParam imagePullSecrets array null Secrets for pulling private images (JSON array, or names separated by spaces)
// @optionalParam priorityClassName string null PriorityClass of the pods
// @optionalParam schedulerName string null Scheduler of the pods (e.g. volcano)
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the job)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the job)

local caffe2Job = import 'kubeflow/caffe2-job/caffe2-job.libsonnet';

caffe2Job.job(params, env)
