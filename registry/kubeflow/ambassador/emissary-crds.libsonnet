// The getambassador.io CRDs and Emissary's emissary-apiext, the conversion webhook
// those CRDs name (they store v2 and serve v1, v2 and v3alpha1). Facts from
// emissary-ingress/emissary@v3.9.1 (the gateway version of the `ambassador` prototype):
// manifests/emissary/emissary-crds.yaml.in (ServiceAccount, RBAC, Service 443 → https,
// Deployment with ports http 8080 / https 8443 and the /probes/* endpoints),
// cmd/apiext/main.go (the first argument is the Service name) and
// pkg/apiext/internal/{ca,inject}.go: apiext keeps its CA in the Secret
// emissary-ingress-webhook-ca of its own namespace and rewrites every getambassador.io
// CRD's conversion clientConfig to <service>.<its namespace>:443/webhooks/crd-convert
// with that CA. The CRDs here already point at the Service rendered here, so a re-apply
// does not turn the conversion back to a namespace that has no webhook.
local util = import 'kubeflow/common/util.libsonnet';

{
  crds:: std.parseJson(importstr 'kubeflow/ambassador/crds/getambassador.io_crds.json'),
  caSecretName:: 'emissary-ingress-webhook-ca',
  webhookPath:: '/webhooks/crd-convert',

  // The shared file is Emissary's "internal-validator" rendering of its CRDs: a field that
  // takes one of several types (ambassador_id: a string or a list; tls: a string or a
  // bool) is written `oneOf: [{type: string}, {type: array}]` with no type of its own.
  // An API server refuses that schema as not structural (422). Emissary's build makes
  // the copy it installs with tools/src/fix-crds (business.go, FixCRD for the apiserver
  // targets; system.go, visitAllSchemaProps): such a field is left out of the schema,
  // and the object holding it keeps unknown fields, so the server stores the field as
  // given. This is that step, over every version's schema.
  isUnion(node)::
    std.isObject(node) && !std.objectHas(node, 'type') && std.objectHas(node, 'oneOf')
    && std.length(node.oneOf) > 0
    && std.all([std.isObject(o) && std.objectFields(o) == ['type'] for o in node.oneOf]),
  // fix-crds drops a whole array when its items are such a union.
  leftOut(node)::
    $.isUnion(node) || (std.isObject(node) && std.objectHas(node, 'items') && $.leftOut(node.items)),
  // A subtree without `oneOf` anywhere holds no union: returned as it is, found by one
  // native manifest rather than a walk in Jsonnet (the schemas are 150 KB).
  hasOneOf(node):: std.length(std.findSubstr('"oneOf"', std.manifestJsonMinified(node))) > 0,
  forApiServer(node)::
    if !std.isObject(node) || !$.hasOneOf(node) then node
    else
      local props = if std.objectHas(node, 'properties') then node.properties else {};
      local lost = [k for k in std.objectFields(props) if $.leftOut(props[k])];
      local lostAdditional = std.objectHas(node, 'additionalProperties') && $.leftOut(node.additionalProperties);
      {
        [k]: if k == 'properties' then {
          [p]: $.forApiServer(props[p])
          for p in std.objectFields(props)
          if !std.member(lost, p)
        } else if std.member(['items', 'additionalProperties'], k) then $.forApiServer(node[k])
        else node[k]
        for k in std.objectFields(node)
        if !(k == 'additionalProperties' && lostAdditional)
      } + (if lost != [] || lostAdditional then { 'x-kubernetes-preserve-unknown-fields': true } else {}),
  // fix-crds refuses union types in v3 schemas, so only the older versions are walked.
  structural(crd)::
    crd {
      spec+: {
        versions: [
          v + (if std.objectHas(v, 'schema') && !std.startsWith(v.name, 'v3') then {
                 schema+: { openAPIV3Schema: $.forApiServer(v.schema.openAPIV3Schema) },
               } else {})
          for v in crd.spec.versions
        ],
      },
    },

  // A CRD of the shared file with its conversion webhook, if it has one (Listener,
  // served only as v3alpha1, has none), sent to service.namespace.
  pointedAt(crd, service, ns, labels)::
    $.structural(crd) {
      metadata+: { labels+: labels },
    } + (if std.objectHas(crd.spec, 'conversion') then {
           spec+: {
             conversion+: {
               webhook+: { clientConfig+: { service+: { name: service, namespace: ns } } },
             },
           },
         } else {}),

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    // upstream's labels; app.kubernetes.io/part-of is what apiext 3.10's
    // --crd-label-selector selects the CRDs it patches by.
    local labels = util.labels(name, {
      'app.kubernetes.io/instance': name,
      'app.kubernetes.io/name': name,
      'app.kubernetes.io/part-of': name,
    });
    local selector = {
      'app.kubernetes.io/instance': name,
      'app.kubernetes.io/name': name,
      'app.kubernetes.io/part-of': name,
    };
    local installCRDs = util.toBool(util.get(params, 'installCRDs', true), 'installCRDs');
    util.list(
      (if installCRDs then [$.pointedAt(c, name, ns, labels) for c in $.crds] else [])
      + [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: name, namespace: ns, labels: labels } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: name, labels: labels },
          rules: [
            { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch'] },
            // It patches the caBundle of the getambassador.io CRDs only.
            {
              apiGroups: ['apiextensions.k8s.io'],
              resources: ['customresourcedefinitions'],
              resourceNames: [c.metadata.name for c in $.crds],
              verbs: ['update'],
            },
          ],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: name, labels: labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: name },
          subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: name, namespace: ns, labels: labels },
          rules: [
            { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
            { apiGroups: [''], resources: ['secrets'], resourceNames: [$.caSecretName], verbs: ['get', 'update'] },
          ],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: name, namespace: ns, labels: labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: name },
          subjects: [{ kind: 'ServiceAccount', name: name, namespace: ns }],
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: name, namespace: ns, labels: labels },
          spec: {
            type: 'ClusterIP',
            selector: selector,
            // The port and the path every CRD's conversion clientConfig names.
            ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 'https' }],
          },
        },
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: name, namespace: ns, labels: labels },
          spec: {
            replicas: util.toInt(util.get(params, 'replicas', 3), 'replicas'),
            selector: { matchLabels: selector },
            template: {
              metadata: { labels: labels },
              spec: {
                serviceAccountName: name,
                containers: [{
                  name: 'emissary-apiext',
                  image: util.get(params, 'image', 'docker.io/emissaryingress/emissary:3.9.1'),
                  imagePullPolicy: 'IfNotPresent',
                  // apiext's first argument is the name of the Service in front of it.
                  command: ['apiext', name],
                  ports: [
                    { name: 'http', containerPort: 8080, protocol: 'TCP' },
                    { name: 'https', containerPort: 8443, protocol: 'TCP' },
                  ],
                  startupProbe: { httpGet: { path: '/probes/live', port: 8080 }, failureThreshold: 10, periodSeconds: 3 },
                  livenessProbe: { httpGet: { scheme: 'HTTP', path: '/probes/live', port: 8080 }, periodSeconds: 3, failureThreshold: 3 },
                  readinessProbe: { httpGet: { scheme: 'HTTP', path: '/probes/ready', port: 8080 }, periodSeconds: 3, failureThreshold: 3 },
                }],
              },
            },
          },
        },
      ]
    ),
}
