// @apiVersion 0.1
// @name io.ksonnet.pkg.kueue-local-queue
// @description A Kueue LocalQueue (kueue.x-k8s.io/v1beta2) in the environment's namespace, pointing at a ClusterQueue: the queue a team's jobs name with queueName (the kueue.x-k8s.io/queue-name label kf puts on every workload). One component gives every environment its queue, in its own namespace.
// @shortDescription A Kueue LocalQueue in each environment's namespace.
// @requires Kueue v0.19 or newer, and the ClusterQueue it names (kueue-cluster-queue)
// @checkedAgainst Kueue v0.19.2's CRD kueue.x-k8s.io_localqueues (v1beta2: clusterQueue)
// @param name string Name of the LocalQueue (what workloads set as queueName)
// @param clusterQueue string The ClusterQueue whose quota it uses
// @optionalParam namespace string null Namespace (default: the environment's namespace)

local kueue = import 'kubeflow/kueue/kueue.libsonnet';

kueue.localQueue(params, env)
