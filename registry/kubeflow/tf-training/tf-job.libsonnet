// TFJob (kubeflow.org/v1) for the training-operator.
//
// Parameter-server style: Chief (0|1), PS, Worker, Evaluator (0|1).
// All-reduce style (MultiWorkerMirroredStrategy, Horovod): numPs 0 — the
// workers (and an optional chief) talk to each other directly.
//
// GPUs per replica type: chiefGpus, workerGpus, evaluatorGpus fall back to
// numGpus; psGpus does NOT (it defaults to 0), because parameter servers only
// hold and update variables — give them GPUs explicitly with psGpus.
local jobs = import 'kubeflow/common/jobs.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  containerName:: 'tensorflow',

  // Replica descriptions keyed by TFJob replica type.
  replicaTypes(params):: {
    local r(count, prefix) = jobs.replica(params, $.containerName, count, prefix),
    Chief: r(jobs.zeroOrOne(params, 'numChiefs'), 'chief'),
    PS: r(jobs.count(params, 'numPs'), 'ps'),
    Worker: r(jobs.count(params, 'numWorkers', 1), 'worker'),
    Evaluator: r(jobs.zeroOrOne(params, 'numEvaluators'), 'evaluator'),
  },

  job(params, env)::
    if jobs.runsExample(params) && jobs.count(params, 'numPs') > 0 then
      error 'numPs: kf\'s example (%s) trains with all-reduce; set numPs to 0, or give a command that runs a ParameterServerStrategy program' % jobs.example.script
    else jobs.withExample(params, env, importstr 'kubeflow/tf-training/example/train.py',
                          jobs.job(params, env, 'kubeflow.org/v1', 'TFJob', 'tfReplicaSpecs', $.replicaTypes(params), {
                            successPolicy: util.oneOf(util.get(params, 'successPolicy'), ['AllWorkers'], 'successPolicy'),
                          })),
}
