// A Seldon Core v1 SeldonDeployment (machinelearning.seldon.io/v1) with one
// predictor whose graph is a single MODEL node: either a prepackaged model
// server (implementation + modelUri) or your own model image.
local gpu = import 'kubeflow/common/gpu.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';
local kueue = import 'kubeflow/common/kueue.libsonnet';
local replicas = import 'kubeflow/common/replicas.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  implementations:: ['SKLEARN_SERVER', 'XGBOOST_SERVER', 'TENSORFLOW_SERVER', 'MLFLOW_SERVER',
                     'TRITON_SERVER', 'HUGGINGFACE_SERVER', 'TEMPO_SERVER'],
  protocols:: ['seldon', 'v2', 'kfserving', 'tensorflow'],

  // The container that runs a prepackaged server's model. For TENSORFLOW_SERVER under any
  // protocol but `tensorflow`, Seldon re-images the container named like the graph node as
  // its tfserving-proxy and runs TensorFlow Serving in a second container, `tfserving`,
  // taking that one's image, resources and env when componentSpecs has it
  // (operator/controllers/seldondeployment_prepackaged_servers.go, addTFServerContainer;
  // constants.TFServingContainerName, v1.17.1). Every other server runs in the node's.
  serverContainer(impl, protocol, node)::
    if impl == 'TENSORFLOW_SERVER' && protocol != 'tensorflow' then 'tfserving' else node,
  // The GPU build of the TensorFlow Serving Seldon 1.17.1 runs (tensorflow/serving 2.1.0,
  // operator/config/manager/configmap.yaml), for GPUs without a gpuImage.
  tfServingGpuImage:: 'tensorflow/serving:2.1.0-gpu',
  // The prototype's default modelUri: Seldon's public iris example.
  demoModelUri:: 'gs://seldon-models/sklearn/iris',

  seldonDeployment(params, env)::
    local name = params.name;
    local node = util.get(params, 'graphName', 'classifier');
    local image = util.get(params, 'image');
    local modelUri = util.get(params, 'modelUri');
    // `kf generate seldon-serve s --image=…` writes the prototype's defaults too (the
    // sklearn server on Seldon's iris example): an image given with those is the user's
    // model, served as its own container. With a model of the user's, the image is the
    // one the prepackaged server runs from.
    local givenImpl = util.oneOf(util.get(params, 'implementation'), $.implementations, 'implementation');
    local ownModel = !util.isNone(image) && givenImpl == 'SKLEARN_SERVER' && modelUri == $.demoModelUri;
    local impl = if ownModel then null else givenImpl;
    local g = gpu.settings(params);
    local base = k8s.resources(util.get(params, 'resources', {}));
    local env_ = util.envVars(util.envParam(params));
    // A prepackaged server runs Seldon's image unless gpuImage is switched in;
    // the container named like the graph node only adds resources to it.
    local container =
      if impl == null then
        if util.isNone(image) then error 'image: required when implementation is not set (your model image), or set implementation to a prepackaged server (%s)' % std.join(', ', $.implementations)
        else replicas.container({ containerName: node, image: image, gpu: g, env: env_, resources: base })
      else util.prune({
        name: $.serverContainer(impl, util.get(params, 'protocol'), node),
        // A prepackaged server runs from `image` when one is given (a container named like
        // the graph node with an image replaces the server's; Seldon's docs, "custom
        // prepackaged server images"), and from gpuImage on GPUs.
        image: if g.count > 0 && !util.isNone(g.image) then g.image
               else if !util.isNone(image) then image
               else if g.count > 0 && impl == 'TENSORFLOW_SERVER' then $.tfServingGpuImage
               else null,
        env: env_,
        resources: gpu.resources(g.count, g.resource, base, g.what),
      });
    local custom = std.objectFields(container) != ['name'];
    if impl != null && util.isNone(modelUri) && !util.isNone(image) then
      error 'image %s is set but implementation is %s, a prepackaged server that serves modelUri: to serve your own model image, set implementation to null (kf param set %s implementation null); to run %s from that image, give modelUri' % [std.manifestJson(image), impl, name, impl]
    else if impl != null && util.isNone(modelUri) then
      error 'modelUri: required by the %s prepackaged server (gs://, s3://, pvc://...)' % impl
    else {
      apiVersion: 'machinelearning.seldon.io/v1',
      kind: 'SeldonDeployment',
      metadata: k8s.metadata(name, util.namespace(params, env), util.labels(name)),
      spec: util.prune({
        name: name,
        protocol: util.oneOf(util.get(params, 'protocol'), $.protocols, 'protocol'),
        predictors: [util.prune({
          name: util.get(params, 'predictorName', 'default'),
          replicas: util.toInt(util.get(params, 'replicas', 1), 'replicas'),
          // Seldon v1.17 copies a predictor's labels to its Deployments and their pods
          // (operator/controllers/seldondeployment_controller.go), where Kueue's
          // deployment integration reads them.
          labels: if kueue.labels(params) == {} then null else kueue.labels(params),
          graph: util.prune({
            name: node,
            type: 'MODEL',
            implementation: impl,
            modelUri: if impl == null then null else modelUri,
            envSecretRefName: util.get(params, 'envSecretRefName'),
            serviceAccountName: util.get(params, 'serviceAccountName'),
            children: [],
          }) + { children: [] },
          componentSpecs: if !custom then [] else [{
            spec: {
              containers: [container],
            } + gpu.podSpec(g.count, g.resource, g.nodeSelector, g.tolerations, g.what),
          }],
        })],
      }),
    },
}
