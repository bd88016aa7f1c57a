// An archived Kubeflow operator of 2018 (chainer-operator, caffe2-operator): its
// job CRD, a ServiceAccount, ClusterRole and ClusterRoleBinding, and the operator
// Deployment. Their upstream CRDs are apiextensions.k8s.io/v1beta1 without a schema,
// which Kubernetes stopped serving in 1.22; this one is the same CRD (group, names,
// the v1alpha1 version, scope) as apiextensions.k8s.io/v1, whose required schema
// keeps every field (x-kubernetes-preserve-unknown-fields), as the old CRD did.
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  crd(plural, kind, shortNames=[], categories=[]):: {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: plural + '.kubeflow.org' },
    spec: {
      group: 'kubeflow.org',
      scope: 'Namespaced',
      names: util.prune({
        plural: plural,
        singular: std.asciiLower(kind),
        kind: kind,
        shortNames: shortNames,
        categories: categories,
      }),
      versions: [{
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      }],
    },
  },

  // crd: the CRD object; rules: the operator's ClusterRole rules; container: its
  // container (name, image, args, env).
  all(params, env, crd, rules, container)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name);
    local installCRD = util.toBool(util.get(params, 'installCRD', true), 'installCRD');
    util.list([
      if installCRD then crd,
      k8s.serviceAccount(name, ns, labels),
      k8s.clusterRole(name, labels, rules),
      k8s.clusterRoleBinding(name, labels, name, name, ns),
      k8s.deployment(name, ns, labels, {
        serviceAccountName: name,
        containers: [container],
      }),
    ]),
}
