// @apiVersion 0.1
// @name io.ksonnet.pkg.train-job
// @description A Kubeflow Trainer v2 TrainJob (trainer.kubeflow.org/v1alpha1) that runs a training runtime (runtimeRef, e.g. the torch-distributed ClusterTrainingRuntime) with your image, command, args, env, numNodes and numProcPerNode. numGpus becomes the GPU limit in trainer.resourcesPerNode (and switches in gpuImage); cpu and memory join resourcesPerNode. gpuNodeSelector and gpuTolerations, and the job basics the trainer section has no field for (pvcName, shmSize, serviceAccountName, imagePullSecrets), go to a runtimePatches entry (manager kf.dev/kf) for the runtime's trainer job (targetJob) and its container node.
// @shortDescription A Kubeflow Trainer v2 TrainJob with GPUs.
// @nameRule dns1035 Trainer v2.3's TrainJob CRD (its CEL rules on metadata.name)
// @requires Kubeflow Trainer v2.3: the trainer-controller prototype (its controller and the trainer.kubeflow.org CRDs)
// @requires JobSet v0.12.0: the jobset prototype (the jobset package)
// @requires The runtime named by runtimeRef (the training-runtimes prototype installs the standard ones)
// @checkedAgainst Kubeflow Trainer v2.3.0: the trainer container `node` of its runtimes (manifests/base/runtimes), the PET_* settings of its torch plugin (pkg/runtime/framework/plugins/torch/torch.go) and the TrainJob schema (trainer.kubeflow.org_trainjobs.yaml)
// @param name string Name of the TrainJob
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam runtimeRef string torch-distributed Name of the training runtime to run
// @optionalParam runtimeKind string ClusterTrainingRuntime ClusterTrainingRuntime or TrainingRuntime (same namespace)
// @optionalParam image string null Trainer image (default: the runtime's)
// @optionalParam gpuImage string null Trainer image when numGpus > 0 (default: image)
// @optionalParam command array ["torchrun","/opt/kf-example/train.py"] Trainer command (array, or a space-separated string); the default, with the torch-distributed runtime and its image, runs kf's pytorch-job example under torchrun, mounted from a ConfigMap: a small model trained with DistributedDataParallel across every node and process on random data, in seconds
// @optionalParam args array null Trainer args (array, or a space-separated string)
// @optionalParam envVars object {} Trainer environment variables (object, or "K=v,K2=v2")
// @optionalParam numNodes integer null Number of training nodes (default: the runtime's)
// @optionalParam numProcPerNode integer null Processes per node, a whole number (default: the runtime's; torch starts one per GPU, or per CPU)
// @optionalParam resourcesPerNode object {} Resources of each node ({limits, requests}); the GPU limit is added
// @optionalParam numGpus integer 0 GPUs per training node
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector for the training nodes when numGpus > 0 (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations for the training nodes when numGpus > 0 (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam targetJob string node Job of the runtime's JobSet that the GPU placement and the pod params below apply to
// @optionalParam cpu string null CPU of each node, as request and limit (e.g. 4)
// @optionalParam memory string null Memory of each node, as request and limit (e.g. 16Gi)
// @optionalParam pvcName string null A PVC mounted in the trainer container for data and checkpoints
// @optionalParam pvcMountPath string /mnt/data Where pvcName is mounted
// @optionalParam shmSize string null Size of /dev/shm as a memory emptyDir (e.g. 8Gi; NCCL and DataLoader workers need more than 64Mi)
// @optionalParam serviceAccountName string null Service account of the training pods
// @optionalParam imagePullSecrets array null Secrets for pulling private images (JSON array, or names separated by spaces)
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the TrainJob)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the TrainJob)

local trainJob = import 'kubeflow/trainer/train-job.libsonnet';

trainJob.trainJob(params, env)
