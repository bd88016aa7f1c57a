// @apiVersion 0.1
// @name io.ksonnet.pkg.jax-job
// @description A distributed JAX training job (kubeflow.org/v1 JAXJob, training-operator v1.9+): numWorkers Workers, worker 0 being the coordinator. Workers get workerGpus (default numGpus), the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations.
// @shortDescription A distributed JAX training job (JAXJob) with GPUs.
// @nameRule dns1035 training-operator v1.9's JAXJob webhook (pkg/webhooks/jax/jaxjob_webhook.go, NameIsDNS1035Label)
// @requires The training-operator prototype v1.9 with jaxjob in its schemes
// @checkedAgainst Kubeflow training-operator v1.9.2: container `jax` (pkg/apis/kubeflow.org/v1/jax_types.go); COORDINATOR_ADDRESS, COORDINATOR_PORT, NUM_PROCESSES and PROCESS_ID, as examples/jax/cpu-demo/train.py reads them
// @param name string Name of the JAXJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string docker.io/kubeflow/jaxjob-simple:latest Image of replicas without GPUs
// @optionalParam gpuImage string nvcr.io/nvidia/jax:25.10-py3 Image of replicas with GPUs: NVIDIA's CUDA build of JAX, the image Kubeflow Trainer v2.3's jax-distributed runtime uses (null: use image, which has a CPU-only JAX)
// @optionalParam command array ["python3","/opt/kf-example/train.py"] Container command (array, or a space-separated string); the default runs kf's example, mounted from a ConfigMap: a small model trained data-parallel across every process and device on random data, which finishes in seconds
// @optionalParam args array null Container args (array, or a space-separated string)
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam numWorkers integer 2 Number of worker replicas
// @optionalParam numGpus integer 0 GPUs per worker
// @optionalParam workerGpus integer null GPUs per worker (default: numGpus)
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for replicas with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for replicas with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam restartPolicy string OnFailure Replica restart policy: Always, OnFailure, ExitCode or Never
// @optionalParam cleanPodPolicy string null Pods to delete when the job ends: Running, All or None
// @optionalParam backoffLimit integer null Retries before the job is marked failed
// @optionalParam activeDeadlineSeconds integer null Time limit of the job in seconds
// @optionalParam ttlSecondsAfterFinished integer null Seconds after which a finished job is deleted
// @optionalParam cpu string null CPU of each replica, as request and limit (e.g. 4)
// @optionalParam memory string null Memory of each replica, as request and limit (e.g. 16Gi)
// @optionalParam resources object {} Resources of every replica ({requests, limits}); cpu, memory and the GPU limit go on top
// @optionalParam workerResources object {} Resources of the worker replicas, over resources
// @optionalParam pvcName string null A PVC mounted in every replica for data and checkpoints
// @optionalParam pvcMountPath string /mnt/data Where pvcName is mounted
// @optionalParam shmSize string null Size of /dev/shm as a memory emptyDir (e.g. 8Gi; NCCL and DataLoader workers need more than 64Mi)
// @optionalParam serviceAccountName string null ServiceAccount of the pods
// @optionalParam imagePullSecrets array null Secrets for pulling private images (JSON array, or names separated by spaces)
// @optionalParam priorityClassName string null PriorityClass of the pods
// @optionalParam schedulerName string null Scheduler of the pods (e.g. volcano)
// @optionalParam gangScheduler string null Gang scheduler: volcano, or the name of a scheduler-plugins coscheduling scheduler; sets runPolicy.schedulingPolicy and the pods' schedulerName (the operator must run with that gang scheduler)
// @optionalParam gangMinAvailable integer null Gang: pods that must start together (default: every pod of the job)
// @optionalParam gangQueue string null Gang: the volcano queue of the PodGroup
// @optionalParam gangPriorityClass string null Gang: PriorityClass of the PodGroup
// @optionalParam gangScheduleTimeoutSeconds integer null Gang: seconds the scheduler waits for the whole gang
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the job)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the job)

local jaxJob = import 'kubeflow/jax-job/jax-job.libsonnet';

jaxJob.job(params, env)
