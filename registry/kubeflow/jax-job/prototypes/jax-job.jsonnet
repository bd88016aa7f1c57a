// @apiVersion 0.1
// @name io.ksonnet.pkg.jax-job
// @description A distributed JAX training job (kubeflow.org/v1 JAXJob, training-operator v1.9+): numWorkers Workers, worker 0 being the coordinator. Workers get workerGpus (default numGpus), the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations.
// @shortDescription A distributed JAX training job (JAXJob) with GPUs.
// @requires The training-operator prototype v1.9 with jaxjob in its schemes
// @param name string Name of the JAXJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string docker.io/kubeflow/jaxjob-simple:latest Image of replicas without GPUs
// @optionalParam gpuImage string null Image of replicas with GPUs (null: use image)
// @optionalParam command array null Container command (array, or a space-separated string)
// @optionalParam args array null Container args (array, or a space-separated string)
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam numWorkers number 2 Number of worker replicas
// @optionalParam numGpus number 0 GPUs per worker
// @optionalParam workerGpus number null GPUs per worker (default: numGpus)
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for replicas with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for replicas with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam restartPolicy string OnFailure Replica restart policy: Always, OnFailure, ExitCode or Never
// @optionalParam cleanPodPolicy string null Pods to delete when the job ends: Running, All or None
// @optionalParam backoffLimit number null Retries before the job is marked failed
// @optionalParam activeDeadlineSeconds number null Time limit of the job in seconds
// @optionalParam ttlSecondsAfterFinished number null Seconds after which a finished job is deleted

local jaxJob = import 'kubeflow/jax-job/jax-job.libsonnet';

jaxJob.job(params, env)
