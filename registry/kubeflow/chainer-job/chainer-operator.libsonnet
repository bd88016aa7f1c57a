// kubeflow/chainer-operator (archived): the operator a ChainerJob needs. Facts from
// its deploy/2-rbac.yaml and deploy/3-chainer-operator.yaml, the image and flags of
// Kubeflow v0.5's chainer-operator prototype (gcr.io/kubeflow-images-public/
// chainer-operator:v0.3.0, -v 2 -stderrthreshold INFO), and cmd/chainer-operator/main.go:
// it watches ConfigMaps, ServiceAccounts, Roles, RoleBindings, StatefulSets and Jobs
// through their v1 APIs, all still served, and does not create its CRD itself.
local legacy = import 'kubeflow/common/legacy-operator.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  rules:: [
    { apiGroups: [''], resources: ['configmaps', 'serviceaccounts'], verbs: ['create', 'update', 'list', 'watch'] },
    // The launcher's Role grants these, so the operator must hold them.
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'list', 'watch'] },
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get', 'create', 'list', 'update', 'watch'] },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create', 'list', 'watch'] },
    { apiGroups: ['kubeflow.org'], resources: ['chainerjobs'], verbs: ['*'] },
  ],

  all(params, env)::
    legacy.all(
      params,
      env,
      legacy.crd('chainerjobs', 'ChainerJob', ['chj', 'chjs', 'chjob', 'chjobs'], ['all']),
      $.rules,
      {
        name: 'chainer-operator',
        image: util.get(params, 'image', 'gcr.io/kubeflow-images-public/chainer-operator:v0.3.0'),
        args: ['-v', std.toString(util.toInt(util.get(params, 'v', 2), 'v')), '-stderrthreshold', util.get(params, 'stderrthreshold', 'INFO')],
      },
    ),
}
