// The JobSet v0.12.0 controller manager, as kubernetes-sigs/jobset@v0.12.0
// installs it (config/default over config/components/{crd,rbac,manager,
// webhook,internalcert}, names prefixed jobset-): the jobsets.jobset.x-k8s.io
// CRD, ServiceAccount, manager ClusterRole + binding, the leader-election and
// Secret Roles, the metrics auth roles, the Configuration ConfigMap, the
// (empty) webhook certificate Secret, the webhook and metrics Services, the
// Deployment and the mutating + validating webhook configurations.
//
// Certificates: the controller generates them (internalCertManagement in its
// Configuration; kubernetes-sigs/jobset@v0.12.0:pkg/util/cert/cert.go): it
// writes them into the Secret internalCertManagement.webhookSecretName of its
// own namespace, for <webhookServiceName>.<namespace>.svc, and injects the CA
// into the webhook configurations of the FIXED names below.
//
// The CRD is upstream's base file (config/components/crd/bases) without the
// kustomize patch that points spec.conversion at a webhook: it serves one
// version (v1alpha2), so there is nothing to convert.
local util = import 'kubeflow/common/util.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';

{
  crd:: std.parseJson(importstr 'kubeflow/jobset/crds/jobset.x-k8s.io_jobsets.json'),

  // pkg/util/cert/cert.go@v0.12.0: the names the cert rotator patches.
  validatingWebhookConfigName:: 'jobset-validating-webhook-configuration',
  mutatingWebhookConfigName:: 'jobset-mutating-webhook-configuration',
  certMountPath:: '/tmp/k8s-webhook-server/serving-certs',
  configPath:: '/controller_manager_config.yaml',

  // config/components/rbac/role.yaml@v0.12.0 (from the +kubebuilder:rbac markers).
  managerRules:: [
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['create', 'get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['services'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update', 'watch'] },
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
      verbs: ['get', 'list', 'update', 'watch'],
    },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['batch'], resources: ['jobs/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['jobset.x-k8s.io'], resources: ['jobsets'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['jobset.x-k8s.io'], resources: ['jobsets/finalizers'], verbs: ['update'] },
    { apiGroups: ['jobset.x-k8s.io'], resources: ['jobsets/status'], verbs: ['get', 'patch', 'update'] },
  ],

  // config/components/rbac/leader_election_role.yaml@v0.12.0.
  leaderElectionRules:: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  ],

  // config/components/rbac/auth_proxy_role.yaml@v0.12.0: the metrics endpoint
  // authenticates and authorizes its callers (main.go FilterProvider).
  metricsAuthRules:: [
    { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  ],

  // config/components/manager/controller_manager_config.yaml@v0.12.0, with the
  // Service and Secret names of this component (api/config/v1alpha1/defaults.go
  // would default them to jobset-webhook-service / jobset-webhook-server-cert).
  configuration(serviceName, secretName):: {
    apiVersion: 'config.jobset.x-k8s.io/v1alpha1',
    kind: 'Configuration',
    leaderElection: { leaderElect: true },
    internalCertManagement: { enable: true, webhookServiceName: serviceName, webhookSecretName: secretName },
  },

  // One webhook of the v0.12.0 markers (pkg/webhooks/{jobset,pod}_webhook.go),
  // with config/components/webhook/patches' objectSelector on the pod ones.
  webhook(name, group, version, plural, operations, path, service, ns):: {
    name: name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    clientConfig: { service: { name: service, namespace: ns, path: path } },
    rules: [{ apiGroups: [group], apiVersions: [version], operations: operations, resources: [plural] }],
  } + (
    if plural == 'pods' then {
      objectSelector: { matchExpressions: [{ key: 'jobset.sigs.k8s.io/jobset-name', operator: 'Exists' }] },
    } else {}
  ),

  all(params, env)::
    local base = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(base);
    local name = base + '-controller-manager';
    local serviceName = base + '-webhook-service';
    local secretName = base + '-webhook-server-cert';
    local configName = base + '-manager-config';
    // config/components/manager/manager.yaml@v0.12.0 selects on control-plane;
    // config/default adds app.kubernetes.io/name (and kustomize's own labels).
    local selector = { 'control-plane': 'controller-manager', 'app.kubernetes.io/name': 'jobset' };
    local logLevel = util.toInt(util.get(params, 'logLevel', 2), 'logLevel');
    local installCRD = util.toBool(util.get(params, 'installCRD', true), 'installCRD');
    local binding(roleKind, role, bindingName) = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: if roleKind == 'ClusterRole' then 'ClusterRoleBinding' else 'RoleBinding',
      metadata: k8s.metadata(bindingName, if roleKind == 'ClusterRole' then null else ns, labels),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
      subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
    };
    util.list(
      (if installCRD then [$.crd { metadata+: { labels+: labels } }] else [])
      + [
        k8s.serviceAccount(name, ns, labels),
        k8s.clusterRole(base + '-manager-role', labels, $.managerRules),
        binding('ClusterRole', base + '-manager-role', base + '-manager-rolebinding'),
        k8s.role(base + '-leader-election-role', ns, labels, $.leaderElectionRules),
        binding('Role', base + '-leader-election-role', base + '-leader-election-rolebinding'),
        // config/components/rbac/manager_secrets_role.yaml: its certificate Secret.
        k8s.role(base + '-manager-secrets-role', ns, labels, [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'update', 'watch'] },
        ]),
        binding('Role', base + '-manager-secrets-role', base + '-manager-secrets-rolebinding'),
        k8s.clusterRole(base + '-proxy-role', labels, $.metricsAuthRules),
        binding('ClusterRole', base + '-proxy-role', base + '-proxy-rolebinding'),
        k8s.clusterRole(base + '-metrics-reader', labels, [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]),
        binding('ClusterRole', base + '-metrics-reader', base + '-metrics-reader-rolebinding'),
        k8s.configMap(configName, ns, labels, {
          'controller_manager_config.yaml': std.manifestYamlDoc($.configuration(serviceName, secretName), quote_keys=false) + '\n',
        }),
        { apiVersion: 'v1', kind: 'Secret', metadata: k8s.metadata(secretName, ns, labels) },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: k8s.metadata(serviceName, ns, labels),
          spec: { selector: selector, ports: [{ port: 443, protocol: 'TCP', targetPort: 9443 }] },
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: k8s.metadata(name + '-metrics-service', ns, labels),
          spec: { selector: selector, ports: [{ name: 'https', port: 8443, protocol: 'TCP', targetPort: 8443 }] },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: k8s.metadata(name, ns, labels),
          spec: {
            replicas: 1,
            selector: { matchLabels: selector },
            template: {
              metadata: { labels: selector, annotations: { 'kubectl.kubernetes.io/default-container': 'manager' } },
              spec: {
                serviceAccountName: name,
                terminationGracePeriodSeconds: 10,
                securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
                containers: [{
                  name: 'manager',
                  image: params.image,
                  command: ['/manager'],
                  args: ['--config=' + $.configPath, '--zap-log-level=%d' % logLevel],
                  securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
                  ports: [
                    { name: 'webhook-server', containerPort: 9443, protocol: 'TCP' },
                    { name: 'metrics', containerPort: 8443, protocol: 'TCP' },
                  ],
                  livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, initialDelaySeconds: 15, periodSeconds: 20 },
                  readinessProbe: { httpGet: { path: '/readyz', port: 8081 }, initialDelaySeconds: 5, periodSeconds: 10 },
                  resources: k8s.resources(util.get(params, 'resources', { requests: { cpu: '500m', memory: '128Mi' }, limits: { memory: '4Gi' } })),
                  volumeMounts: [
                    { name: 'cert', mountPath: $.certMountPath, readOnly: true },
                    { name: 'manager-config', mountPath: $.configPath, subPath: 'controller_manager_config.yaml' },
                  ],
                }],
                volumes: [
                  { name: 'cert', secret: { secretName: secretName, defaultMode: 420 } },
                  { name: 'manager-config', configMap: { name: configName } },
                ],
              },
            },
          },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingWebhookConfiguration',
          metadata: k8s.metadata($.mutatingWebhookConfigName, null, labels),
          webhooks: [
            $.webhook('mjobset.kb.io', 'jobset.x-k8s.io', 'v1alpha2', 'jobsets', ['CREATE'], '/mutate-jobset-x-k8s-io-v1alpha2-jobset', serviceName, ns),
            $.webhook('mpod.kb.io', '', 'v1', 'pods', ['CREATE'], '/mutate--v1-pod', serviceName, ns),
          ],
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: k8s.metadata($.validatingWebhookConfigName, null, labels),
          webhooks: [
            $.webhook('vjobset.kb.io', 'jobset.x-k8s.io', 'v1alpha2', 'jobsets', ['CREATE', 'UPDATE'], '/validate-jobset-x-k8s-io-v1alpha2-jobset', serviceName, ns),
            $.webhook('vpod.kb.io', '', 'v1', 'pods', ['CREATE'], '/validate--v1-pod', serviceName, ns),
          ],
        },
      ]
    ),
}
