// Kueue's queueing objects (kueue.x-k8s.io/v1beta2, the version Kueue v0.19 stores;
// v1beta1 is deprecated there): field names as its CRDs in config/components/crd.
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  apiVersion:: 'kueue.x-k8s.io/v1beta2',

  // A GPU node pool or any other set of nodes. Kueue adds nodeLabels to the node
  // selector of the pods it admits to this flavor, and tolerations to their
  // tolerations; a workload is admitted to a flavor with nodeTaints only if it tolerates
  // them (kf's GPU replicas tolerate the GPU resource's NoSchedule taint by default).
  resourceFlavor(params):: {
    apiVersion: $.apiVersion,
    kind: 'ResourceFlavor',
    metadata: k8s.metadata(params.name, null, util.labels(params.name)),
    spec: util.prune({
      nodeLabels: util.kvObject(util.get(params, 'nodeLabels'), 'nodeLabels'),
      nodeTaints: util.get(params, 'nodeTaints'),
      tolerations: util.get(params, 'tolerations'),
    }),
  },

  // One flavor's quota: {name, cpu, memory, gpus, borrowingLimit: {...}, lendingLimit: {...}}
  // with cpu, memory and gpus as quantities; the limits take the same keys.
  flavorQuota(f, gpuResource, covered)::
    local keyOf = { cpu: 'cpu', memory: 'memory', [gpuResource]: 'gpus' };
    local q(v, what) = if util.isNone(v) then '0' else std.toString(v);
    local limit(which, r) =
      local l = util.get(f, which, {});
      if !std.isObject(l) then error 'flavors: %s of flavor %s: expected an object like {"gpus": 4}' % [which, f.name]
      else util.get(l, keyOf[r]);
    if !std.isObject(f) || util.isNone(util.get(f, 'name')) then
      error 'flavors: each entry is an object with a name, e.g. {"name": "gpu-l4", "cpu": 64, "memory": "256Gi", "gpus": 8}'
    else {
      name: f.name,
      resources: [
        util.prune({
          name: r,
          nominalQuota: q(util.get(f, keyOf[r]), r),
          borrowingLimit: util.toStringOrNull(limit('borrowingLimit', r)),
          lendingLimit: util.toStringOrNull(limit('lendingLimit', r)),
        })
        for r in covered
      ],
    },

  clusterQueue(params)::
    local gpuResource = util.get(params, 'gpuResource', 'nvidia.com/gpu');
    local flavors = util.toArray(util.get(params, 'flavors'), 'flavors');
    local covered = ['cpu', 'memory'] + (if std.length([f for f in flavors if std.isObject(f) && !util.isNone(util.get(f, 'gpus'))]) > 0 then [gpuResource] else []);
    if flavors == [] then error 'flavors: at least one flavor and its quota, e.g. [{"name": "default-flavor", "cpu": 32, "memory": "128Gi"}]'
    else {
      apiVersion: $.apiVersion,
      kind: 'ClusterQueue',
      metadata: k8s.metadata(params.name, null, util.labels(params.name)),
      spec: util.prune({
        cohortName: util.get(params, 'cohort'),
        queueingStrategy: util.oneOf(util.get(params, 'queueingStrategy', 'BestEffortFIFO'), ['BestEffortFIFO', 'StrictFIFO'], 'queueingStrategy'),
        resourceGroups: [{
          coveredResources: covered,
          flavors: [$.flavorQuota(f, gpuResource, covered) for f in flavors],
        }],
        preemption: util.prune({
          reclaimWithinCohort: util.oneOf(util.get(params, 'reclaimWithinCohort', 'Any'), ['Never', 'LowerPriority', 'Any'], 'reclaimWithinCohort'),
          withinClusterQueue: util.oneOf(util.get(params, 'withinClusterQueue', 'LowerPriority'), ['Never', 'LowerPriority', 'LowerOrNewerEqualPriority'], 'withinClusterQueue'),
        }),
      }) + {
        // {} admits workloads from every namespace (left out, Kueue admits from none);
        // matchLabels limit it.
        namespaceSelector: $.namespaceSelector(util.get(params, 'namespaceSelector', {})),
      },
    },

  namespaceSelector(v)::
    local o = util.kvObject(v, 'namespaceSelector');
    if o == {} || std.objectHas(o, 'matchLabels') || std.objectHas(o, 'matchExpressions') then o
    else { matchLabels: o },

  localQueue(params, env):: {
    apiVersion: $.apiVersion,
    kind: 'LocalQueue',
    metadata: k8s.metadata(params.name, util.namespace(params, env), util.labels(params.name)),
    spec: { clusterQueue: params.clusterQueue },
  },

  workloadPriorityClass(params):: {
    apiVersion: $.apiVersion,
    kind: 'WorkloadPriorityClass',
    metadata: k8s.metadata(params.name, null, util.labels(params.name)),
    value: util.toInt(util.get(params, 'value', 0), 'value'),
    [if !util.isNone(util.get(params, 'description')) then 'description']: params.description,
  },
}
