// @apiVersion 0.1
// @name io.ksonnet.pkg.kueue-cluster-queue
// @description A Kueue ClusterQueue (kueue.x-k8s.io/v1beta2): a team's quota of cpu, memory and GPUs on each ResourceFlavor, in one resource group covering cpu, memory and gpuResource (when a flavor gives GPUs). flavors is a list of {name, cpu, memory, gpus}, with optional borrowingLimit and lendingLimit objects of the same keys; queues of one cohort borrow each other's unused quota. Workloads reach it through a LocalQueue (kueue-local-queue) and their queueName. Cluster-scoped: put it in one environment.
// @shortDescription A Kueue ClusterQueue: a team's cpu, memory and GPU quota per flavor.
// @requires Kueue v0.19 or newer, and the ResourceFlavors its flavors name (kueue-resource-flavor)
// @checkedAgainst Kueue v0.19.2's CRD kueue.x-k8s.io_clusterqueues (v1beta2: cohortName, namespaceSelector, queueingStrategy, resourceGroups, preemption)
// @param name string Name of the ClusterQueue (e.g. the team's name)
// @optionalParam flavors array [{"name":"default-flavor","cpu":"32","memory":"128Gi"}] Quota per flavor: [{"name": "gpu-l4", "cpu": 64, "memory": "256Gi", "gpus": 8, "borrowingLimit": {"gpus": 4}}]
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs the flavors' gpus count
// @optionalParam cohort string null Cohort of ClusterQueues that lend each other unused quota
// @optionalParam namespaceSelector object {} Namespaces whose LocalQueues may use it (matchLabels object or "k=v"; {}: every namespace)
// @optionalParam queueingStrategy string BestEffortFIFO BestEffortFIFO or StrictFIFO
// @optionalParam reclaimWithinCohort string Any Preempt borrowers in the cohort to reclaim quota: Never, LowerPriority or Any
// @optionalParam withinClusterQueue string LowerPriority Preempt within the queue for a higher priority: Never, LowerPriority or LowerOrNewerEqualPriority

local kueue = import 'kubeflow/kueue/kueue.libsonnet';

kueue.clusterQueue(params)
