// @apiVersion 0.1
// @name io.ksonnet.pkg.pytorch-job
// @description A PyTorch training job (kubeflow.org/v1 PyTorchJob) run by the Kubeflow training-operator: one Master and numWorkers Workers, or with elastic=true Workers only, scaled between minReplicas and maxReplicas through torchrun rendezvous. masterGpus and workerGpus fall back to numGpus; replicas with GPUs get the gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations.
// @shortDescription A distributed PyTorch training job (PyTorchJob) with GPUs, optionally elastic.
// @nameRule dns1035 training-operator v1.9's PyTorchJob webhook (pkg/webhooks/pytorch/pytorchjob_webhook.go, NameIsDNS1035Label)
// @requires The training-operator prototype v1.9 with pytorchjob in its schemes
// @checkedAgainst Kubeflow training-operator v1.9.2: container `pytorch` (pkg/apis/kubeflow.org/v1/pytorch_types.go); torchrun's PET_* settings it gives each pod (pkg/controller.v1/pytorch/envvar.go), which kf's example runs under
// @param name string Name of the PyTorchJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime Image of replicas without GPUs
// @optionalParam gpuImage string null Image of replicas with GPUs (null: use image)
// @optionalParam command array ["python","-m","torch.distributed.run","/opt/kf-example/train.py"] Container command (array, or a space-separated string); the default runs kf's example under torchrun, mounted from a ConfigMap: a small model trained with DistributedDataParallel on random data, which finishes in seconds
// @optionalParam args array null Container args (array, or a space-separated string)
// @optionalParam envVars object {} Environment variables (object, or "K=v,K2=v2")
// @optionalParam numMasters integer 1 Number of masters: 1 (0 is refused unless elastic: without a Master the operator gives the workers no MASTER_ADDR; ignored when elastic)
// @optionalParam numWorkers integer 1 Number of worker replicas
// @optionalParam numGpus integer 0 GPUs per replica
// @optionalParam masterGpus integer null GPUs of the master (default: numGpus)
// @optionalParam workerGpus integer null GPUs per worker (default: numGpus)
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for replicas with GPUs (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for replicas with GPUs (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam nProcPerNode numberOrString null Processes per pod: auto, cpu, gpu or a number (spec.nprocPerNode; null: the replicas' GPUs, or 1 without GPUs, as Trainer v2.3 sets it)
// @optionalParam elastic boolean false Elastic training (workers only, spec.elasticPolicy)
// @optionalParam minReplicas integer null Elastic: fewest workers (default: numWorkers)
// @optionalParam maxReplicas integer null Elastic: most workers (default: numWorkers)
// @optionalParam maxRestarts integer null Elastic: torchrun restarts before the job fails
// @optionalParam rdzvBackend string c10d Elastic: rendezvous backend (c10d, etcd or etcd-v2)
// @optionalParam rdzvPort integer null Elastic: rendezvous port
// @optionalParam rdzvHost string null Elastic: rendezvous host
// @optionalParam rdzvId string null Elastic: rendezvous id
// @optionalParam rdzvConf object {} Elastic: extra rendezvous settings (object or "k=v,k2=v2")
// @optionalParam restartPolicy string OnFailure Replica restart policy: Always, OnFailure, ExitCode or Never
// @optionalParam cleanPodPolicy string null Pods to delete when the job ends: Running, All or None
// @optionalParam backoffLimit integer null Retries before the job is marked failed
// @optionalParam activeDeadlineSeconds integer null Time limit of the job in seconds
// @optionalParam ttlSecondsAfterFinished integer null Seconds after which a finished job is deleted
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
// @optionalParam gangScheduler string null Gang scheduler: volcano, or the name of a scheduler-plugins coscheduling scheduler; sets runPolicy.schedulingPolicy and the pods' schedulerName (the operator must run with that gang scheduler)
// @optionalParam gangMinAvailable integer null Gang: pods that must start together (default: every pod of the job)
// @optionalParam gangQueue string null Gang: the volcano queue of the PodGroup
// @optionalParam gangPriorityClass string null Gang: PriorityClass of the PodGroup
// @optionalParam gangScheduleTimeoutSeconds integer null Gang: seconds the scheduler waits for the whole gang
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the job)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the job)

local pytorchJob = import 'kubeflow/pytorch-job/pytorch-job.libsonnet';

pytorchJob.job(params, env)
