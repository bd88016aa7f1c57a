// Emissary-ingress (Ambassador) 3.x: the gateway Deployment, its Services,
// ServiceAccount and RBAC, the Listeners it needs to accept traffic, and
// Mappings (getambassador.io/v3alpha1) routing URL prefixes to Services.
//
// The getambassador.io CRDs and their conversion webhook (emissary-apiext in
// namespace emissary-system upstream) come from the emissary-crds prototype.
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  rules:: [
    { apiGroups: [''], resources: ['namespaces', 'services', 'secrets', 'configmaps', 'endpoints'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['getambassador.io'], resources: ['*'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'create', 'delete'] },
    { apiGroups: ['getambassador.io'], resources: ['mappings/status'], verbs: ['update'] },
    { apiGroups: ['networking.internal.knative.dev'], resources: ['clusteringresses', 'ingresses'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['networking.x-k8s.io', 'gateway.networking.k8s.io'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingressclasses'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses/status'], verbs: ['update'] },
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
  ],

  // Emissary 3.x accepts no traffic without Listeners.
  listener(name, ns, labels, port, protocol, ambassadorId):: {
    apiVersion: 'getambassador.io/v3alpha1',
    kind: 'Listener',
    metadata: k8s.metadata(name, ns, labels),
    spec: {
      port: port,
      protocol: protocol,
      securityModel: 'XFP',
      hostBinding: { namespace: { from: 'ALL' } },
    } + (if ambassadorId == null then {} else { ambassador_id: [ambassadorId] }),
  },

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name, { product: 'aes' });
    local selector = { app: name, service: 'ambassador' };
    local ambassadorId = util.get(params, 'ambassadorId');
    util.list([
      k8s.serviceAccount(name, ns, labels),
      k8s.clusterRole(name, labels, $.rules),
      k8s.clusterRoleBinding(name, labels, name, name, ns),
      if util.toBool(util.get(params, 'listeners', true), 'listeners') then $.listener(name + '-http', ns, labels, 8080, 'HTTP', ambassadorId),
      if util.toBool(util.get(params, 'listeners', true), 'listeners') then $.listener(name + '-https', ns, labels, 8443, 'HTTPS', ambassadorId),
      k8s.deployment(name, ns, labels, {
        serviceAccountName: name,
        securityContext: { runAsNonRoot: true, runAsUser: 8888 },
        containers: [util.prune({
          name: 'ambassador',
          image: util.get(params, 'image', 'docker.io/emissaryingress/emissary:3.9.1'),
          env: [
            k8s.fieldEnv('AMBASSADOR_NAMESPACE', 'metadata.namespace'),
            k8s.fieldEnv('HOST_IP', 'status.hostIP'),
          ] + (if ambassadorId == null then [] else [{ name: 'AMBASSADOR_ID', value: ambassadorId }]),
          ports: [k8s.containerPort('http', 8080), k8s.containerPort('https', 8443), k8s.containerPort('admin', 8877)],
          livenessProbe: { httpGet: { path: '/ambassador/v0/check_alive', port: 'admin' }, initialDelaySeconds: 30, periodSeconds: 3, failureThreshold: 3 },
          readinessProbe: { httpGet: { path: '/ambassador/v0/check_ready', port: 'admin' }, initialDelaySeconds: 30, periodSeconds: 3, failureThreshold: 3 },
          resources: k8s.resources(util.get(params, 'resources', {})),
          securityContext: { allowPrivilegeEscalation: false },
          volumeMounts: [{ name: 'ambassador-pod-info', mountPath: '/tmp/ambassador-pod-info', readOnly: true }],
        })],
        volumes: [{
          name: 'ambassador-pod-info',
          downwardAPI: { items: [{ fieldRef: { fieldPath: 'metadata.labels' }, path: 'labels' }] },
        }],
        restartPolicy: 'Always',
      }, replicas=util.get(params, 'replicas', 1), selector=selector),
      k8s.service(name, ns, labels, selector, [
        k8s.port('http', 80, 'http'),
        k8s.port('https', 443, 'https'),
      ], util.get(params, 'serviceType', 'LoadBalancer')),
      k8s.service(name + '-admin', ns, labels, selector, [k8s.port('admin', 8877, 'admin')]),
    ]),

  // A Mapping: prefix → service[.serviceNamespace][:port].
  route(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local svcNs = util.get(params, 'serviceNamespace', ns);
    local port = util.optInt(util.get(params, 'port'), 'port');
    local service = if util.isNone(util.get(params, 'service')) then error 'service: required (the Service to route to)' else params.service;
    local keep = util.toBool(util.get(params, 'keepPrefix', false), 'keepPrefix');
    local rewrite = util.get(params, 'rewrite');
    if keep && rewrite != null then error 'rewrite: set either rewrite or keepPrefix, not both'
    else k8s.routes.mapping(
      name, ns, util.labels(name),
      util.get(params, 'prefix', '/%s/' % name),
      '%s.%s%s' % [service, svcNs, if port == null then '' else ':%d' % port],
      // Emissary rewrites the prefix to "/" by default; "" keeps it.
      rewrite=if keep then '' else rewrite,
      timeoutMs=util.get(params, 'timeoutMs'),
      hostname=util.get(params, 'hostname', '*'),
      extra=(if util.toBool(util.get(params, 'websocket', false), 'websocket') then { allow_upgrade: ['websocket'] } else {})
            + (if util.isNone(util.get(params, 'ambassadorId')) then {} else { ambassador_id: [params.ambassadorId] }),
    ),
}
