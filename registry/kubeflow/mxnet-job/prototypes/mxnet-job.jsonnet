// @apiVersion 0.1
// @name io.ksonnet.pkg.mxnet-job
// @description An Apache MXNet training job (kubeflow.org/v1 MXJob, jobMode MXTrain): one Scheduler, numServers parameter Servers and numWorkers Workers. Served by the training-operator up to v1.8 (v1.9 dropped MXJob). Workers get workerGpus (default numGpus), the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations; the scheduler and servers get schedulerGpus / serverGpus (default 0).
// @shortDescription A distributed MXNet training job (MXJob) with GPUs.
// @requires A training-operator v1.8.x with mxjob in its schemes (v1.9 removed MXJob)
// @checkedAgainst Kubeflow training-operator v1.8.1, the last release with MXJob: container `mxnet` (pkg/apis/kubeflow.org/v1/mxnet_types.go); the workers' MNIST command of sdk/python/test/e2e/test_e2e_mxjob.py
// @param name string Name of the MXJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string kubeflow/mxnet-gpu:latest Image of replicas without GPUs
// @optionalParam gpuImage string null Image of replicas with GPUs (null: use image)
// @optionalParam command array null Container command (array, or a space-separated string); with neither command nor args, the workers train MXNet's MNIST example of the default image (one epoch, 1000 examples), on their GPUs when they have some
// @optionalParam args array null Container args (array, or a space-separated string)
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam numServers integer 1 Number of parameter servers
// @optionalParam numWorkers integer 1 Number of worker replicas
// @optionalParam numGpus integer 0 GPUs per worker
// @optionalParam workerGpus integer null GPUs per worker (default: numGpus)
// @optionalParam serverGpus integer 0 GPUs per server (no fallback to numGpus)
// @optionalParam schedulerGpus integer 0 GPUs of the scheduler (no fallback to numGpus)
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
// @optionalParam serverResources object {} Resources of the server replicas, over resources
// @optionalParam schedulerResources object {} Resources of the scheduler replicas, over resources
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

local mxnetJob = import 'kubeflow/mxnet-job/mxnet-job.libsonnet';

mxnetJob.job(params, env)
