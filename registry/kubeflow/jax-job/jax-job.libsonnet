// JAXJob (kubeflow.org/v1) for the training-operator (v1.9+): Workers
// only; worker 0 acts as the JAX coordinator. workerGpus falls back to numGpus.
local jobs = import 'kubeflow/common/jobs.libsonnet';

{
  containerName:: 'jax',

  replicaTypes(params):: {
    Worker: jobs.replica(params, $.containerName, jobs.count(params, 'numWorkers', 1), 'worker'),
  },

  job(params, env)::
    jobs.withExample(params, env, importstr 'kubeflow/jax-job/example/train.py',
                     jobs.job(params, env, 'kubeflow.org/v1', 'JAXJob', 'jaxReplicaSpecs', $.replicaTypes(params))),
}
