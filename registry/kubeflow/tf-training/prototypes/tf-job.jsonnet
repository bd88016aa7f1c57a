// @apiVersion 0.1
// @name io.ksonnet.pkg.tf-job
// @description A TensorFlow training job (kubeflow.org/v1 TFJob) run by the Kubeflow training-operator. Parameter-server style (numChiefs, numPs, numWorkers, numEvaluators) or all-reduce (workers only, numPs 0). GPUs per replica type: chiefGpus, workerGpus and evaluatorGpus fall back to numGpus; parameter servers get psGpus (default 0). Replicas with GPUs get the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations.
// @shortDescription A distributed TensorFlow training job (TFJob) with GPUs.
// @nameRule dns1035 training-operator v1.9's TFJob webhook (pkg/webhooks/tensorflow/tfjob_webhook.go, NameIsDNS1035Label)
// @requires The training-operator prototype v1.9 with tfjob in its schemes
// @checkedAgainst Kubeflow training-operator v1.9.2: container `tensorflow` (pkg/apis/kubeflow.org/v1/tensorflow_types.go); the TF_CONFIG it gives each replica, which kf's example reads
// @param name string Name of the TFJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string tensorflow/tensorflow:2.16.1 Image of replicas without GPUs
// @optionalParam gpuImage string tensorflow/tensorflow:2.16.1-gpu Image of replicas with GPUs (null: use image)
// @optionalParam command array ["python","/opt/kf-example/train.py"] Container command (array, or a space-separated string); the default runs kf's example, mounted from a ConfigMap: a small model trained with MultiWorkerMirroredStrategy on random data, which finishes in seconds (all-reduce only: numPs 0)
// @optionalParam args array null Container args (array, or a space-separated string)
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam numChiefs integer 0 Number of chief replicas (0 or 1)
// @optionalParam numPs integer 0 Number of parameter servers (0: all-reduce training)
// @optionalParam numWorkers integer 1 Number of worker replicas
// @optionalParam numEvaluators integer 0 Number of evaluator replicas (0 or 1)
// @optionalParam numGpus integer 0 GPUs per chief, worker and evaluator replica
// @optionalParam chiefGpus integer null GPUs of the chief (default: numGpus)
// @optionalParam workerGpus integer null GPUs per worker (default: numGpus)
// @optionalParam evaluatorGpus integer null GPUs of the evaluator (default: numGpus)
// @optionalParam psGpus integer 0 GPUs per parameter server (no fallback to numGpus)
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for replicas with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for replicas with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam restartPolicy string OnFailure Replica restart policy: Always, OnFailure, ExitCode or Never
// @optionalParam successPolicy string null Set to AllWorkers to wait for every worker (default: chief or worker 0)
// @optionalParam cleanPodPolicy string null Pods to delete when the job ends: Running, All or None
// @optionalParam backoffLimit integer null Retries before the job is marked failed
// @optionalParam activeDeadlineSeconds integer null Time limit of the job in seconds
// @optionalParam ttlSecondsAfterFinished integer null Seconds after which a finished job is deleted
// @optionalParam cpu string null CPU of each replica, as request and limit (e.g. 4)
// @optionalParam memory string null Memory of each replica, as request and limit (e.g. 16Gi)
// @optionalParam resources object {} Resources of every replica ({requests, limits}); cpu, memory and the GPU limit go on top
// @optionalParam chiefResources object {} Resources of the chief replicas, over resources
// @optionalParam workerResources object {} Resources of the worker replicas, over resources
// @optionalParam evaluatorResources object {} Resources of the evaluator replicas, over resources
// @optionalParam psResources object {} Resources of the ps replicas, over resources
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

local tfJob = import 'kubeflow/tf-training/tf-job.libsonnet';

tfJob.job(params, env)
