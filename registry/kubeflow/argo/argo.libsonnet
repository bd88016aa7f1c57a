// Argo Workflows (v4.1): the workflow-controller, the argo-server (API + UI)
// and the CRDs, installed cluster-wide (ClusterRoles) into one namespace.
//
// Objects (for name N):
//   CRDs: workflows.argoproj.io (the full schema, crds/argoproj.io_workflows.json)
//         and the other argoproj.io kinds the controller watches, with open schemas
//   ConfigMap N-workflow-controller-configmap   executor image, ...
//   ServiceAccount/ClusterRole/ClusterRoleBinding N-workflow-controller, N-server
//   Deployment N-workflow-controller, Deployment + Service N-server (port 2746)
//   ServiceAccount + Role + RoleBinding <executorServiceAccount>: what a workflow
//         pod's executor needs (workflowtaskresults) — argo-workflow uses it
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  version:: 'v4.1.2',
  workflowCRD:: std.parseJson(importstr 'kubeflow/argo/crds/argoproj.io_workflows.json'),

  // The other kinds, with schemas left open (as Argo's "minimal" CRDs).
  // [kind, plural, shortNames, scope]
  otherKinds:: [
    ['ClusterWorkflowTemplate', 'clusterworkflowtemplates', ['clusterwftmpl', 'cwft'], 'Cluster'],
    ['CronWorkflow', 'cronworkflows', ['cwf', 'cronwf'], 'Namespaced'],
    ['WorkflowArtifactGCTask', 'workflowartifactgctasks', ['wfat'], 'Namespaced'],
    ['WorkflowEventBinding', 'workfloweventbindings', ['wfeb'], 'Namespaced'],
    ['WorkflowTaskResult', 'workflowtaskresults', [], 'Namespaced'],
    ['WorkflowTaskSet', 'workflowtasksets', ['wfts'], 'Namespaced'],
    ['WorkflowTemplate', 'workflowtemplates', ['wftmpl'], 'Namespaced'],
  ],

  openCRD(kind, plural, shortNames, scope, labels):: {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: plural + '.argoproj.io', labels: labels },
    spec: {
      group: 'argoproj.io',
      names: util.prune({
        kind: kind,
        listKind: kind + 'List',
        plural: plural,
        singular: std.asciiLower(kind),
        shortNames: shortNames,
      }),
      scope: scope,
      versions: [{
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: {
          type: 'object',
          properties: {
            apiVersion: { type: 'string' },
            kind: { type: 'string' },
            metadata: { type: 'object' },
            spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        } },
      } + (if kind == 'WorkflowTaskSet' || kind == 'WorkflowArtifactGCTask' then { subresources: { status: {} } } else {})],
    },
  },

  crds(labels):: [$.workflowCRD { metadata+: { labels+: labels } }]
                 + [$.openCRD(k[0], k[1], k[2], k[3], labels) for k in $.otherKinds],

  controllerRules:: [
    { apiGroups: [''], resources: ['pods', 'pods/exec'], verbs: ['create', 'get', 'list', 'watch', 'update', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'watch', 'list'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumeclaims/finalizers'], verbs: ['create', 'update', 'delete', 'get'] },
    { apiGroups: ['argoproj.io'], resources: ['workflows', 'workflows/finalizers', 'workflowtasksets', 'workflowtasksets/finalizers', 'workflowartifactgctasks'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete', 'create'] },
    { apiGroups: ['argoproj.io'], resources: ['workflowtemplates', 'workflowtemplates/finalizers', 'clusterworkflowtemplates', 'clusterworkflowtemplates/finalizers'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['argoproj.io'], resources: ['workflowtaskresults'], verbs: ['list', 'watch', 'deletecollection'] },
    { apiGroups: ['argoproj.io'], resources: ['cronworkflows', 'cronworkflows/finalizers'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'list'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['create', 'get', 'delete'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'update'] },
  ],

  serverRules:: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'watch', 'list'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create'] },
    { apiGroups: [''], resources: ['pods', 'pods/exec', 'pods/log'], verbs: ['get', 'list', 'watch', 'delete'] },
    { apiGroups: [''], resources: ['events'], verbs: ['watch', 'create', 'patch'] },
    { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['argoproj.io'], resources: ['eventsources', 'sensors', 'workflows', 'workfloweventbindings', 'workflowtemplates', 'cronworkflows', 'clusterworkflowtemplates'], verbs: ['create', 'get', 'list', 'watch', 'update', 'patch', 'delete'] },
  ],

  // The executor (argoexec) in a workflow pod reports step results.
  executorRules:: [
    { apiGroups: ['argoproj.io'], resources: ['workflowtaskresults'], verbs: ['create', 'patch'] },
  ],

  authModes:: ['client', 'server', 'sso'],

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local ctrl = name + '-workflow-controller';
    local srv = name + '-server';
    local cm = name + '-workflow-controller-configmap';
    local ctrlLabels = util.labels(name, { component: 'workflow-controller' });
    local srvLabels = util.labels(name, { component: 'server' });
    local executorImage = util.get(params, 'executorImage', 'quay.io/argoproj/argoexec:' + $.version);
    local secure = util.toBool(util.get(params, 'secure', false), 'secure');
    local authModes = [util.oneOf(m, $.authModes, 'authMode') for m in util.toArray(util.get(params, 'authMode', 'client'), 'authMode')];
    local server = util.toBool(util.get(params, 'server', true), 'server');
    local executorSA = util.get(params, 'executorServiceAccount', 'argo-workflow');
    local baseHref = util.get(params, 'baseHref', '/');
    util.list(
      (if util.toBool(util.get(params, 'installCRD', true), 'installCRD') then $.crds(util.labels(name)) else [])
      + [
        k8s.configMap(cm, ns, ctrlLabels, {
          // The controller reads each key as YAML.
          executor: std.manifestYamlDoc({ image: executorImage }) + '\n',
        } + (if util.isNone(util.get(params, 'parallelism')) then {}
             else { parallelism: std.toString(util.toInt(params.parallelism, 'parallelism')) })),
        k8s.serviceAccount(ctrl, ns, ctrlLabels),
        k8s.clusterRole(ctrl, ctrlLabels, $.controllerRules),
        k8s.clusterRoleBinding(ctrl, ctrlLabels, ctrl, ctrl, ns),
        k8s.deployment(ctrl, ns, ctrlLabels, {
          serviceAccountName: ctrl,
          securityContext: { runAsNonRoot: true },
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [{
            name: 'workflow-controller',
            image: util.get(params, 'controllerImage', 'quay.io/argoproj/workflow-controller:' + $.version),
            command: ['workflow-controller'],
            args: ['--configmap', cm, '--executor-image', executorImage],
            env: [k8s.fieldEnv('LEADER_ELECTION_IDENTITY', 'metadata.name')],
            ports: [k8s.containerPort('metrics', 9090)],
            livenessProbe: {
              httpGet: { port: 6060, path: '/healthz' },
              initialDelaySeconds: 90,
              periodSeconds: 60,
              timeoutSeconds: 30,
            },
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
              readOnlyRootFilesystem: true,
              runAsNonRoot: true,
            },
          }],
        }),
        k8s.serviceAccount(executorSA, ns, util.labels(name, { component: 'executor' })),
        k8s.role(executorSA, ns, util.labels(name, { component: 'executor' }), $.executorRules),
        k8s.roleBinding(executorSA, ns, util.labels(name, { component: 'executor' }), executorSA, executorSA),
      ]
      + (if !server then [] else [
           k8s.serviceAccount(srv, ns, srvLabels),
           k8s.clusterRole(srv, srvLabels, $.serverRules),
           k8s.clusterRoleBinding(srv, srvLabels, srv, srv, ns),
           k8s.deployment(srv, ns, srvLabels, {
             serviceAccountName: srv,
             securityContext: { runAsNonRoot: true },
             nodeSelector: { 'kubernetes.io/os': 'linux' },
             containers: [{
               name: 'argo-server',
               image: util.get(params, 'serverImage', 'quay.io/argoproj/argocli:' + $.version),
               args: ['server', '--configmap', cm, '--secure=' + std.toString(secure)]
                     + ['--auth-mode=' + m for m in authModes]
                     + (if baseHref == '/' then [] else ['--basehref', baseHref]),
               ports: [k8s.containerPort('web', 2746)],
               readinessProbe: {
                 httpGet: { port: 2746, scheme: if secure then 'HTTPS' else 'HTTP', path: '/' },
                 initialDelaySeconds: 10,
                 periodSeconds: 20,
               },
               securityContext: {
                 allowPrivilegeEscalation: false,
                 capabilities: { drop: ['ALL'] },
                 readOnlyRootFilesystem: true,
                 runAsNonRoot: true,
               },
               volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
             }],
             volumes: [{ name: 'tmp', emptyDir: {} }],
           }),
           k8s.service(srv, ns, srvLabels, srvLabels, [k8s.port('web', 2746, 2746)],
                       util.get(params, 'serviceType', 'ClusterIP')),
         ])
    ),
}
