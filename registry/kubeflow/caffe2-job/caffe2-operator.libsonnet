// kubeflow/caffe2-operator (archived): the operator a Caffe2Job needs. Facts from its
// cmd/caffe2-operator/app (flags -controller-config-file, -gc-interval,
// -scheduler-name; leader election on an Endpoints lock "caffe2-operator" in the
// namespace named by KUBEFLOW_NAMESPACE) and its README, which builds the binary from
// source: upstream never published an image, so `image` has no default.
local legacy = import 'kubeflow/common/legacy-operator.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  rules:: [
    { apiGroups: [''], resources: ['pods', 'services'], verbs: ['create', 'delete', 'get', 'list', 'watch', 'update'] },
    // Leader election.
    { apiGroups: [''], resources: ['endpoints'], verbs: ['create', 'get', 'update'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get'] },
    { apiGroups: ['kubeflow.org'], resources: ['caffe2jobs'], verbs: ['*'] },
  ],

  all(params, env)::
    local ns = util.namespace(params, env);
    legacy.all(
      params,
      env,
      legacy.crd('caffe2jobs', 'Caffe2Job'),
      $.rules,
      {
        name: 'caffe2-operator',
        image: params.image,
        args: ['-alsologtostderr', '-scheduler-name', util.get(params, 'schedulerName', 'default-scheduler')],
        env: [{ name: 'KUBEFLOW_NAMESPACE', value: ns }],
      },
    ),
}
