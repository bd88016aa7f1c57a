// TensorFlow Serving: a Deployment per model version and the Service in
// front of every version of a model, with optional Prometheus metrics,
// Ambassador and Istio routes.
//
// Objects (for name N, versionName V):
//   Deployment N-V      labels {app: N, version: V}; tensorflow_model_server
//   Service N           selects {app: N}: every version of the model
//   ConfigMap N-V-monitoring   TF Serving's --monitoring_config_file (monitoring=true)
//   PodDisruptionBudget N-V    keeps minAvailable replicas serving (minAvailable set)
//   Mapping / VirtualService N  REST routes (ambassadorRoute / istioRoute = true)
local gpu = import 'kubeflow/common/gpu.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';
local kueue = import 'kubeflow/common/kueue.libsonnet';
local replicas = import 'kubeflow/common/replicas.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  metricsPath:: '/monitoring/prometheus/metrics',
  monitoringDir:: '/etc/tfserving',
  modelMount:: '/mnt/models',

  modelName(params):: util.get(params, 'modelName', params.name),
  grpcPort(params):: util.toInt(util.get(params, 'grpcPort', 8500), 'grpcPort'),
  restPort(params):: util.toInt(util.get(params, 'restPort', 8501), 'restPort'),
  monitoring(params):: util.toBool(util.get(params, 'monitoring', false), 'monitoring'),

  // TF Serving's monitoring config (a text protobuf): Prometheus metrics on the REST port.
  monitoringConfig:: 'prometheus_config {\n  enable: true,\n  path: "%s"\n}\n' % $.metricsPath,

  scrapeAnnotations(params):: {
    'prometheus.io/scrape': 'true',
    'prometheus.io/path': $.metricsPath,
    'prometheus.io/port': std.toString($.restPort(params)),
  },

  // The Service of a model: gRPC and REST ports, every version behind it.
  service(params, env)::
    local name = params.name;
    k8s.service(
      name, util.namespace(params, env), util.labels(name), { app: name },
      [k8s.port('grpc-tf-serving', $.grpcPort(params)), k8s.port('http-tf-serving', $.restPort(params))],
      util.get(params, 'serviceType', 'ClusterIP'),
      if $.monitoring(params) then $.scrapeAnnotations(params) else {},
    ),

  // REST routes: /tfserving/models/<model>[:verb] → /v1/models/<model>[:verb].
  routePrefix(params):: '/tfserving/models/' + $.modelName(params),
  routeRewrite(params):: '/v1/models/' + $.modelName(params),

  // trafficRule "v1:90,v2:10" (ksonnet's tf-serving-service format): the weights of the
  // model's versions, by their version label; Istio wants whole numbers summing to 100.
  trafficWeights(params)::
    local rule = util.get(params, 'trafficRule');
    if rule == null then []
    else
      local ws = [
        local kv = std.split(std.stripChars(pair, ' '), ':');
        if std.length(kv) != 2 || kv[0] == '' then error 'trafficRule: "%s" is not version:percent' % pair
        else { subset: kv[0], weight: util.toInt(kv[1], 'trafficRule weight of ' + kv[0]) }
        for pair in std.split(std.toString(rule), ',')
        if std.stripChars(pair, ' ') != ''
      ];
      local total = std.foldl(function(a, w) a + w.weight, ws, 0);
      if total != 100 then error 'trafficRule: the weights add up to %d, not 100 ("%s")' % [total, rule]
      else ws,

  routes(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local host = '%s.%s.svc.cluster.local' % [name, ns];
    local weights = $.trafficWeights(params);
    local istio = util.toBool(util.get(params, 'istioRoute', false), 'istioRoute');
    if weights != [] && !istio then error 'trafficRule: splits traffic with Istio; set istioRoute=true too'
    else
    [
      if util.toBool(util.get(params, 'ambassadorRoute', false), 'ambassadorRoute') then
        k8s.routes.mapping(name, ns, util.labels(name), $.routePrefix(params),
                           '%s.%s:%d' % [name, ns, $.restPort(params)],
                           rewrite=$.routeRewrite(params), timeoutMs=300000),
      if util.toBool(util.get(params, 'istioRoute', false), 'istioRoute') then
        k8s.routes.virtualService(name, ns, util.labels(name), ['*'],
                                  [util.get(params, 'istioGateway', 'kubeflow/kubeflow-gateway')],
                                  $.routePrefix(params), host, $.restPort(params),
                                  rewrite=$.routeRewrite(params), timeout='300s', weights=weights),
      if weights != [] then
        k8s.routes.destinationRule(name, ns, util.labels(name), host, [w.subset for w in weights]),
    ],

  deploymentName(params)::
    local v = util.get(params, 'versionName');
    if v == null then params.name else params.name + '-' + v,

  deployment(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local version = util.get(params, 'versionName');
    local dname = $.deploymentName(params);
    local model = $.modelName(params);
    local store = k8s.storage.mount(util.get(params, 'modelBasePath'), params, 'modelBasePath', $.modelMount, sync=true, versions=true);
    local g = gpu.settings(params);
    local monitoring = $.monitoring(params);
    local labels = util.labels(name, if version == null then {} else { version: version });
    local r = {
      containerName: 'tf-serving',
      image: util.get(params, 'image', 'tensorflow/serving:2.18.0'),
      gpu: g,
      command: ['tensorflow_model_server'],
      args: [
        '--port=%d' % $.grpcPort(params),
        '--rest_api_port=%d' % $.restPort(params),
        '--model_name=' + model,
        '--model_base_path=' + store.path,
      ] + (if monitoring then ['--monitoring_config_file=%s/monitoring_config.txt' % $.monitoringDir] else [])
      + util.toArgs(util.get(params, 'extraArgs')),
      env: store.env + util.envVars(util.envParam(params)),
      ports: [k8s.containerPort('grpc', $.grpcPort(params)), k8s.containerPort('http', $.restPort(params))],
      resources: k8s.resources(util.get(params, 'resources', {})),
      volumeMounts: store.volumeMounts
                    + (if monitoring then [{ name: 'monitoring-config', mountPath: $.monitoringDir, readOnly: true }] else []),
      volumes: store.volumes
               + (if monitoring then [{ name: 'monitoring-config', configMap: { name: dname + '-monitoring' } }] else []),
      serviceAccountName: util.get(params, 'serviceAccountName'),
    };
    local container = replicas.container(r) {
      readinessProbe: {
        httpGet: { path: '/v1/models/' + model, port: 'http' },
        initialDelaySeconds: 5,
        periodSeconds: 10,
      },
    };
    local podSpec = util.prune({
      initContainers: store.initContainers,
      containers: [container] + store.sidecars,
      serviceAccountName: r.serviceAccountName,
      volumes: r.volumes,
    }) + gpu.podSpec(g.count, g.resource, g.nodeSelector, g.tolerations);
    local budget = util.intOrPercent(util.get(params, 'minAvailable'), 'minAvailable');
    [
      if monitoring then k8s.configMap(dname + '-monitoring', ns, labels, { 'monitoring_config.txt': $.monitoringConfig }),
      // Kueue's labels on the Deployment (and so its pods), never in its selector.
      k8s.deployment(dname, ns, labels + kueue.labels(params), podSpec,
                     selector=labels,
                     replicas=util.get(params, 'replicas', 1),
                     podAnnotations=if monitoring then $.scrapeAnnotations(params) else {}),
      // Node drains and cluster upgrades evict at most what leaves minAvailable serving.
      if budget != null then {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: dname, namespace: ns, labels: labels },
        spec: { minAvailable: budget, selector: { matchLabels: labels } },
      },
    ],

  // The tf-serving prototype: Deployment + Service (+ monitoring, routes).
  // createService=false: a further version behind an existing Service.
  all(params, env)::
    local svc = util.toBool(util.get(params, 'createService', true), 'createService');
    util.list($.deployment(params, env) + (if svc then [$.service(params, env)] + $.routes(params, env) else [])),

  // The tf-serving-service prototype: the Service (+ routes) alone.
  serviceOnly(params, env):: util.list([$.service(params, env)] + $.routes(params, env)),
}
