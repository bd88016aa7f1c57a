// The Kubeflow training-operator (v1.9): Deployment, ServiceAccount,
// ClusterRole + binding, a Role for its webhook certificate Secret, the
// Service of its metrics and webhook ports, the (empty) certificate Secret it
// fills itself, its ValidatingWebhookConfiguration and the CRDs of the job
// kinds it is told to serve (--enable-scheme).
local util = import 'kubeflow/common/util.libsonnet';

{
  // scheme → CRD, plural and whether v1.9 has a validating webhook for it.
  schemes:: {
    tfjob: { crd: std.parseJson(importstr 'kubeflow/training-operator/crds/kubeflow.org_tfjobs.json'), plural: 'tfjobs', webhook: true },
    pytorchjob: { crd: std.parseJson(importstr 'kubeflow/training-operator/crds/kubeflow.org_pytorchjobs.json'), plural: 'pytorchjobs', webhook: true },
    xgboostjob: { crd: std.parseJson(importstr 'kubeflow/training-operator/crds/kubeflow.org_xgboostjobs.json'), plural: 'xgboostjobs', webhook: true },
    paddlejob: { crd: std.parseJson(importstr 'kubeflow/training-operator/crds/kubeflow.org_paddlejobs.json'), plural: 'paddlejobs', webhook: true },
    jaxjob: { crd: std.parseJson(importstr 'kubeflow/training-operator/crds/kubeflow.org_jaxjobs.json'), plural: 'jaxjobs', webhook: true },
    // MXJob was removed in v1.9: enable it only with a v1.8.x image.
    mxjob: { crd: std.parseJson(importstr 'kubeflow/training-operator/crds/kubeflow.org_mxjobs.json'), plural: 'mxjobs', webhook: false },
  },

  // The enabled schemes, lower case, checked.
  enabled(params)::
    local s = [std.asciiLower(x) for x in util.toArray(util.get(params, 'schemes', std.objectFields($.schemes)), 'schemes')];
    local bad = [x for x in s if !std.objectHas($.schemes, x)];
    if bad != [] then error 'schemes: unknown %s (known: %s)' % [std.join(', ', bad), std.join(', ', std.objectFields($.schemes))]
    else if s == [] then error 'schemes: at least one job kind must be enabled'
    else std.set(s),

  rules(plurals):: [
    { apiGroups: ['kubeflow.org'], resources: plurals, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['kubeflow.org'], resources: [p + '/status' for p in plurals], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['kubeflow.org'], resources: [p + '/finalizers' for p in plurals], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] },
    { apiGroups: [''], resources: ['services'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'list', 'update', 'watch'] },
    { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create', 'get', 'list', 'watch'] },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'list', 'update', 'watch'] },
    { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['scheduling.k8s.io'], resources: ['priorityclasses'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['scheduling.volcano.sh'], resources: ['podgroups'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['scheduling.x-k8s.io'], resources: ['podgroups'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    // The certificate rotator writes the CA bundle into the webhook configuration.
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get', 'list', 'update', 'watch'] },
  ],

  // The operator generates its webhook certificate into this Secret and
  // injects the CA into this (fixed-name) webhook configuration.
  webhookConfigName:: 'validator.training-operator.kubeflow.org',
  certMountPath:: '/tmp/k8s-webhook-server/serving-certs',

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name);
    local selector = { app: name, 'control-plane': 'kubeflow-training-operator' };
    local secretName = name + '-webhook-cert';
    local schemes = $.enabled(params);
    local plurals = [$.schemes[s].plural for s in schemes];
    local gang = util.get(params, 'gangSchedulerName');
    local webhook = util.toBool(util.get(params, 'installWebhook', true), 'installWebhook');
    local hooked = [s for s in schemes if $.schemes[s].webhook];
    util.list(
      (if util.toBool(util.get(params, 'installCRDs', true), 'installCRDs')
       then [$.schemes[s].crd { metadata+: { labels+: labels } } for s in schemes]
       else [])
      + [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: name, namespace: ns, labels: labels } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: name, labels: labels },
          rules: $.rules(plurals),
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: name, labels: labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: name },
          subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
        },
        // Secrets only in the operator's own namespace (its webhook certificate).
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: name + '-webhook-cert', namespace: ns, labels: labels },
          rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'update', 'watch'] }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: name + '-webhook-cert', namespace: ns, labels: labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: name + '-webhook-cert' },
          subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
        },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace: ns, labels: labels } },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: name,
            namespace: ns,
            labels: labels,
            annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics', 'prometheus.io/port': '8080' },
          },
          spec: {
            type: 'ClusterIP',
            selector: selector,
            ports: [
              { name: 'monitoring-port', port: 8080, targetPort: 8080, protocol: 'TCP' },
              { name: 'webhook-server', port: 443, targetPort: 9443, protocol: 'TCP' },
            ],
          },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: name, namespace: ns, labels: labels },
          spec: {
            replicas: 1,
            selector: { matchLabels: selector },
            template: {
              metadata: { labels: selector, annotations: { 'sidecar.istio.io/inject': 'false' } },
              spec: {
                serviceAccountName: name,
                terminationGracePeriodSeconds: 10,
                containers: [{
                  name: 'training-operator',
                  image: params.image,
                  command: ['/manager'],
                  args: ['--enable-scheme=' + s for s in schemes]
                        // The operator's defaults match name 'training-operator'.
                        + (if name == 'training-operator' then []
                           else ['--webhook-service-name=' + name, '--webhook-secret-name=' + secretName])
                        + (if util.isNone(gang) then [] else ['--gang-scheduler-name=' + gang]),
                  env: [
                    { name: 'MY_POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                    { name: 'MY_POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                  ] + (if util.isNone(util.get(params, 'watchNamespace')) then []
                       else [{ name: 'KUBEFLOW_NAMESPACE', value: params.watchNamespace }]),
                  ports: [
                    { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
                    { name: 'webhook-server', containerPort: 9443, protocol: 'TCP' },
                  ],
                  livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, initialDelaySeconds: 15, periodSeconds: 20, timeoutSeconds: 3 },
                  readinessProbe: { httpGet: { path: '/readyz', port: 8081 }, initialDelaySeconds: 10, periodSeconds: 15, timeoutSeconds: 3 },
                  volumeMounts: [{ name: 'cert', mountPath: $.certMountPath, readOnly: true }],
                }],
                volumes: [{ name: 'cert', secret: { secretName: secretName, defaultMode: 420 } }],
              },
            },
          },
        },
      ]
      + (if webhook && hooked != [] then [{
           apiVersion: 'admissionregistration.k8s.io/v1',
           kind: 'ValidatingWebhookConfiguration',
           metadata: { name: $.webhookConfigName, labels: labels },
           webhooks: [{
             name: 'validator.%s.training-operator.kubeflow.org' % s,
             admissionReviewVersions: ['v1'],
             sideEffects: 'None',
             failurePolicy: 'Fail',
             clientConfig: { service: { name: name, namespace: ns, path: '/validate-kubeflow-org-v1-' + s } },
             rules: [{
               apiGroups: ['kubeflow.org'],
               apiVersions: ['v1'],
               operations: ['CREATE', 'UPDATE'],
               resources: [$.schemes[s].plural],
             }],
           } for s in hooked],
         }] else [])
    ),
}
