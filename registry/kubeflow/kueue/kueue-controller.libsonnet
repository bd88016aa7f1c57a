// Kueue's controller from its upstream Helm chart (the chart kf users vendor with
// `kf chart add`), with the manager's Configuration built here so its integrations are a
// param. The chart reads that Configuration as one YAML string,
// managerConfig.controllerManagerConfigYaml (templates/manager/manager-config.yaml); kf
// writes it from the chart v0.19.2's own defaults (values.yaml), with `frameworks` in
// place of its list, which leaves out the training-operator's v1 kinds kf renders.
local util = import 'kubeflow/common/util.libsonnet';

{
  // The chart's default frameworks, then the Kubeflow kinds its default comments out.
  defaultFrameworks:: [
    'batch/job', 'kubeflow.org/mpijob', 'ray.io/rayjob', 'ray.io/rayservice', 'ray.io/raycluster',
    'jobset.x-k8s.io/jobset', 'workload.codeflare.dev/appwrapper', 'trainer.kubeflow.org/trainjob',
    'pod', 'deployment', 'statefulset', 'leaderworkerset.x-k8s.io/leaderworkerset',
    'kubeflow.org/pytorchjob', 'kubeflow.org/tfjob', 'kubeflow.org/xgboostjob',
    'kubeflow.org/paddlejob', 'kubeflow.org/jaxjob',
  ],

  configuration(params):: {
    apiVersion: 'config.kueue.x-k8s.io/v1beta2',
    kind: 'Configuration',
    health: { healthProbeBindAddress: ':8081' },
    metrics: { bindAddress: ':8443' },
    webhook: { port: 9443 },
    leaderElection: { leaderElect: true, resourceName: 'c1f6bfd2.kueue.x-k8s.io' },
    controller: { groupKindConcurrency: {
      'Job.batch': 5,
      Pod: 5,
      'Workload.kueue.x-k8s.io': 10,
      'LocalQueue.kueue.x-k8s.io': 5,
      'ClusterQueue.kueue.x-k8s.io': 5,
      'ResourceFlavor.kueue.x-k8s.io': 1,
    } },
    clientConnection: { qps: 300, burst: 500 },
    integrations: { frameworks: util.toArray(util.get(params, 'frameworks', $.defaultFrameworks), 'frameworks') },
    [if util.toBool(util.get(params, 'manageJobsWithoutQueueName', false), 'manageJobsWithoutQueueName') then 'manageJobsWithoutQueueName']: true,
  },

  // `chartFrom` is the chart's folder relative to `calledFrom`, the component's file.
  controller(params, env, chartFrom, calledFrom)::
    local values = util.get(params, 'values', {});
    if !std.isObject(values) then error 'values: expected an object of chart values'
    else std.native('helmTemplate')(util.get(params, 'name', 'kueue'), chartFrom, {
      calledFrom: calledFrom,
      namespace: util.get(params, 'namespace', 'kueue-system'),
      includeCrds: true,
      values: std.mergePatch(
        { managerConfig: { controllerManagerConfigYaml: std.manifestYamlDoc($.configuration(params), quote_keys=false) } },
        values
      ),
    }),
}
