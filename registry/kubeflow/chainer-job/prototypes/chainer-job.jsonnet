// @apiVersion 0.1
// @name io.ksonnet.pkg.chainer-job
// @description A Chainer / ChainerMN training job (kubeflow.org/v1alpha1 ChainerJob) for the archived kubeflow/chainer-operator: a master and, when numWorkers > 0, one worker set "ws0" with backend mpi and mpiConfig.slots set to the GPUs per pod (or 1). masterGpus and workerGpus fall back to numGpus; pods with GPUs get the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations.
// @shortDescription A Chainer / ChainerMN training job (ChainerJob, legacy) with GPUs.
// @requires The chainer-operator prototype (the archived operator and its ChainerJob CRD)
// @checkedAgainst kubeflow/chainer-operator (archived; image v0.3.0): container `chainer` (pkg/apis/chainer/v1alpha1/constants.go), the master's mpiexec through its kubectl-exec agent (pkg/controllers/backends/mpi), examples/chainerjob-mn.yaml and its image's /train_mnist.py (examples/docker/chainermn/Dockerfile)
// @param name string Name of the ChainerJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string everpeace/chainermn:1.3.0 Image of pods without GPUs
// @optionalParam gpuImage string null Image of pods with GPUs (null: use image)
// @optionalParam command array null Master command, e.g. mpiexec ... (array, or a space-separated string); with none, no args and the default image, the master runs ChainerMN's MNIST example under mpiexec on every slot
// @optionalParam args array null Master args (array, or a space-separated string)
// @optionalParam workerCommand array null Worker command (default, with no workerArgs: a shell that stays up for the master's mpiexec)
// @optionalParam workerArgs array null Worker args
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam numWorkers integer 0 Workers of worker set ws0 (0: a single-pod job)
// @optionalParam numGpus integer 0 GPUs per pod
// @optionalParam masterGpus integer null GPUs of the master (default: numGpus)
// @optionalParam workerGpus integer null GPUs per worker (default: numGpus)
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for pods with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for pods with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam restartPolicy string Never Restart policy of the master pod: Never or OnFailure
// @optionalParam backoffLimit integer null Retries of the master before the job fails
// @optionalParam activeDeadlineSeconds integer null Time limit of the master in seconds
// @optionalParam cpu string null CPU of each replica, as request and limit (e.g. 4)
// @optionalParam memory string null Memory of each replica, as request and limit (e.g. 16Gi)
// @optionalParam resources object {} Resources of every replica ({requests, limits}); cpu, memory and the GPU limit go on top
// @optionalParam masterResources object {} Resources of the master replicas, over resources
// @optionalParam workerResources object {} Resources of the worker replicas, over resources
// @optionalParam pvcName string null A PVC mounted in every replica for data and checkpoints
// @optionalParam pvcMountPath string /mnt/data Where pvcName is mounted
// @optionalParam shmSize string null Size of /dev/shm as a memory emptyDir (e.g. 8Gi; NCCL and DataLoader workers need more than 64Mi)
// @optionalParam serviceAccountName string null ServiceAccount of the pods
// @optionalParam imagePullSecrets array null Secrets for pulling private images (JSON array, or names separated by spaces)
// @optionalParam priorityClassName string null PriorityClass of the pods
// @optionalParam schedulerName string null Scheduler of the pods (e.g. volcano)
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the job)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the job)

local chainerJob = import 'kubeflow/chainer-job/chainer-job.libsonnet';

chainerJob.job(params, env)
