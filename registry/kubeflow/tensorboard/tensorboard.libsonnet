// TensorBoard for one log directory: a Deployment and its Service. The
// logs are read from gs:// (optional GCP key Secret), s3:// (AWS/MinIO env)
// or a PVC (pvc://claim/path, or pvcName + a path on it), mounted read-only.
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  logMount:: '/mnt/logs',

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name);
    local port = util.toInt(util.get(params, 'port', 6006), 'port');
    local store = k8s.storage.mount(util.get(params, 'logDir'), params, 'logDir', $.logMount, sync=true);
    local pathPrefix = util.get(params, 'pathPrefix');
    local container = util.prune({
      name: 'tensorboard',
      image: util.get(params, 'image', 'tensorflow/tensorflow:2.18.0'),
      command: ['tensorboard'],
      args: [
        '--logdir=' + store.path,
        '--port=%d' % port,
        '--bind_all',
      ] + (if util.isNone(pathPrefix) then [] else ['--path_prefix=' + pathPrefix]),
      env: store.env,
      ports: [k8s.containerPort('http', port)],
      resources: k8s.resources(util.get(params, 'resources', {})),
      volumeMounts: store.volumeMounts,
      readinessProbe: {
        httpGet: { path: (if util.isNone(pathPrefix) then '' else std.rstripChars(pathPrefix, '/')) + '/', port: 'http' },
        periodSeconds: 10,
      },
    });
    util.list([
      k8s.deployment(name, ns, labels, util.prune({
        initContainers: store.initContainers,
        containers: [container] + store.sidecars,
        serviceAccountName: util.get(params, 'serviceAccountName'),
        volumes: store.volumes,
      })),
      k8s.service(name, ns, labels, labels, [k8s.port('http', util.get(params, 'servicePort', 80), 'http')],
                  util.get(params, 'serviceType', 'ClusterIP')),
    ]),
}
