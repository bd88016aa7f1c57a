// Seldon Core v1.17.1's seldon-controller-manager (the last Apache-2.0 release), as
// SeldonIO/seldon-core@v1.17.1:operator/config/default installs it with cert-manager:
// namePrefix seldon-, config/manager/manager.yaml (container manager, /manager, the
// --enable-leader-election ... --log-level args filled from env, webhook port 4443,
// metrics 8080, runAsUser 8888), config/rbac (manager-role, manager-sas-role,
// leader-election-role), config/webhook (Service 443 → webhook-server, the v1
// validating webhook and its controller-id selectors), config/certmanager (self-signed
// Issuer, Certificate serving-cert into Secret seldon-webhook-server-cert) and the
// cert-manager.io/inject-ca-from patches. The image and the seldon-config values are
// those of helm-charts/seldon-core-operator/values.yaml at the tag; the operator reads
// seldon-config from POD_NAMESPACE (operator/controllers/model_initializer_injector.go,
// apis/.../prepack.go) under the keys predictor_servers, storageInitializer,
// credentials and explainer.
local util = import 'kubeflow/common/util.libsonnet';

{
  version:: '1.17.1',
  crd:: std.parseJson(importstr 'kubeflow/seldon/crds/machinelearning.seldon.io_seldondeployments.json'),

  // Fixed names: the Deployment mounts the Secret, the Certificate names the Service.
  serviceAccountName:: 'seldon-manager',
  webhookServiceName:: 'seldon-webhook-service',
  certSecretName:: 'seldon-webhook-server-cert',
  certificateName:: 'seldon-serving-cert',
  issuerName:: 'seldon-selfsigned-issuer',
  configMapName:: 'seldon-config',

  all_verbs:: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  // config/rbac/role.yaml (its rules for apiGroup "v1", which no API serves, left out).
  rules:: [
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['services'], verbs: $.all_verbs },
    { apiGroups: [''], resources: ['services/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: $.all_verbs },
    { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: $.all_verbs },
    { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['getambassador.io'], resources: ['mappings', 'tlscontexts'], verbs: $.all_verbs },
    { apiGroups: ['getambassador.io'], resources: ['mappings/status', 'tlscontexts/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['keda.sh'], resources: ['scaledobjects', 'scaledobjects/finalizers'], verbs: $.all_verbs },
    { apiGroups: ['keda.sh'], resources: ['scaledobjects/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['machinelearning.seldon.io'], resources: ['seldondeployments'], verbs: $.all_verbs },
    { apiGroups: ['machinelearning.seldon.io'], resources: ['seldondeployments/finalizers', 'seldondeployments/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['networking.istio.io'], resources: ['destinationrules', 'virtualservices'], verbs: $.all_verbs },
    { apiGroups: ['networking.istio.io'], resources: ['destinationrules/status', 'virtualservices/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: $.all_verbs },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets/status'], verbs: ['get', 'patch', 'update'] },
  ],
  // config/rbac/role_sas.yaml: reading the storage Secrets and ServiceAccounts of models.
  sasRules:: [
    { apiGroups: [''], resources: ['secrets', 'configmaps', 'serviceaccounts'], verbs: ['get', 'list', 'watch'] },
  ],
  leaderRules:: [
    { apiGroups: [''], resources: ['configmaps/status'], verbs: ['get', 'update', 'patch'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  ],

  // seldon-config: the prepackaged servers' images per protocol, the storage
  // initializer, the credential key names and the explainer images.
  config:: {
    local v = $.version,
    local mlserver = '1.3.5',
    predictor_servers: {
      MLFLOW_SERVER: { protocols: { seldon: { image: 'seldonio/mlflowserver', defaultImageVersion: v }, v2: { image: 'seldonio/mlserver', defaultImageVersion: mlserver + '-mlflow' } } },
      SKLEARN_SERVER: { protocols: { seldon: { image: 'seldonio/sklearnserver', defaultImageVersion: v }, v2: { image: 'seldonio/mlserver', defaultImageVersion: mlserver + '-sklearn' } } },
      TENSORFLOW_SERVER: { protocols: { seldon: { image: 'seldonio/tfserving-proxy', defaultImageVersion: v }, tensorflow: { image: 'tensorflow/serving', defaultImageVersion: '2.1.0' } } },
      XGBOOST_SERVER: { protocols: { seldon: { image: 'seldonio/xgboostserver', defaultImageVersion: v }, v2: { image: 'seldonio/mlserver', defaultImageVersion: mlserver + '-xgboost' } } },
      TRITON_SERVER: { protocols: { v2: { image: 'nvcr.io/nvidia/tritonserver', defaultImageVersion: '21.08-py3' } } },
      HUGGINGFACE_SERVER: { protocols: { v2: { image: 'seldonio/mlserver', defaultImageVersion: mlserver + '-huggingface' } } },
      TEMPO_SERVER: { protocols: { v2: { image: 'seldonio/mlserver', defaultImageVersion: mlserver + '-slim' } } },
    },
    storageInitializer: { image: 'seldonio/rclone-storage-initializer:' + v, cpuRequest: '100m', cpuLimit: '1', memoryRequest: '100Mi', memoryLimit: '1Gi' },
    credentials: {
      gcs: { gcsCredentialFileName: 'gcloud-application-credentials.json' },
      s3: { s3AccessKeyIDName: 'awsAccessKeyID', s3SecretAccessKeyName: 'awsSecretAccessKey' },
    },
    explainer: { image: 'seldonio/alibiexplainer:' + v, image_v2: 'seldonio/mlserver:' + mlserver + '-alibi-explain' },
  },

  env(params)::
    local ambassador = util.toBool(util.get(params, 'ambassador', false), 'ambassador');
    local istio = util.toBool(util.get(params, 'istio', false), 'istio');
    local plain = {
      MANAGER_LEADER_ELECTION_ID: 'a33bd623.machinelearning.seldon.io',
      MANAGER_LEADER_ELECTION_RESOURCE_LOCK: '',
      MANAGER_LEADER_ELECTION_LEASE_DURATION_SECS: '15',
      MANAGER_LEADER_ELECTION_RENEW_DEADLINE_SECS: '10',
      MANAGER_LEADER_ELECTION_RETRY_PERIOD_SECS: '2',
      MANAGER_LOG_LEVEL: util.get(params, 'logLevel', 'INFO'),
      WATCH_NAMESPACE: '',
      // The webhook, its Service and seldon-config are rendered here, not made by the operator.
      MANAGER_CREATE_RESOURCES: 'false',
      CONTROLLER_ID: '',
      AMBASSADOR_ENABLED: std.toString(ambassador),
      AMBASSADOR_VERSION: 'v2',
      AMBASSADOR_SINGLE_NAMESPACE: 'false',
      PREDICTIVE_UNIT_HTTP_SERVICE_PORT: '9000',
      PREDICTIVE_UNIT_GRPC_SERVICE_PORT: '9500',
      PREDICTIVE_UNIT_DEFAULT_ENV_SECRET_REF_NAME: '',
      PREDICTIVE_UNIT_METRICS_PORT_NAME: 'metrics',
      ISTIO_ENABLED: std.toString(istio),
      KEDA_ENABLED: 'false',
      ISTIO_GATEWAY: util.get(params, 'istioGateway', 'istio-system/seldon-gateway'),
      ISTIO_TLS_MODE: '',
      USE_EXECUTOR: 'true',
      EXECUTOR_CONTAINER_IMAGE_AND_VERSION: util.get(params, 'executorImage', 'docker.io/seldonio/seldon-core-executor:' + $.version),
      EXECUTOR_CONTAINER_IMAGE_PULL_POLICY: 'IfNotPresent',
      EXECUTOR_PROMETHEUS_PATH: '/prometheus',
      EXECUTOR_SERVER_PORT: '8000',
      EXECUTOR_CONTAINER_USER: '8888',
      EXECUTOR_CONTAINER_SERVICE_ACCOUNT_NAME: 'default',
      EXECUTOR_SERVER_METRICS_PORT_NAME: 'metrics',
      EXECUTOR_REQUEST_LOGGER_DEFAULT_ENDPOINT: 'http://default-broker',
      EXECUTOR_REQUEST_LOGGER_WORK_QUEUE_SIZE: '10000',
      EXECUTOR_REQUEST_LOGGER_WRITE_TIMEOUT_MS: '2000',
      DEFAULT_USER_ID: '8888',
      EXECUTOR_DEFAULT_CPU_REQUEST: '500m',
      EXECUTOR_DEFAULT_MEMORY_REQUEST: '512Mi',
      EXECUTOR_DEFAULT_CPU_LIMIT: '500m',
      EXECUTOR_DEFAULT_MEMORY_LIMIT: '512Mi',
      DEPLOYMENT_NAME_AS_PREFIX: 'false',
      EXECUTOR_FULL_HEALTH_CHECKS: 'false',
    };
    [{ name: k, value: plain[k] } for k in std.objectFields(plain)]
    + [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name, {
      'app.kubernetes.io/name': 'seldon',
      'app.kubernetes.io/instance': 'seldon1',
      'app.kubernetes.io/version': 'v0.5',
    });
    local selector = {
      app: 'seldon',
      'app.kubernetes.io/name': 'seldon',
      'app.kubernetes.io/instance': 'seldon1',
      'app.kubernetes.io/version': 'v0.5',
      'control-plane': 'seldon-controller-manager',
    };
    local inject = { 'cert-manager.io/inject-ca-from': ns + '/' + $.certificateName };
    local sa = $.serviceAccountName;
    local installCRD = util.toBool(util.get(params, 'installCRD', true), 'installCRD');
    local binding(kind, roleName, bindingName) = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: kind + 'Binding',
      metadata: { name: bindingName, labels: labels } + (if kind == 'Role' then { namespace: ns } else {}),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind, name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
    };
    util.list(
      // The shared CRD carries upstream's unresolved kustomize variables in its
      // inject-ca-from annotation; it gets the Certificate rendered here.
      (if installCRD then [$.crd { metadata+: { labels+: labels, annotations+: inject } }] else [])
      + [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: ns, labels: labels } },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'seldon-manager-role-' + ns, labels: labels }, rules: $.rules },
        binding('ClusterRole', 'seldon-manager-role-' + ns, 'seldon-manager-rolebinding-' + ns),
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'seldon-manager-sas-role-' + ns, labels: labels }, rules: $.sasRules },
        binding('ClusterRole', 'seldon-manager-sas-role-' + ns, 'seldon-manager-sas-rolebinding-' + ns),
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'seldon-leader-election-role', namespace: ns, labels: labels }, rules: $.leaderRules },
        binding('Role', 'seldon-leader-election-role', 'seldon-leader-election-rolebinding'),
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: $.configMapName, namespace: ns, labels: labels { 'control-plane': 'seldon-controller-manager' } },
          data: { [k]: std.manifestJsonMinified($.config[k]) for k in std.objectFields($.config) },
        },
        {
          apiVersion: 'cert-manager.io/v1',
          kind: 'Issuer',
          metadata: { name: $.issuerName, namespace: ns, labels: labels },
          spec: { selfSigned: {} },
        },
        {
          apiVersion: 'cert-manager.io/v1',
          kind: 'Certificate',
          metadata: { name: $.certificateName, namespace: ns, labels: labels },
          spec: {
            commonName: '%s.%s.svc' % [$.webhookServiceName, ns],
            dnsNames: ['%s.%s.svc.cluster.local' % [$.webhookServiceName, ns], '%s.%s.svc' % [$.webhookServiceName, ns]],
            issuerRef: { kind: 'Issuer', name: $.issuerName },
            secretName: $.certSecretName,
          },
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: $.webhookServiceName, namespace: ns, labels: labels },
          spec: { selector: selector, ports: [{ port: 443, protocol: 'TCP', targetPort: 'webhook-server' }] },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: name, namespace: ns, labels: labels + selector },
          spec: {
            replicas: 1,
            selector: { matchLabels: selector },
            template: {
              metadata: {
                labels: selector,
                annotations: { 'prometheus.io/port': '8080', 'prometheus.io/scrape': 'true', 'sidecar.istio.io/inject': 'false' },
              },
              spec: {
                serviceAccountName: sa,
                securityContext: { runAsUser: 8888 },
                terminationGracePeriodSeconds: 10,
                containers: [{
                  name: 'manager',
                  image: util.get(params, 'image', 'docker.io/seldonio/seldon-core-operator:' + $.version),
                  imagePullPolicy: 'IfNotPresent',
                  command: ['/manager'],
                  args: [
                    '--enable-leader-election',
                    '--webhook-port=4443',
                    '--metrics-addr=:8080',
                    '--create-resources=$(MANAGER_CREATE_RESOURCES)',
                    '--log-level=$(MANAGER_LOG_LEVEL)',
                    '--leader-election-id=$(MANAGER_LEADER_ELECTION_ID)',
                    '--leader-election-resource-lock=$(MANAGER_LEADER_ELECTION_RESOURCE_LOCK)',
                    '--leader-election-lease-duration-secs=$(MANAGER_LEADER_ELECTION_LEASE_DURATION_SECS)',
                    '--leader-election-renew-deadline-secs=$(MANAGER_LEADER_ELECTION_RENEW_DEADLINE_SECS)',
                    '--leader-election-retry-period-secs=$(MANAGER_LEADER_ELECTION_RETRY_PERIOD_SECS)',
                  ],
                  env: $.env(params),
                  ports: [
                    { containerPort: 4443, name: 'webhook-server', protocol: 'TCP' },
                    { containerPort: 8080, name: 'metrics', protocol: 'TCP' },
                  ],
                  resources: { limits: { cpu: '500m', memory: '300Mi' }, requests: { cpu: '100m', memory: '200Mi' } },
                  volumeMounts: [{ mountPath: '/tmp/k8s-webhook-server/serving-certs', name: 'cert', readOnly: true }],
                }],
                volumes: [{ name: 'cert', secret: { defaultMode: 420, secretName: $.certSecretName } }],
              },
            },
          },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'seldon-validating-webhook-configuration-' + ns, labels: labels, annotations: inject },
          webhooks: [{
            name: 'v1.vseldondeployment.kb.io',
            admissionReviewVersions: ['v1', 'v1beta1'],
            clientConfig: { service: { name: $.webhookServiceName, namespace: ns, path: '/validate-machinelearning-seldon-io-v1-seldondeployment' } },
            failurePolicy: 'Fail',
            sideEffects: 'None',
            // SeldonDeployments of another controller (label seldon.io/controller-id) are its own.
            namespaceSelector: { matchExpressions: [{ key: 'seldon.io/controller-id', operator: 'DoesNotExist' }] },
            objectSelector: { matchExpressions: [{ key: 'seldon.io/controller-id', operator: 'DoesNotExist' }] },
            rules: [{
              apiGroups: ['machinelearning.seldon.io'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['seldondeployments'],
            }],
          }],
        },
      ]
    ),
}
