// Pod templates and replica specs shared by every job and server prototype.
//
// A replica description `r` is an object with (all optional except image):
//   containerName  the container name the operator expects (tensorflow, pytorch, ...)
//   image          the CPU image; gpu.image picks r.gpu.image when GPUs > 0
//   command, args  array or space-separated string
//   env            object or "K=v,K2=v2"
//   ports          [{name, containerPort}]
//   resources      base resources object (limits/requests)
//   gpu            gpu.settings(params, prefix)
//   volumes, volumeMounts  arrays passed through
//   workingDir, serviceAccountName, imagePullSecrets, priorityClassName, schedulerName,
//   restartPolicy, replicas
local gpu = import 'kubeflow/common/gpu.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  container(r):: util.prune({
    local g = util.get(r, 'gpu', { count: 0, resource: gpu.defaultResource, image: null }),
    name: util.get(r, 'containerName', 'main'),
    image: gpu.image(g.count, r.image, g.image),
    command: util.toArgs(util.get(r, 'command')),
    args: util.toArgs(util.get(r, 'args')),
    workingDir: util.get(r, 'workingDir'),
    env: util.envVars(util.get(r, 'env')),
    ports: util.get(r, 'ports', []),
    resources: gpu.resources(g.count, g.resource, util.get(r, 'resources', {})),
    volumeMounts: util.get(r, 'volumeMounts', []),
  }),

  podSpec(r)::
    local g = util.get(r, 'gpu', { count: 0 });
    util.prune({
      containers: [$.container(r)],
      restartPolicy: util.get(r, 'podRestartPolicy'),
      serviceAccountName: util.get(r, 'serviceAccountName'),
      imagePullSecrets: [{ name: s } for s in util.toArray(util.get(r, 'imagePullSecrets'))],
      priorityClassName: util.get(r, 'priorityClassName'),
      schedulerName: util.get(r, 'schedulerName'),
      volumes: util.get(r, 'volumes', []),
    }) + (
      if g.count == 0 then {}
      else gpu.podSpec(g.count, g.resource, g.nodeSelector, g.tolerations)
    ),

  // A Kubeflow operator replica spec: {replicas, restartPolicy, template}.
  spec(r):: util.prune({
    replicas: util.toInt(util.get(r, 'replicas', 1), 'replicas'),
    restartPolicy: util.get(r, 'restartPolicy'),
    template: {
      metadata: { labels: util.get(r, 'labels', {}) },
      spec: $.podSpec(r),
    } + (if util.get(r, 'labels', {}) == {} then { metadata:: null } else {}),
  }),

  // Replica specs for every replica type with a positive count, keyed by type.
  specs(types):: {
    [t]: $.spec(types[t])
    for t in std.objectFields(types)
    if util.toInt(util.get(types[t], 'replicas', 0), t + ' replicas') > 0
  },
}
