// @apiVersion 0.1
// @name io.ksonnet.pkg.paddle-job
// @description A PaddlePaddle training job (kubeflow.org/v1 PaddleJob) run by the Kubeflow training-operator: numWorkers Workers in collective mode, plus a Master with numMasters=1 for parameter-server mode. Workers get workerGpus (default numGpus), the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations; the master gets masterGpus (default 0).
// @shortDescription A distributed PaddlePaddle training job (PaddleJob) with GPUs.
// @nameRule dns1035 training-operator v1.9's PaddleJob webhook (pkg/webhooks/paddlepaddle/paddlepaddle_webhook.go, NameIsDNS1035Label)
// @requires The training-operator prototype v1.9 with paddlejob in its schemes
// @checkedAgainst Kubeflow training-operator v1.9.2: container `paddle` (pkg/apis/kubeflow.org/v1/paddlepaddle_types.go); the default command and images of examples/paddlepaddle/simple-cpu.yaml and simple-gpu.yaml
// @param name string Name of the PaddleJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-cpu Image of replicas without GPUs
// @optionalParam gpuImage string registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-gpu-cuda11.2-cudnn8.1-trt8.0 Image of replicas with GPUs (the CPU image has no CUDA build of Paddle)
// @optionalParam command array ["python","-m","paddle.distributed.launch","run_check"] Container command (array, or a space-separated string); the default runs Paddle's distributed self-check and finishes (training-operator v1.9 examples/paddlepaddle)
// @optionalParam args array null Container args (array, or a space-separated string)
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam numMasters integer 0 Number of masters (0: collective mode, 1: parameter-server mode)
// @optionalParam numWorkers integer 1 Number of worker replicas
// @optionalParam numGpus integer 0 GPUs per worker
// @optionalParam workerGpus integer null GPUs per worker (default: numGpus)
// @optionalParam masterGpus integer 0 GPUs of the master (no fallback to numGpus)
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
// @optionalParam masterResources object {} Resources of the master replicas, over resources
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

local paddleJob = import 'kubeflow/paddle-job/paddle-job.libsonnet';

paddleJob.job(params, env)
