// @apiVersion 0.1
// @name io.ksonnet.pkg.kueue-resource-flavor
// @description A Kueue ResourceFlavor (kueue.x-k8s.io/v1beta2): a set of nodes a ClusterQueue gives quota on, such as a GPU node pool. Kueue adds nodeLabels to the node selector of the pods it admits to the flavor, and tolerations to their tolerations; a workload is admitted to a flavor with nodeTaints only when it tolerates them. For a GPU pool, use the node label your environments' gpuNodeSelector names (e.g. cloud.google.com/gke-accelerator=nvidia-l4) and the GPU taint kf's GPU replicas tolerate (nvidia.com/gpu, NoSchedule). Cluster-scoped: put it in one environment.
// @shortDescription A Kueue ResourceFlavor: a node pool (GPUs) that queues give quota on.
// @requires Kueue v0.19 or newer (the kueue package's chart, or the helm-chart prototype on Kueue's chart)
// @checkedAgainst Kueue v0.19.2's CRD kueue.x-k8s.io_resourceflavors (v1beta2: nodeLabels, nodeTaints, tolerations)
// @param name string Name of the flavor (e.g. gpu-l4; default-flavor for a pool of any node)
// @optionalParam nodeLabels object {} Labels of the flavor's nodes (object or "k=v,k2=v2"), added to the admitted pods' node selector
// @optionalParam nodeTaints array null Taints the flavor's nodes carry ([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]); only workloads that tolerate them are admitted to it
// @optionalParam tolerations array null Tolerations added to the pods admitted to the flavor

local kueue = import 'kubeflow/kueue/kueue.libsonnet';

kueue.resourceFlavor(params)
