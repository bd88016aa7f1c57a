// KServe's controller manager as kserve/kserve@v0.20.0:config/default installs it
// (v0.20.0 is the newest release before the default-branch commit whose
// inferenceservices CRD kf embeds; that CRD file is the same blob at the tag).
//
// Facts from that tag: config/manager/manager.yaml and config/default/
// manager_{image,auth_proxy,resources}_patch.yaml (container `manager`, /manager
// --metrics-addr=127.0.0.1:8080 --leader-elect, webhook port 9443, probes on 8081,
// the kube-rbac-proxy sidecar on 8443), config/rbac/*.yaml, config/webhook/
// {manifests,service}.yaml (webhook paths, Service 443 → webhook-server),
// config/certmanager (self-signed Issuer, Certificate for <service>.<ns>.svc into
// Secret kserve-webhook-server-cert) and config/default's cert-manager.io/inject-ca-from
// patches. cmd/manager/main.go: the manager reads ConfigMap inferenceservice-config from
// POD_NAMESPACE at start-up and runs the InferenceService, TrainedModel and
// InferenceGraph controllers; pkg/apis/serving/v1beta1/configmap.go: which keys it
// parses and what each needs (deploy.defaultDeploymentMode; ingress.ingressGateway).
local util = import 'kubeflow/common/util.libsonnet';

{
  version:: 'v0.20.0',
  isvcCRD:: std.parseJson(importstr 'kubeflow/kserve/crds/serving.kserve.io_inferenceservices.json'),

  // The other serving.kserve.io kinds the manager registers, watches or reads (names,
  // scope, versions and printer-less subresources from config/crd/minimal at the tag).
  // kf has no upstream copy of them: written here, keeping every field.
  otherKinds:: [
    { plural: 'servingruntimes', kind: 'ServingRuntime', scope: 'Namespaced', shortNames: [] },
    { plural: 'clusterservingruntimes', kind: 'ClusterServingRuntime', scope: 'Cluster', shortNames: [] },
    { plural: 'trainedmodels', kind: 'TrainedModel', scope: 'Namespaced', shortNames: ['tm'] },
    { plural: 'inferencegraphs', kind: 'InferenceGraph', scope: 'Namespaced', shortNames: ['ig'] },
    { plural: 'clusterstoragecontainers', kind: 'ClusterStorageContainer', scope: 'Cluster', shortNames: [], status: false },
  ],

  minimalCRD(k, labels):: {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: k.plural + '.serving.kserve.io', labels: labels },
    spec: {
      group: 'serving.kserve.io',
      scope: k.scope,
      names: util.prune({
        plural: k.plural,
        singular: std.asciiLower(k.kind),
        kind: k.kind,
        listKind: k.kind + 'List',
        shortNames: k.shortNames,
      }),
      versions: [{
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      } + (if util.get(k, 'status', true) then { subresources: { status: {} } } else {})],
    },
  },

  // config/rbac/role.yaml (kserve-manager-role).
  all_verbs:: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  rules:: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'update'] },
    { apiGroups: [''], resources: ['events', 'services'], verbs: $.all_verbs },
    { apiGroups: [''], resources: ['namespaces', 'pods'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['get'] },
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'], verbs: $.all_verbs },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: $.all_verbs },
    { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: $.all_verbs },
    { apiGroups: ['gateway.networking.k8s.io'], resources: ['httproutes'], verbs: $.all_verbs },
    { apiGroups: ['keda.sh'], resources: ['scaledobjects', 'scaledobjects/finalizers'], verbs: $.all_verbs },
    { apiGroups: ['keda.sh'], resources: ['scaledobjects/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['networking.istio.io'], resources: ['virtualservices', 'virtualservices/finalizers'], verbs: $.all_verbs },
    { apiGroups: ['networking.istio.io'], resources: ['virtualservices/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: $.all_verbs },
    { apiGroups: ['opentelemetry.io'], resources: ['opentelemetrycollectors', 'opentelemetrycollectors/finalizers'], verbs: $.all_verbs },
    { apiGroups: ['opentelemetry.io'], resources: ['opentelemetrycollectors/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['serving.knative.dev'], resources: ['services', 'services/finalizers'], verbs: $.all_verbs },
    { apiGroups: ['serving.knative.dev'], resources: ['services/status'], verbs: ['get', 'patch', 'update'] },
    {
      apiGroups: ['serving.kserve.io'],
      resources: ['clusterservingruntimes', 'clusterservingruntimes/finalizers', 'clusterstoragecontainers',
                  'inferencegraphs', 'inferencegraphs/finalizers', 'inferenceservices', 'inferenceservices/finalizers',
                  'servingruntimes', 'servingruntimes/finalizers', 'trainedmodels'],
      verbs: $.all_verbs,
    },
    {
      apiGroups: ['serving.kserve.io'],
      resources: ['clusterservingruntimes/status', 'inferencegraphs/status', 'inferenceservices/status', 'servingruntimes/status', 'trainedmodels/status'],
      verbs: ['get', 'patch', 'update'],
    },
    { apiGroups: ['serving.kserve.io'], resources: ['localmodelcaches', 'localmodelnamespacecaches'], verbs: ['get', 'list', 'watch'] },
  ],

  // config/rbac/leader_election_role.yaml
  leaderRules:: [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'list', 'update'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['configmaps/status'], verbs: ['get', 'update', 'patch'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  ],

  // The keys of inferenceservice-config the manager and its webhooks read, as JSON
  // strings. deploy and ingress are checked at start-up (configmap.go: a
  // defaultDeploymentMode of Knative, Standard or ModelMesh, or the legacy Serverless /
  // RawDeployment; a non-empty ingressGateway); the webhooks need the images of the
  // storage-initializer, agent (logger, batcher) and router containers they inject.
  config(params)::
    local v = $.version;
    local mode = util.oneOf(util.get(params, 'deploymentMode', 'Standard'),
                            ['Standard', 'Knative', 'RawDeployment', 'Serverless', 'ModelMesh'], 'deploymentMode');
    local small = { memoryRequest: '100Mi', memoryLimit: '1Gi', cpuRequest: '100m', cpuLimit: '1' };
    {
      deploy: { defaultDeploymentMode: mode },
      ingress: {
        enableGatewayApi: false,
        kserveIngressGateway: 'kserve/kserve-ingress-gateway',
        ingressGateway: util.get(params, 'ingressGateway', 'knative-serving/knative-ingress-gateway'),
        localGateway: 'knative-serving/knative-local-gateway',
        localGatewayService: 'knative-local-gateway.istio-system.svc.cluster.local',
        ingressDomain: util.get(params, 'ingressDomain', 'example.com'),
        ingressClassName: util.get(params, 'ingressClassName', 'istio'),
        domainTemplate: '{{ .Name }}-{{ .Namespace }}.{{ .IngressDomain }}',
        urlScheme: 'http',
        disableIstioVirtualHost: false,
        disableIngressCreation: util.toBool(util.get(params, 'disableIngressCreation', false), 'disableIngressCreation'),
      },
      storageInitializer: small {
        image: 'kserve/storage-initializer:' + v,
        caBundleConfigMapName: '',
        caBundleVolumeMountPath: '/etc/ssl/custom-certs',
        enableModelcar: true,
        cpuModelcar: '10m',
        memoryModelcar: '15Mi',
        uidModelcar: 1010,
      },
      credentials: {
        storageSpecSecretName: 'storage-config',
        storageSecretNameAnnotation: 'serving.kserve.io/storageSecretName',
        gcs: { gcsCredentialFileName: 'gcloud-application-credentials.json' },
        s3: { s3AccessKeyIDName: 'AWS_ACCESS_KEY_ID', s3SecretAccessKeyName: 'AWS_SECRET_ACCESS_KEY' },
      },
      explainers: { art: { image: 'kserve/art-explainer', defaultImageVersion: v } },
      logger: small { image: 'kserve/agent:' + v, defaultUrl: 'http://default-broker' },
      batcher: { image: 'kserve/agent:' + v, memoryRequest: '1Gi', memoryLimit: '1Gi', cpuRequest: '1', cpuLimit: '1', maxBatchSize: '32', maxLatency: '5000' },
      agent: small { image: 'kserve/agent:' + v },
      router: small { image: 'kserve/router:' + v, imagePullPolicy: 'IfNotPresent' },
      metricsAggregator: { enableMetricAggregation: 'false', enablePrometheusScraping: 'false' },
      localModel: { enabled: false, jobNamespace: 'kserve-localmodel-jobs', defaultJobImage: 'kserve/storage-initializer:' + v, fsGroup: 1000 },
      security: { autoMountServiceAccountToken: true },
      inferenceService: { resource: { cpuLimit: '1', memoryLimit: '2Gi', cpuRequest: '1', memoryRequest: '2Gi' } },
    },

  // Fixed names: the manager reads the ConfigMap and SECRET_NAME by these, and
  // config/default wires the webhooks and the Certificate to them.
  configMapName:: 'inferenceservice-config',
  webhookServiceName:: 'kserve-webhook-server-service',
  certSecretName:: 'kserve-webhook-server-cert',
  certificateName:: 'serving-cert',
  issuerName:: 'selfsigned-issuer',

  webhook(name, ns, path, group, version, resource, extra={}):: {
    name: name,
    clientConfig: { service: { name: $.webhookServiceName, namespace: ns, path: path } },
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1beta1'],
    rules: [{
      apiGroups: [group],
      apiVersions: [version],
      operations: if resource == 'pods' then ['CREATE'] else ['CREATE', 'UPDATE'],
      resources: [resource],
    }],
  } + extra,

  webhookConfigs(ns, labels)::
    local inject = { 'cert-manager.io/inject-ca-from': ns + '/' + $.certificateName };
    local validating(kind, version) = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: std.asciiLower(kind) + '.serving.kserve.io', labels: labels, annotations: inject },
      webhooks: [$.webhook(
        std.asciiLower(kind) + '.kserve-webhook-server.validator',
        ns,
        '/validate-serving-kserve-io-%s-%s' % [version, std.asciiLower(kind)],
        'serving.kserve.io',
        version,
        std.asciiLower(kind) + 's',
      )],
    };
    [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'inferenceservice.serving.kserve.io', labels: labels, annotations: inject },
        webhooks: [
          $.webhook('inferenceservice.kserve-webhook-server.defaulter', ns,
                    '/mutate-serving-kserve-io-v1beta1-inferenceservice', 'serving.kserve.io', 'v1beta1', 'inferenceservices'),
          // Adds the storage-initializer, agent and batcher containers to predictor pods.
          $.webhook('inferenceservice.kserve-webhook-server.pod-mutator', ns, '/mutate-pods', '', 'v1', 'pods', {
            reinvocationPolicy: 'IfNeeded',
            namespaceSelector: { matchExpressions: [{ key: 'control-plane', operator: 'DoesNotExist' }] },
            objectSelector: { matchExpressions: [{ key: 'serving.kserve.io/inferenceservice', operator: 'Exists' }] },
          }),
        ],
      },
      validating('InferenceService', 'v1beta1'),
      validating('TrainedModel', 'v1alpha1'),
      validating('InferenceGraph', 'v1alpha1'),
      validating('ClusterServingRuntime', 'v1alpha1'),
      validating('ServingRuntime', 'v1alpha1'),
    ],

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name, { 'app.kubernetes.io/name': 'kserve', 'app.kubernetes.io/component': 'kserve' });
    local selector = { 'control-plane': 'kserve-controller-manager', 'controller-tools.k8s.io': '1.0' };
    local installCRDs = util.toBool(util.get(params, 'installCRDs', true), 'installCRDs');
    local image = util.get(params, 'image', 'kserve/kserve-controller:' + $.version);
    local dropAll = {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      privileged: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
    };
    util.list(
      (if installCRDs then
         [$.isvcCRD {
           metadata+: {
             labels+: labels,
             // config/default/cainjection_conversion_webhook.yaml
             annotations+: { 'cert-manager.io/inject-ca-from': ns + '/' + $.certificateName },
           },
         }]
         + [$.minimalCRD(k, labels) for k in $.otherKinds]
       else [])
      + [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: name, namespace: ns, labels: labels } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: name + '-manager-role', labels: labels },
          rules: $.rules,
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: name + '-manager-rolebinding', labels: labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: name + '-manager-role' },
          subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
        },
        // config/rbac/auth_proxy_role.yaml: kube-rbac-proxy checks callers of /metrics.
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: name + '-proxy-role', labels: labels },
          rules: [
            { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
            { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
          ],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: name + '-proxy-rolebinding', labels: labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: name + '-proxy-role' },
          subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: name + '-leader-election-role', namespace: ns, labels: labels },
          rules: $.leaderRules,
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: name + '-leader-election-rolebinding', namespace: ns, labels: labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: name + '-leader-election-role' },
          subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
        },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: $.configMapName, namespace: ns, labels: labels },
          data: { [k]: std.manifestJsonEx($.config(params)[k], '  ') for k in std.objectFields($.config(params)) },
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
            dnsNames: ['%s.%s.svc' % [$.webhookServiceName, ns]],
            issuerRef: { kind: 'Issuer', name: $.issuerName },
            secretName: $.certSecretName,
          },
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: $.webhookServiceName, namespace: ns, labels: labels },
          spec: {
            selector: { 'control-plane': 'kserve-controller-manager' },
            ports: [{ port: 443, protocol: 'TCP', targetPort: 'webhook-server' }],
          },
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: name + '-metrics-service',
            namespace: ns,
            labels: labels + selector,
            annotations: { 'prometheus.io/port': '8443', 'prometheus.io/scheme': 'https', 'prometheus.io/scrape': 'true' },
          },
          spec: { selector: selector, ports: [{ name: 'https', port: 8443, protocol: 'TCP', targetPort: 'https' }] },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: name, namespace: ns, labels: labels + selector },
          spec: {
            selector: { matchLabels: selector },
            template: {
              metadata: {
                labels: selector { 'app.kubernetes.io/name': 'kserve-controller-manager' },
                annotations: { 'kubectl.kubernetes.io/default-container': 'manager' },
              },
              spec: {
                serviceAccountName: name,
                securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
                terminationGracePeriodSeconds: 10,
                containers: [
                  {
                    name: 'kube-rbac-proxy',
                    image: util.get(params, 'rbacProxyImage', 'quay.io/brancz/kube-rbac-proxy:v0.18.0'),
                    args: ['--secure-listen-address=0.0.0.0:8443', '--upstream=http://127.0.0.1:8080/', '--logtostderr=true', '--v=10'],
                    ports: [{ containerPort: 8443, protocol: 'TCP', name: 'https' }],
                    securityContext: dropAll,
                  },
                  {
                    name: 'manager',
                    image: image,
                    imagePullPolicy: 'IfNotPresent',
                    command: ['/manager'],
                    args: ['--metrics-addr=127.0.0.1:8080', '--leader-elect'],
                    securityContext: dropAll,
                    env: [
                      // Where the manager reads inferenceservice-config.
                      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                      { name: 'SECRET_NAME', value: $.certSecretName },
                    ],
                    livenessProbe: { failureThreshold: 5, initialDelaySeconds: 30, httpGet: { path: '/healthz', port: 8081 }, timeoutSeconds: 5 },
                    readinessProbe: { initialDelaySeconds: 30, failureThreshold: 5, periodSeconds: 5, httpGet: { path: '/readyz', port: 8081 }, timeoutSeconds: 5 },
                    resources: { limits: { cpu: '100m', memory: '300Mi' }, requests: { cpu: '100m', memory: '200Mi' } },
                    ports: [{ containerPort: 9443, name: 'webhook-server', protocol: 'TCP' }],
                    volumeMounts: [{ mountPath: '/tmp/k8s-webhook-server/serving-certs', name: 'cert', readOnly: true }],
                  },
                ],
                volumes: [{ name: 'cert', secret: { defaultMode: 420, secretName: $.certSecretName } }],
              },
            },
          },
        },
      ]
      + $.webhookConfigs(ns, labels)
    ),
}
