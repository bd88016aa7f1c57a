// A Pachyderm pipeline spec, rendered into a ConfigMap (Pachyderm has no
// CRD: pipelines are created through pachctl or its API). The ConfigMap key
// pipeline.json is the spec `pachctl create pipeline -f` takes.
local gpu = import 'kubeflow/common/gpu.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  // Kubernetes toleration → Pachyderm's (proto enum names).
  operators:: { Exists: 'EXISTS', Equal: 'EQUAL' },
  effects:: { NoSchedule: 'NO_SCHEDULE', PreferNoSchedule: 'PREFER_NO_SCHEDULE', NoExecute: 'NO_EXECUTE' },
  toleration(t):: util.prune({
    key: util.get(t, 'key'),
    operator: if util.isNone(util.get(t, 'operator')) then 'EQUAL'
    else if std.objectHas($.operators, t.operator) then $.operators[t.operator]
    else t.operator,
    value: util.get(t, 'value'),
    effect: if util.isNone(util.get(t, 'effect')) then null
    else if std.objectHas($.effects, t.effect) then $.effects[t.effect]
    else t.effect,
    toleration_seconds: util.get(t, 'tolerationSeconds'),
  }),

  // Pachyderm takes CPUs as a number (0.5, not "500m").
  cpu(v)::
    if util.isNone(v) then null
    else if std.isNumber(v) then v
    else
      local s = std.stripChars(std.toString(v), ' ');
      if std.length(s) > 0 && std.all([std.member('0123456789.', c) for c in std.stringChars(s)]) then std.parseJson(if std.startsWith(s, '.') then '0' + s else s)
      else error 'cpu: "%s" is not a number of CPUs (e.g. 0.5)' % v,

  spec(params)::
    local g = gpu.settings(params);
    local project = util.get(params, 'project');
    local selector = gpu.nodeSelector(g.count, g.nodeSelector, g.what);
    local tolerations = gpu.tolerations(g.count, g.resource, g.tolerations, g.what);
    util.prune({
      pipeline: util.prune({
        name: util.get(params, 'pipelineName', params.name),
        project: if util.isNone(project) then null else { name: project },
      }),
      description: util.get(params, 'description'),
      transform: util.prune({
        image: gpu.image(g.count, util.get(params, 'image', 'pachyderm/opencv:1.0'), g.image, g.what),
        cmd: util.toArgs(util.get(params, 'command')),
        stdin: k8s.asArray(util.get(params, 'stdin'), 'stdin'),
        env: k8s.asObject(util.envParam(params), 'envVars'),
      }),
      input: {
        pfs: util.prune({
          repo: if util.isNone(util.get(params, 'inputRepo')) then error 'inputRepo: required (the PFS repo the pipeline reads)' else params.inputRepo,
          glob: util.get(params, 'glob', '/*'),
          branch: util.get(params, 'inputBranch'),
        }),
      },
      parallelism_spec: { constant: util.toInt(util.get(params, 'parallelism', 1), 'parallelism') },
      datum_tries: util.optInt(util.get(params, 'datumTries'), 'datumTries'),
      resource_requests: util.prune({
        cpu: $.cpu(util.get(params, 'cpu')),
        memory: util.get(params, 'memory'),
      }),
      resource_limits: if g.count == 0 then null else { gpu: { type: g.resource, number: g.count } },
      scheduling_spec: if selector == {} then null else { node_selector: selector },
      tolerations: [$.toleration(t) for t in tolerations],
    }),

  all(params, env)::
    local name = params.name;
    k8s.configMap(name, util.namespace(params, env), util.labels(name, { 'kf.io/kind': 'pachyderm-pipeline' }), {
      'pipeline.json': std.manifestJsonEx($.spec(params), '  ') + '\n',
    }),
}
