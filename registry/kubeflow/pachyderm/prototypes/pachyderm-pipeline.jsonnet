// @apiVersion 0.1
// @name io.ksonnet.pkg.pachyderm-pipeline
// @description A Pachyderm pipeline spec (transform image and command over a PFS input repo and glob) kept in a ConfigMap, key pipeline.json: Pachyderm has no CRD, so create the pipeline with `kubectl get configmap <name> -o jsonpath='{.data.pipeline\.json}' | pachctl create pipeline -f -`. With numGpus > 0 the spec asks for GPUs (resource_limits.gpu of gpuResource), uses gpuImage, gpuNodeSelector and gpuTolerations.
// @shortDescription A Pachyderm pipeline spec (in a ConfigMap), with GPUs.
// @requires Pachyderm and pachctl (the pipeline is created from the ConfigMap with pachctl)
// @param name string Name of the ConfigMap (and of the pipeline unless pipelineName is set)
// @param inputRepo string PFS repo the pipeline reads
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam pipelineName string null Pipeline name (default: name)
// @optionalParam project string null Pachyderm project (default: Pachyderm's default project)
// @optionalParam description string null Description of the pipeline
// @optionalParam image string pachyderm/opencv:1.0 Transform image
// @optionalParam gpuImage string null Transform image when numGpus > 0
// @optionalParam command array ["python3","/edges.py"] Transform command (array, or a space-separated string)
// @optionalParam stdin array [] Lines written to the command's stdin
// @optionalParam envVars object {} Environment variables of the transform (object, or "K=v,K2=v2")
// @optionalParam glob string /* Glob pattern splitting the input into datums
// @optionalParam inputBranch string null Branch of the input repo (default: master)
// @optionalParam parallelism integer 1 Workers processing datums
// @optionalParam datumTries integer null Tries per datum before it fails
// @optionalParam cpu numberOrString null CPUs requested by a worker (e.g. 0.5)
// @optionalParam memory string null Memory request of a worker
// @optionalParam numGpus integer 0 GPUs per worker
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector when numGpus > 0 (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations when numGpus > 0 (default: tolerate the gpuResource NoSchedule taint)

local pipeline = import 'kubeflow/pachyderm/pachyderm-pipeline.libsonnet';

pipeline.all(params, env)
