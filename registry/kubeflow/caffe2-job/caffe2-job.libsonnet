// Caffe2Job (kubeflow.org/v1alpha1) of the archived caffe2-operator: one
// replica spec of numReplicas pods. The Go type's spec fields Backend and
// RuntimeID carry no JSON tags, so their JSON names are capitalised.
local jobs = import 'kubeflow/common/jobs.libsonnet';
local replicas = import 'kubeflow/common/replicas.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'caffe2',

  job(params, env)::
    local n = jobs.count(params, 'numReplicas', 1);
    if n == 0 then error 'numReplicas: must be at least 1'
    else jobs.resource(params, env, 'kubeflow.org/v1alpha1', 'Caffe2Job', {
      Backend: util.oneOf(util.get(params, 'backend'), ['none', 'redis', 'nfs'], 'backend'),
      replicaSpecs: {
        replicas: n,
        template: {
          spec: replicas.podSpec(jobs.replica(params, $.containerName, n, null, {
            podRestartPolicy: util.oneOf(util.get(params, 'restartPolicy', 'Never'), ['OnFailure', 'Never'], 'restartPolicy'),
          })),
        },
      },
    }),
}
