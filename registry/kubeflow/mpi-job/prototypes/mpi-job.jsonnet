// @apiVersion 0.1
// @name io.ksonnet.pkg.mpi-job
// @description An MPI training job (kubeflow.org/v2beta1 MPIJob, e.g. Horovod or plain mpirun) run by the MPI Operator: one Launcher running command/args and numWorkers Workers reached over SSH. Workers get workerGpus (default numGpus), the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations; the launcher gets launcherGpus (default 0). slotsPerWorker defaults to the worker GPU count (or 1).
// @shortDescription An MPI / Horovod training job (MPIJob v2beta1) with GPUs.
// @nameRule dns1035 mpi-operator v0.8's validation (validateMPIJobName in pkg/apis/kubeflow/validation/validation.go: <name>-worker-<n> must be one)
// @requires The mpi-operator prototype (MPI Operator v0.8 and the MPIJob v2beta1 CRD)
// @checkedAgainst MPI Operator v0.8 (MPIJob v2beta1): launcher and workers' first containers, SSH keys from a Secret, sshd with StrictModes off as its build/base/Dockerfile sets it (kubeflow/mpi-operator#424); Horovod 0.28.1's examples/pytorch/pytorch_synthetic_benchmark.py
// @param name string Name of the MPIJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string horovod/horovod:0.28.1 Image of replicas without GPUs (must hold mpirun and sshd); the stock one, a CUDA build, runs as its CPU build horovod/horovod-cpu:0.28.1 in a job that asks for no GPU
// @optionalParam gpuImage string null Image of replicas with GPUs (null: use image)
// @optionalParam launcherImage string null Image of the launcher (default: image)
// @optionalParam command array null Launcher command, e.g. mpirun ... (array, or a space-separated string); with the default image and no command or args, mpirun runs Horovod's PyTorch synthetic benchmark on every slot
// @optionalParam args array null Launcher args (array, or a space-separated string)
// @optionalParam workerCommand array null Worker command (default, with no workerArgs: /usr/sbin/sshd -De -o StrictModes=no)
// @optionalParam workerArgs array null Worker args
// @optionalParam envVars object {} Environment variables of every replica (object, or "K=v,K2=v2")
// @optionalParam numWorkers integer 1 Number of worker replicas
// @optionalParam numGpus integer 0 GPUs per worker
// @optionalParam workerGpus integer null GPUs per worker (default: numGpus)
// @optionalParam launcherGpus integer 0 GPUs of the launcher (no fallback to numGpus)
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for replicas with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for replicas with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam slotsPerWorker integer null MPI slots per worker (default: the worker GPU count, or 1)
// @optionalParam mpiImplementation string OpenMPI MPI implementation: OpenMPI, Intel or MPICH
// @optionalParam sshAuthMountPath string /root/.ssh Where the SSH keys are mounted (the home of the image's user)
// @optionalParam runLauncherAsWorker boolean false Also run training processes in the launcher
// @optionalParam totalGpus integer null Total GPUs of the job (ksonnet's mpi-job-simple gpus): sets numWorkers and workerGpus, gpusPerNode per worker
// @optionalParam gpusPerNode integer 8 GPUs a node holds, for totalGpus
// @optionalParam allowRunAsRoot boolean null Set OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) on the launcher (default: when sshAuthMountPath is under /root and mpiImplementation is OpenMPI)
// @optionalParam restartPolicy string OnFailure Replica restart policy: OnFailure or Never (all mpi-operator v0.8 accepts)
// @optionalParam cleanPodPolicy string null Pods to delete when the job ends: Running, All or None
// @optionalParam backoffLimit integer null Retries before the job is marked failed
// @optionalParam activeDeadlineSeconds integer null Time limit of the job in seconds
// @optionalParam ttlSecondsAfterFinished integer null Seconds after which a finished job is deleted
// @optionalParam cpu string null CPU of each replica, as request and limit (e.g. 4)
// @optionalParam memory string null Memory of each replica, as request and limit (e.g. 16Gi)
// @optionalParam resources object {} Resources of every replica ({requests, limits}); cpu, memory and the GPU limit go on top
// @optionalParam workerResources object {} Resources of the worker replicas, over resources
// @optionalParam launcherResources object {} Resources of the launcher replicas, over resources
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

local mpiJob = import 'kubeflow/mpi-job/mpi-job.libsonnet';

mpiJob.job(params, env)
