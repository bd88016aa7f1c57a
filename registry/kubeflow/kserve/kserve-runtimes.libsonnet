// KServe ClusterServingRuntimes for the kserve prototype's most common frameworks, so an
// InferenceService with modelFormat tensorflow, pytorch, sklearn or huggingface finds a
// model server. Facts from kserve/kserve@v0.20.0:config/runtimes/{kserve-tensorflow-serving,
// kserve-torchserve,kserve-sklearnserver,kserve-huggingfaceserver}.yaml and the image
// names and tags of config/runtimes/kustomization.yaml (sklearnserver and
// huggingfaceserver are tagged with the release; on GPUs the controller appends -gpu to
// huggingfaceserver's tag, pkg/controller/v1beta1/inferenceservice/utils/utils.go).
local util = import 'kubeflow/common/util.libsonnet';

{
  dropAll:: {
    allowPrivilegeEscalation: false,
    privileged: false,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
  },
  oneCpu:: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } },

  runtimes(params):: {
    tensorflow: {
      name: 'kserve-tensorflow-serving',
      serverType: 'tensorflow-serving',
      metricsPort: '8080',
      formats: [{ name: 'tensorflow', version: '1', autoSelect: true, priority: 2 },
                { name: 'tensorflow', version: '2', autoSelect: true, priority: 2 }],
      protocols: ['v1', 'grpc-v1'],
      container: {
        name: 'kserve-container',
        image: util.get(params, 'tensorflowImage', 'tensorflow/serving:2.6.2'),
        command: ['/usr/bin/tensorflow_model_server'],
        args: ['--model_name={{.Name}}', '--port=9000', '--rest_api_port=8080',
               '--model_base_path=/mnt/models', '--rest_api_timeout_in_ms=60000'],
        securityContext: $.dropAll { runAsUser: 1000 },
        resources: $.oneCpu,
      },
    },
    pytorch: {
      name: 'kserve-torchserve',
      serverType: 'torchserve',
      metricsPort: '8082',
      formats: [{ name: 'pytorch', version: '1', autoSelect: true, priority: 2 }],
      protocols: ['v1', 'v2', 'grpc-v2'],
      container: {
        name: 'kserve-container',
        image: util.get(params, 'pytorchImage', 'pytorch/torchserve-kfs:0.9.0'),
        args: ['torchserve', '--start', '--model-store=/mnt/models/model-store',
               '--ts-config=/mnt/models/config/config.properties'],
        env: [{ name: 'TS_SERVICE_ENVELOPE', value: '{{.Labels.serviceEnvelope}}' }],
        securityContext: $.dropAll { runAsUser: 1000 },
        resources: $.oneCpu,
      },
    },
    sklearn: {
      name: 'kserve-sklearnserver',
      serverType: 'sklearnserver',
      metricsPort: '8080',
      formats: [{ name: 'sklearn', version: '1', autoSelect: true, priority: 1 }],
      protocols: ['v1', 'v2'],
      container: {
        name: 'kserve-container',
        image: util.get(params, 'sklearnImage', 'kserve/sklearnserver:v0.20.0'),
        args: ['--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080'],
        securityContext: $.dropAll,
        resources: $.oneCpu,
      },
    },
    huggingface: {
      name: 'kserve-huggingfaceserver',
      serverType: 'huggingfaceserver',
      metricsPort: '8080',
      formats: [{ name: 'huggingface', version: '1', autoSelect: true, priority: 1 }],
      protocols: ['v2', 'v1'],
      container: {
        name: 'kserve-container',
        image: util.get(params, 'huggingfaceImage', 'kserve/huggingfaceserver:v0.20.0'),
        args: ['--model_name={{.Name}}'],
        env: [{ name: 'LMCACHE_USE_EXPERIMENTAL', value: 'True' }],
        securityContext: $.dropAll,
        resources: $.oneCpu,
        volumeMounts: [{ name: 'devshm', mountPath: '/dev/shm' }],
      },
      // vLLM's workers share tensors through /dev/shm.
      spec: { volumes: [{ name: 'devshm', emptyDir: { medium: 'Memory' } }], hostIPC: false },
    },
  },

  all(params, env)::
    local name = params.name;
    local labels = util.labels(name);
    local known = $.runtimes(params);
    local wanted = [std.asciiLower(f) for f in util.toArray(util.get(params, 'frameworks', std.objectFields(known)), 'frameworks')];
    local bad = [f for f in wanted if !std.objectHas(known, f)];
    if bad != [] then error 'frameworks: unknown %s (known: %s)' % [std.join(', ', bad), std.join(', ', std.objectFields(known))]
    else util.list([
      local r = known[f];
      {
        apiVersion: 'serving.kserve.io/v1alpha1',
        kind: 'ClusterServingRuntime',
        metadata: { name: r.name, labels: labels, annotations: { 'serving.kserve.io/server-type': r.serverType } },
        spec: {
          annotations: { 'prometheus.kserve.io/port': r.metricsPort, 'prometheus.kserve.io/path': '/metrics' },
          supportedModelFormats: r.formats,
          protocolVersions: r.protocols,
          containers: [r.container],
        } + util.get(r, 'spec', {}),
      }
      for f in std.set(wanted)
    ]),
}
