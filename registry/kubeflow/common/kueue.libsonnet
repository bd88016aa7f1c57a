// Kueue's labels on a workload, from two params every workload prototype takes:
//   queueName              → kueue.x-k8s.io/queue-name    (the team's LocalQueue)
//   workloadPriorityClass  → kueue.x-k8s.io/priority-class (a WorkloadPriorityClass)
// (Kueue v0.19, pkg/controller/constants/constants.go). They go on the object Kueue's
// integration for the kind reads them from (pkg/controller/jobs/*): the job itself for
// the Kubeflow jobs, MPIJob, TrainJob and batch Jobs; a Deployment's metadata, whose
// webhook copies them to its pods (deployment_webhook.go); a pod's own labels where
// Kueue admits plain pods (KServe predictors, Argo steps). Kueue suspends what it
// admits itself, through its webhooks: nothing is rendered suspended.
local util = import 'kubeflow/common/util.libsonnet';

{
  labels(params)::
    local queue = util.get(params, 'queueName');
    local priority = util.get(params, 'workloadPriorityClass');
    (if util.isNone(queue) then {} else { 'kueue.x-k8s.io/queue-name': std.toString(queue) })
    + (if util.isNone(priority) then {} else { 'kueue.x-k8s.io/priority-class': std.toString(priority) }),
}
