// The standalone MPI Operator (kubeflow/mpi-operator v0.8): its Deployment,
// ServiceAccount, ClusterRole + binding and the MPIJob v2beta1 CRD.
local util = import 'kubeflow/common/util.libsonnet';

{
  crd:: std.parseJson(importstr 'kubeflow/mpi-job/crds/kubeflow.org_mpijobs_v2beta1.json'),

  rules:: [
    { apiGroups: [''], resources: ['configmaps', 'secrets', 'services'], verbs: ['create', 'list', 'watch', 'update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list', 'watch', 'delete', 'update', 'patch'] },
    // The launcher's Role lets it exec into workers; the operator can only grant what it holds.
    { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
    { apiGroups: [''], resources: ['endpoints'], verbs: ['create', 'get', 'update'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create', 'list', 'update', 'watch'] },
    { apiGroups: ['kubeflow.org'], resources: ['mpijobs', 'mpijobs/finalizers', 'mpijobs/status'], verbs: ['*'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['*'] },
    { apiGroups: ['scheduling.k8s.io'], resources: ['priorityclasses'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['scheduling.volcano.sh', 'scheduling.x-k8s.io'], resources: ['queues', 'podgroups'], verbs: ['*'] },
  ],

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name);
    local gang = util.get(params, 'gangScheduler');
    util.list([
      if util.toBool(util.get(params, 'installCRD', true), 'installCRD')
      then $.crd { metadata+: { labels+: labels } },
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: name, namespace: ns, labels: labels },
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: name, labels: labels },
        rules: $.rules,
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: name, labels: labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: name },
        subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
      },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: name, namespace: ns, labels: labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels: labels, annotations: { 'sidecar.istio.io/inject': 'false' } },
            spec: {
              serviceAccountName: name,
              containers: [{
                name: 'mpi-operator',
                image: params.image,
                args: ['-alsologtostderr', '--lock-namespace=' + ns]
                      + (if util.isNone(gang) then [] else ['--gang-scheduling=' + gang])
                      + (if util.isNone(util.get(params, 'watchNamespace')) then []
                         else ['--namespace=' + params.watchNamespace]),
              }],
            },
          },
        },
      },
    ]),
}
