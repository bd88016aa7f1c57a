// @apiVersion 0.1
// @name io.ksonnet.pkg.kueue-priority-class
// @description A Kueue WorkloadPriorityClass (kueue.x-k8s.io/v1beta2): the priority Kueue queues and preempts a workload by, named by the workloadPriorityClass param of kf's workloads (the kueue.x-k8s.io/priority-class label). Unlike a PriorityClass (priorityClassName), it orders workloads in the queue without changing the pods' own priority. Cluster-scoped: put it in one environment.
// @shortDescription A Kueue WorkloadPriorityClass for workloadPriorityClass.
// @requires Kueue v0.19 or newer
// @checkedAgainst Kueue v0.19.2's CRD kueue.x-k8s.io_workloadpriorityclasses (v1beta2: value, description)
// @param name string Name workloads give as workloadPriorityClass
// @optionalParam value integer 1000 Priority: higher values are admitted first and may preempt lower ones
// @optionalParam description string null What the priority is for

local kueue = import 'kubeflow/kueue/kueue.libsonnet';

kueue.workloadPriorityClass(params)
