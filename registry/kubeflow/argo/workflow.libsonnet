// An Argo Workflow (argoproj.io/v1alpha1) that trains a model, then serves
// it: step "train" runs trainImage (with trainGpus, falling back to numGpus),
// writing to modelDir; step "serve" either applies a KServe InferenceService
// for modelDir (serveKind kserve), runs serveImage (container) or is left out
// (none). With no modelDir the component makes a PVC <name>-model for it; with
// no train command, image or args of the user's, the train step runs kf's
// example (example/train.py), which exports a model the serve step loads.
local gpu = import 'kubeflow/common/gpu.libsonnet';
local jobs = import 'kubeflow/common/jobs.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';
local kueue = import 'kubeflow/common/kueue.libsonnet';
local replicas = import 'kubeflow/common/replicas.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  serveKinds:: ['kserve', 'container', 'none'],

  // The stock image kf's example train program is written for.
  stockTrainImage:: 'tensorflow/tensorflow:2.18.0',

  // The train step's command. kf's example command belongs to kf's stock image: with an
  // image or args of the user's, the image's own entrypoint runs (jobs.exampleCommand).
  trainCommand(params)::
    jobs.exampleCommand(util.get(params, 'trainCommand'),
                        !util.isNone(util.get(params, 'trainArgs'))
                        || util.get(params, 'trainImage', $.stockTrainImage) != $.stockTrainImage),

  runsExample(params):: jobs.namesExample($.trainCommand(params), util.get(params, 'trainArgs')),

  // Where the model goes: modelDir, or (none given) the PVC the component makes.
  modelPvc(params):: params.name + '-model',
  modelDir(params)::
    local dir = util.get(params, 'modelDir');
    if util.isNone(dir) then 'pvc://%s/model' % $.modelPvc(params) else dir,

  // A container template: GPU limit, image switch, node selector and
  // tolerations from the GPU settings `g`; env/volumes from `store`.
  containerTemplate(name, r, g, store)::
    util.prune({
      name: name,
      container: replicas.container(r {
        gpu: g,
        containerName: 'main',
        env: store.env + util.envVars(util.get(r, 'env')),
        volumeMounts: store.volumeMounts,
      }),
    } + gpu.podSpec(g.count, g.resource, g.nodeSelector, g.tolerations, g.what)),

  // KServe's tensorflow runtime runs tensorflow/serving:<runtimeVersion>, a CPU image
  // unless the tag says -gpu (kserve config/runtimes/kserve-tensorflow-serving.yaml);
  // other formats' runtimes pick their GPU build themselves.
  gpuRuntime(params)::
    local v = util.get(params, 'serveGpuRuntimeVersion',
                       if util.get(params, 'serveFramework', 'tensorflow') == 'tensorflow' then '2.6.2-gpu' else null);
    if util.isNone(v) then {} else { runtimeVersion: std.toString(v) },

  // What the serve step's ServiceAccount needs to apply the InferenceService and read
  // its status for the success and failure conditions (Argo runs kubectl apply and get).
  serveRules:: [
    { apiGroups: ['serving.kserve.io'], resources: ['inferenceservices'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'update'] },
  ],

  // A Role and RoleBinding giving the workflow's ServiceAccount serveRules.
  serveRBAC(params, env)::
    local name = params.name + '-serve';
    local ns = util.namespace(params, env);
    local sa = util.get(params, 'serviceAccountName', 'argo-workflow');
    local labels = util.labels(params.name);
    [
      k8s.role(name, ns, labels, $.serveRules),
      k8s.roleBinding(name, ns, labels, name, sa),
    ],

  // The InferenceService the kserve serve step applies.
  inferenceService(params, env, g)::
    local name = util.get(params, 'serveName', params.name);
    {
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      metadata: { name: name, namespace: util.namespace(params, env) },
      spec: { predictor: {
        model: {
          modelFormat: { name: util.get(params, 'serveFramework', 'tensorflow') },
          storageUri: $.modelDir(params),
        } + (if g.count == 0 then {} else {
               resources: gpu.resources(g.count, g.resource, {}, g.what),
             } + $.gpuRuntime(params)),
      } + gpu.podSpec(g.count, g.resource, g.nodeSelector, g.tolerations, g.what)
        // The served model's pods join the same queue (KServe puts predictor labels on them).
        + (if kueue.labels(params) == {} then {} else { labels: kueue.labels(params) }) },
    },

  workflow(params, env)::
    local name = params.name;
    local modelDir = $.modelDir(params);
    local store = k8s.storage.mount(modelDir, params, 'modelDir', '/mnt/model', readOnly=false);
    local example = $.runsExample(params);
    local train = gpu.settings(params, 'train');
    local serveG = gpu.settings(params, 'serve');
    local serve = serveG { image: util.get(params, 'serveGpuImage') };
    local kind = util.oneOf(util.get(params, 'serveKind', 'kserve'), $.serveKinds, 'serveKind');
    local modelEnv = { env: store.env + [{ name: 'MODEL_DIR', value: store.path }], volumeMounts: store.volumeMounts };
    local exampleMount = if example then [jobs.exampleMount] else [];
    local trainT = $.containerTemplate('train', {
      image: util.get(params, 'trainImage', $.stockTrainImage),
      command: $.trainCommand(params),
      args: util.get(params, 'trainArgs'),
      env: util.envVars(util.envParam(params)),
      resources: k8s.resources(util.get(params, 'trainResources', {})),
    }, train, modelEnv { volumeMounts+: exampleMount })
                 // The train step's pod carries Kueue's labels (Argo's template metadata),
                 // for Kueue's pod integration to queue it.
                 + (if kueue.labels(params) == {} then {} else { metadata: { labels: kueue.labels(params) } });
    local serveT =
      if kind == 'none' then null
      else if kind == 'container' then
        if util.isNone(util.get(params, 'serveImage')) then error 'serveImage: required when serveKind is container'
        else $.containerTemplate('serve', {
          image: params.serveImage,
          command: util.get(params, 'serveCommand'),
          args: util.get(params, 'serveArgs'),
          env: util.envVars(util.envParam(params)),
        }, serve, modelEnv)
      else {
        name: 'serve',
        resource: {
          action: 'apply',
          manifest: std.manifestYamlDoc($.inferenceService(params, env, serveG), quote_keys=false) + '\n',
          successCondition: 'status.modelStatus.states.activeModelState == Loaded',
          failureCondition: 'status.modelStatus.states.activeModelState == FailedToLoad',
        },
      };
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Workflow',
      metadata: k8s.metadata(name, util.namespace(params, env), util.labels(name)),
      spec: util.prune({
        entrypoint: 'train-and-serve',
        serviceAccountName: util.get(params, 'serviceAccountName', 'argo-workflow'),
        activeDeadlineSeconds: util.optInt(util.get(params, 'activeDeadlineSeconds'), 'activeDeadlineSeconds'),
        ttlStrategy: if util.isNone(util.get(params, 'ttlSecondsAfterFinished')) then null
        else { secondsAfterCompletion: util.optInt(params.ttlSecondsAfterFinished, 'ttlSecondsAfterFinished') },
        volumes: store.volumes + (if example then [jobs.exampleVolume(params)] else []),
        templates: [
          {
            name: 'train-and-serve',
            steps: [[{ name: 'train', template: 'train' }]]
                   + (if serveT == null then [] else [[{ name: 'serve', template: 'serve' }]]),
          },
          trainT,
        ] + (if serveT == null then [] else [serveT]),
      }),
    },

  // The argo-workflow prototype: the Workflow; for a kserve serve step, the RBAC its
  // ServiceAccount needs (createServeRole=false when the account has it already); the
  // model's PVC when no modelDir is given; kf's example in a ConfigMap when it runs.
  all(params, env)::
    local ns = util.namespace(params, env);
    local labels = util.labels(params.name);
    local kserve = util.get(params, 'serveKind', 'kserve') == 'kserve';
    local rbac = kserve && util.toBool(util.get(params, 'createServeRole', true), 'createServeRole');
    local pvc = if !util.isNone(util.get(params, 'modelDir')) then []
    else [k8s.pvc($.modelPvc(params), ns, labels, std.toString(util.get(params, 'modelPvcSize', '1Gi')),
                  util.get(params, 'modelStorageClass'))];
    local example = if !$.runsExample(params) then []
    else [jobs.exampleConfigMap(params, env, importstr 'kubeflow/argo/example/train.py')];
    util.list(example + pvc + [$.workflow(params, env)] + (if rbac then $.serveRBAC(params, env) else [])),
}
