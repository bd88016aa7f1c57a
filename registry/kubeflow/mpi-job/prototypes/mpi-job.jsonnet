// @apiVersion 0.1
// @name io.ksonnet.pkg.mpi-job
// @description An MPI training job (kubeflow.org/v2beta1 MPIJob, e.g. Horovod or plain mpirun) run by the MPI Operator: one Launcher running command/args and numWorkers Workers reached over SSH. Workers get workerGpus (default numGpus), the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations; the launcher gets launcherGpus (default 0). slotsPerWorker defaults to the worker GPU count (or 1).
// @shortDescription An MPI / Horovod training job (MPIJob v2beta1) with GPUs.
// @requires The mpi-operator prototype (MPI Operator v0.8 and the MPIJob v2beta1 CRD)
// @param name string Name of the MPIJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string horovod/horovod:0.28.1 Image of replicas without GPUs (must hold mpirun and sshd)
// @optionalParam gpuImage string null Image of replicas with GPUs (null: use image)
// @optionalParam launcherImage string null Image of the launcher (default: image)
// @optionalParam command array null Launcher command, e.g. mpirun ... (array, or a space-separated string)
// @optionalParam args array null Launcher args (array, or a space-separated string)
// @optionalParam workerCommand array null Worker command (default: the image entrypoint; it must start sshd)
// @optionalParam workerArgs array null Worker args
// @optionalParam envVars object {} Environment variables of every replica (object, or "K=v,K2=v2")
// @optionalParam numWorkers number 1 Number of worker replicas
// @optionalParam numGpus number 0 GPUs per worker
// @optionalParam workerGpus number null GPUs per worker (default: numGpus)
// @optionalParam launcherGpus number 0 GPUs of the launcher (no fallback to numGpus)
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for replicas with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for replicas with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam slotsPerWorker number null MPI slots per worker (default: the worker GPU count, or 1)
// @optionalParam mpiImplementation string OpenMPI MPI implementation: OpenMPI, Intel or MPICH
// @optionalParam sshAuthMountPath string /root/.ssh Where the SSH keys are mounted (the home of the image's user)
// @optionalParam runLauncherAsWorker boolean false Also run training processes in the launcher
// @optionalParam restartPolicy string OnFailure Replica restart policy: Always, OnFailure, ExitCode or Never
// @optionalParam cleanPodPolicy string null Pods to delete when the job ends: Running, All or None
// @optionalParam backoffLimit number null Retries before the job is marked failed
// @optionalParam activeDeadlineSeconds number null Time limit of the job in seconds
// @optionalParam ttlSecondsAfterFinished number null Seconds after which a finished job is deleted

local mpiJob = import 'kubeflow/mpi-job/mpi-job.libsonnet';

mpiJob.job(params, env)
