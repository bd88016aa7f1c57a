// The Kubeflow Trainer v2.3.0 controller manager, as kubeflow/trainer@v2.3.0
// installs it (manifests/overlays/manager over manifests/base/{crds,manager,
// rbac,webhook}): ServiceAccount, ClusterRole + binding, the public version
// ConfigMap and its Role, the controller's Configuration in a ConfigMap, the
// (empty) webhook certificate Secret the controller fills itself, the Service
// of its metrics, webhook and status-server ports, the Deployment, the two
// webhook configurations and the three trainer.kubeflow.org CRDs.
//
// Certificates: the controller generates them (certManagement.enable in its
// Configuration; kubeflow/trainer@v2.3.0:pkg/util/cert/cert.go): it writes
// them into the Secret named by certManagement.webhookSecretName in its own
// namespace, for the DNS name <webhookServiceName>.<namespace>.svc, and
// injects the CA into the webhook configurations of the FIXED names below
// (cmd/trainer-controller-manager/main.go).
local util = import 'kubeflow/common/util.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';

{
  crds:: [
    std.parseJson(importstr 'kubeflow/trainer/crds/trainer.kubeflow.org_trainjobs.json'),
    std.parseJson(importstr 'kubeflow/trainer/crds/trainer.kubeflow.org_trainingruntimes.json'),
    std.parseJson(importstr 'kubeflow/trainer/crds/trainer.kubeflow.org_clustertrainingruntimes.json'),
  ],

  // cmd/trainer-controller-manager/main.go@v2.3.0: the names the cert rotator patches.
  validatingWebhookConfigName:: 'validator.trainer.kubeflow.org',
  mutatingWebhookConfigName:: 'defaulter.trainer.kubeflow.org',
  // pkg/util/cert/cert.go@v2.3.0 (certDir).
  certMountPath:: '/tmp/k8s-webhook-server/serving-certs',
  configPath:: '/controller_manager_config.yaml',
  // The Trainer SDK reads the control-plane version from this ConfigMap
  // (manifests/overlays/manager/kustomization.yaml@v2.3.0 configMapGenerator).
  publicConfigMapName:: 'kubeflow-trainer-public',
  version:: 'v2.3.0',

  // manifests/base/rbac/role.yaml@v2.3.0, generated from the +kubebuilder:rbac
  // markers of pkg/ (controllers, runtime plugins, cert rotator).
  rules:: [
    { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['create', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: [''], resources: ['limitranges'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update', 'watch'] },
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
      verbs: ['get', 'list', 'update', 'watch'],
    },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'list', 'update'] },
    { apiGroups: ['jobset.x-k8s.io'], resources: ['jobsets'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['node.k8s.io'], resources: ['runtimeclasses'], verbs: ['get', 'list', 'watch'] },
    {
      apiGroups: ['scheduling.volcano.sh', 'scheduling.x-k8s.io'],
      resources: ['podgroups'],
      verbs: ['create', 'get', 'list', 'patch', 'update', 'watch'],
    },
    {
      apiGroups: ['trainer.kubeflow.org'],
      resources: ['clustertrainingruntimes', 'trainingruntimes', 'trainjobs'],
      verbs: ['get', 'list', 'patch', 'update', 'watch'],
    },
    {
      apiGroups: ['trainer.kubeflow.org'],
      // Only TrainJobs have a status subresource the controller writes.
      resources: ['clustertrainingruntimes/finalizers', 'trainingruntimes/finalizers', 'trainjobs/finalizers', 'trainjobs/status'],
      verbs: ['get', 'patch', 'update'],
    },
  ],

  // manifests/base/manager/controller_manager_config.yaml@v2.3.0, with the
  // Service and Secret names of this component.
  configuration(serviceName, secretName):: {
    apiVersion: 'config.trainer.kubeflow.org/v1alpha1',
    kind: 'Configuration',
    health: { healthProbeBindAddress: ':8081', readinessEndpointName: 'readyz', livenessEndpointName: 'healthz' },
    metrics: { bindAddress: ':8443', secureServing: true },
    webhook: { port: 9443, host: '' },
    leaderElection: {
      leaderElect: true,
      resourceName: 'trainer.kubeflow.org',
      // "": the controller's own namespace.
      resourceNamespace: '',
      leaseDuration: '15s',
      renewDeadline: '10s',
      retryPeriod: '2s',
    },
    controller: {
      groupKindConcurrency: {
        'TrainJob.trainer.kubeflow.org': 5,
        'TrainingRuntime.trainer.kubeflow.org': 1,
        'ClusterTrainingRuntime.trainer.kubeflow.org': 1,
      },
    },
    certManagement: { enable: true, webhookServiceName: serviceName, webhookSecretName: secretName },
    clientConnection: { qps: 50, burst: 100 },
    statusServer: { port: 10443, qps: 5, burst: 10 },
  },

  // One webhook of the v2.3.0 markers (pkg/webhooks/*_webhook.go, +kubebuilder:webhook).
  webhook(name, plural, path, service, ns, validation):: {
    name: name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    clientConfig: { service: { name: service, namespace: ns, path: path } },
    rules: [{
      apiGroups: ['trainer.kubeflow.org'],
      apiVersions: ['v1alpha1'],
      operations: ['CREATE', 'UPDATE'],
      resources: [plural],
    }],
  } + (
    // manifests/base/webhook/patch_validating.yaml@v2.3.0: runtimes labelled
    // trainer.kubeflow.org/webhook-validation=disabled skip validation.
    if validation then {
      objectSelector: { matchExpressions: [{ key: 'trainer.kubeflow.org/webhook-validation', operator: 'NotIn', values: ['disabled'] }] },
    } else {}
  ),

  all(params, env)::
    local base = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(base);
    local name = base + '-controller-manager';
    local secretName = base + '-webhook-cert';
    local configName = base + '-config';
    // manifests/base/manager/manager.yaml@v2.3.0 (the pod's labels).
    local selector = { 'app.kubernetes.io/name': 'trainer', 'app.kubernetes.io/component': 'manager', 'app.kubernetes.io/part-of': 'kubeflow' };
    local featureGates = util.kvObject(util.get(params, 'featureGates', {}), 'featureGates');
    local logLevel = util.toInt(util.get(params, 'logLevel', 2), 'logLevel');
    local installCRDs = util.toBool(util.get(params, 'installCRDs', true), 'installCRDs');
    util.list(
      (if installCRDs then [crd { metadata+: { labels+: labels } } for crd in $.crds] else [])
      + [
        k8s.serviceAccount(name, ns, labels),
        k8s.clusterRole(name, labels, $.rules),
        k8s.clusterRoleBinding(name, labels, name, name, ns),
        // Any authenticated user may read the version ConfigMap (the SDK does).
        k8s.configMap($.publicConfigMapName, ns, labels, { kubeflow_trainer_version: $.version }),
        k8s.role($.publicConfigMapName, ns, labels, [
          { apiGroups: [''], resources: ['configmaps'], resourceNames: [$.publicConfigMapName], verbs: ['get', 'list', 'watch'] },
        ]),
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: k8s.metadata($.publicConfigMapName, ns, labels),
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: $.publicConfigMapName },
          subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }],
        },
        k8s.configMap(configName, ns, labels, {
          'controller_manager_config.yaml': std.manifestYamlDoc($.configuration(name, secretName), quote_keys=false) + '\n',
        }),
        { apiVersion: 'v1', kind: 'Secret', metadata: k8s.metadata(secretName, ns, labels) },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: k8s.metadata(name, ns, labels),
          spec: {
            // Upstream selects on app.kubernetes.io/component only; the full
            // pod labels keep another "manager" of the namespace out.
            selector: selector,
            ports: [
              { name: 'monitoring-port', port: 8443, protocol: 'TCP', targetPort: 'metrics' },
              { name: 'webhook-server', port: 443, protocol: 'TCP', targetPort: 'webhook' },
              { name: 'status-server', port: 10443, protocol: 'TCP', targetPort: 'status-server' },
            ],
          },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: k8s.metadata(name, ns, labels),
          spec: {
            replicas: 1,
            selector: { matchLabels: selector },
            template: {
              metadata: { labels: selector },
              spec: {
                serviceAccountName: name,
                containers: [{
                  name: 'manager',
                  image: params.image,
                  args: ['--config=' + $.configPath, '--zap-log-level=%d' % logLevel]
                        + (if featureGates == {} then []
                           else ['--feature-gates=' + std.join(',', ['%s=%s' % [k, featureGates[k]] for k in std.objectFields(featureGates)])]),
                  securityContext: {
                    readOnlyRootFilesystem: true,
                    allowPrivilegeEscalation: false,
                    runAsNonRoot: true,
                    capabilities: { drop: ['ALL'] },
                    seccompProfile: { type: 'RuntimeDefault' },
                  },
                  ports: [
                    { name: 'health', containerPort: 8081, protocol: 'TCP' },
                    { name: 'metrics', containerPort: 8443, protocol: 'TCP' },
                    { name: 'webhook', containerPort: 9443, protocol: 'TCP' },
                    { name: 'status-server', containerPort: 10443, protocol: 'TCP' },
                  ],
                  volumeMounts: [
                    { name: 'cert', mountPath: $.certMountPath, readOnly: true },
                    { name: 'config', mountPath: $.configPath, subPath: 'controller_manager_config.yaml', readOnly: true },
                  ],
                  livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, initialDelaySeconds: 15, periodSeconds: 20, timeoutSeconds: 3 },
                  readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, initialDelaySeconds: 10, periodSeconds: 15, timeoutSeconds: 3 },
                }],
                volumes: [
                  { name: 'cert', secret: { secretName: secretName, defaultMode: 420 } },
                  { name: 'config', configMap: { name: configName } },
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
            $.webhook('defaulter.trainjob.trainer.kubeflow.org', 'trainjobs', '/mutate-trainer-kubeflow-org-v1alpha1-trainjob', name, ns, false),
          ],
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: k8s.metadata($.validatingWebhookConfigName, null, labels),
          webhooks: [
            $.webhook('validator.clustertrainingruntime.trainer.kubeflow.org', 'clustertrainingruntimes', '/validate-trainer-kubeflow-org-v1alpha1-clustertrainingruntime', name, ns, true),
            $.webhook('validator.trainingruntime.trainer.kubeflow.org', 'trainingruntimes', '/validate-trainer-kubeflow-org-v1alpha1-trainingruntime', name, ns, true),
            $.webhook('validator.trainjob.trainer.kubeflow.org', 'trainjobs', '/validate-trainer-kubeflow-org-v1alpha1-trainjob', name, ns, false),
          ],
        },
      ]
    ),
}
