// Builders for the built-in Kubernetes objects the serving, notebook and
// pipeline packages create (current API versions only: v1, apps/v1,
// rbac.authorization.k8s.io/v1), and the model/log storage helper shared by
// every workload that reads a gs://, s3:// or pvc:// path.
//
// Every builder takes the object's name, namespace and labels; the
// cluster-scoped ones (ClusterRole, ClusterRoleBinding) take no namespace.
local util = import 'kubeflow/common/util.libsonnet';

{
  metadata(name, namespace, labels, annotations={}):: {
    name: name,
    labels: labels,
  } + (if namespace == null then {} else { namespace: namespace })
  + (if util.isNone(annotations) || annotations == {} then {} else { annotations: annotations }),

  serviceAccount(name, namespace, labels):: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: $.metadata(name, namespace, labels),
  },

  configMap(name, namespace, labels, data):: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: $.metadata(name, namespace, labels),
    // ConfigMap values must be strings.
    data: { [k]: if std.isString(data[k]) then data[k] else std.manifestJsonEx(data[k], '  ') for k in std.objectFields(data) },
  },

  // A PersistentVolumeClaim of `size` (e.g. "10Gi"); storageClass null = the cluster default.
  pvc(name, namespace, labels, size, storageClass=null, accessModes=['ReadWriteOnce']):: {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: $.metadata(name, namespace, labels),
    spec: {
      accessModes: accessModes,
      resources: { requests: { storage: size } },
    } + (if util.isNone(storageClass) then {} else { storageClassName: storageClass }),
  },

  role(name, namespace, labels, rules):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: $.metadata(name, namespace, labels),
    rules: rules,
  },

  clusterRole(name, labels, rules):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: $.metadata(name, null, labels),
    rules: rules,
  },

  // A RoleBinding of Role `roleName` to ServiceAccount `saName` of `namespace`.
  roleBinding(name, namespace, labels, roleName, saName, roleKind='Role'):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: $.metadata(name, namespace, labels),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects: [{ kind: 'ServiceAccount', name: saName, namespace: namespace }],
  },

  clusterRoleBinding(name, labels, clusterRoleName, saName, saNamespace):: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: $.metadata(name, null, labels),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRoleName },
    subjects: [{ kind: 'ServiceAccount', name: saName, namespace: saNamespace }],
  },

  // An apps/v1 Deployment whose selector is `selector` (default: `labels`);
  // the pod template carries `labels` plus `podLabels` and `podAnnotations`.
  deployment(name, namespace, labels, podSpec, replicas=1, selector=null, podLabels={}, podAnnotations={}, strategy=null):: {
    local sel = if selector == null then labels else selector,
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: $.metadata(name, namespace, labels),
    spec: {
      replicas: util.toInt(replicas, 'replicas'),
      selector: { matchLabels: sel },
      template: {
        metadata: { labels: labels + sel + podLabels }
                  + (if podAnnotations == {} then {} else { annotations: podAnnotations }),
        spec: podSpec,
      },
    } + (if strategy == null then {} else { strategy: strategy }),
  },

  serviceTypes:: ['ClusterIP', 'NodePort', 'LoadBalancer'],

  // The service type param, checked (default ClusterIP).
  serviceType(v, what='serviceType')::
    local t = util.oneOf(v, $.serviceTypes, what);
    if t == null then 'ClusterIP' else t,

  // A Service port; targetPort defaults to the port.
  port(name, port, targetPort=null, protocol='TCP'):: {
    name: name,
    port: util.toInt(port, name + ' port'),
    targetPort: if targetPort == null then self.port else targetPort,
    protocol: protocol,
  },

  service(name, namespace, labels, selector, ports, type='ClusterIP', annotations={}):: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: $.metadata(name, namespace, labels, annotations),
    spec: {
      type: $.serviceType(type),
      selector: selector,
      ports: ports,
    },
  },

  // A container port. The protocol is written out: server-side apply on servers before
  // it defaulted the key (1.20) refuses a port list entry without it.
  containerPort(name, port):: { name: name, containerPort: util.toInt(port, name + ' port'), protocol: 'TCP' },

  // An env var read from a Secret key.
  secretEnv(name, secret, key):: {
    name: name,
    valueFrom: { secretKeyRef: { name: secret, key: key } },
  },

  // An env var read from a pod field (e.g. metadata.namespace).
  fieldEnv(name, path):: { name: name, valueFrom: { fieldRef: { fieldPath: path } } },

  // An object from an object, a JSON string ('{"a":1}', as `kf param set`
  // may store it) or a "k=v,k2=v2" string; {} when not set.
  asObject(v, what='value')::
    if std.isString(v) && std.startsWith(std.stripChars(v, ' '), '{') then
      local o = std.parseJson(v);
      if std.isObject(o) then o else error '%s: expected a JSON object' % what
    else util.kvObject(v, what),

  // An array from an array, a JSON string ('[1,2]') or a comma-separated string.
  asArray(v, what='value')::
    if std.isString(v) && std.startsWith(std.stripChars(v, ' '), '[') then
      local a = std.parseJson(v);
      if std.isArray(a) then a else error '%s: expected a JSON array' % what
    else util.toArray(v, what),

  // Container resources from a `resources` param (object or JSON string),
  // checked to hold only requests and limits.
  resources(v, what='resources')::
    local r = $.asObject(v, what);
    local bad = [k for k in std.objectFields(r) if !std.member(['requests', 'limits'], k)];
    if bad != [] then error '%s: unknown field(s) %s (only requests and limits)' % [what, std.join(', ', bad)]
    else r,

  // ---------------------------------------------------------------------
  // Routes to a Service, for the packages that offer an optional Ambassador
  // or Istio route next to their Service (tf-serving, jupyterhub, ...).
  routes:: {
    // An Emissary-ingress 3.x Mapping (getambassador.io/v3alpha1).
    mapping(name, namespace, labels, prefix, service, rewrite=null, timeoutMs=null, hostname='*', extra={}):: {
      apiVersion: 'getambassador.io/v3alpha1',
      kind: 'Mapping',
      metadata: $.metadata(name, namespace, labels),
      spec: util.prune({
        hostname: if util.isNone(hostname) then '*' else hostname,
        prefix: prefix,
        service: service,
        // Emissary rewrites the prefix to "/" unless told otherwise.
        rewrite: if rewrite == null then null else rewrite,
        timeout_ms: util.optInt(timeoutMs, 'timeoutMs'),
      }) + extra,
    },

    // An Istio VirtualService (networking.istio.io/v1) sending `prefix` on
    // `gateways` to host:port, the prefix rewritten to `rewrite` when given.
    // weights: [{subset, weight}] for a weighted split between DestinationRule subsets
    // (a canary); [] sends everything to the host.
    virtualService(name, namespace, labels, hosts, gateways, prefix, host, port, rewrite=null, timeout=null, weights=[]):: {
      apiVersion: 'networking.istio.io/v1',
      kind: 'VirtualService',
      metadata: $.metadata(name, namespace, labels),
      spec: {
        hosts: hosts,
        gateways: gateways,
        http: [util.prune({
          match: [{ uri: { prefix: prefix } }],
          rewrite: if util.isNone(rewrite) then null else { uri: rewrite },
          route: if weights == [] then [{ destination: { host: host, port: { number: util.toInt(port, 'port') } } }]
          else [
            { destination: { host: host, port: { number: util.toInt(port, 'port') }, subset: w.subset }, weight: w.weight }
            for w in weights
          ],
          timeout: util.toStringOrNull(timeout),
        })],
      },
    },

    // An Istio DestinationRule with one subset per version label value.
    destinationRule(name, namespace, labels, host, versions):: {
      apiVersion: 'networking.istio.io/v1',
      kind: 'DestinationRule',
      metadata: $.metadata(name, namespace, labels),
      spec: {
        host: host,
        subsets: [{ name: v, labels: { version: v } } for v in versions],
      },
    },

    // An Istio Gateway (networking.istio.io/v1) on the ingress gateway pods
    // `selector`: HTTP on 80, and HTTPS on 443 when tlsSecret is given.
    gateway(name, namespace, labels, hosts, selector={ istio: 'ingressgateway' }, tlsSecret=null):: {
      apiVersion: 'networking.istio.io/v1',
      kind: 'Gateway',
      metadata: $.metadata(name, namespace, labels),
      spec: {
        selector: selector,
        servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: hosts }]
                 + (if util.isNone(tlsSecret) then [] else [{
                      port: { number: 443, name: 'https', protocol: 'HTTPS' },
                      hosts: hosts,
                      tls: { mode: 'SIMPLE', credentialName: tlsSecret },
                    }]),
      },
    },
  },

  // ---------------------------------------------------------------------
  // Storage of models and logs.
  //
  // storage.parse(uri) splits "gs://b/p", "s3://b/p", "pvc://claim/sub/path"
  // or a local path into {scheme, claim, subPath}.
  //
  // storage.mount(uri, params, what, mountPath) gives everything a container
  // needs to read `uri`: {path, env, volumes, volumeMounts}. It reads:
  //   pvcName                     a claim mounted at mountPath when the uri is a local path
  //   s3SecretName, s3AccessKeyIdKey, s3SecretAccessKeyKey   AWS credentials (Secret)
  //   s3Endpoint, s3Region, s3UseHttps, s3VerifySsl          S3 / MinIO endpoint
  //   gcpCredentialSecretName, gcpCredentialKey              GCP service-account key (Secret)
  storage:: {
    schemes:: ['gs', 's3', 'pvc'],

    parse(uri, what='path')::
      if util.isNone(uri) then error '%s: a path is required (gs://, s3://, pvc://claim/path or a local path)' % what
      else
        local parts = std.splitLimit(uri, '://', 1);
        if std.length(parts) == 1 then { scheme: 'file', path: uri }
        else if !std.member(self.schemes, parts[0]) then
          error '%s: "%s" has an unsupported scheme %s:// (use gs://, s3://, pvc://claim/path or a local path)' % [what, uri, parts[0]]
        else if parts[0] == 'pvc' then
          local cp = std.splitLimit(parts[1], '/', 1);
          if cp[0] == '' then error '%s: "%s" names no claim (pvc://<claim>/<path>)' % [what, uri]
          else { scheme: 'pvc', claim: cp[0], subPath: if std.length(cp) == 2 then cp[1] else '' }
        else { scheme: parts[0], path: uri },

    local join(a, b) = if b == '' then a else std.rstripChars(a, '/') + '/' + std.lstripChars(b, '/'),

    // s3:// for readers whose image cannot read S3 itself (TF Serving dropped its S3
    // file system in 2.7; TensorFlow 2.6+ moved it to tensorflow-io): an init container
    // copies the objects into an emptyDir before the server starts, and a sidecar syncs
    // again every s3SyncSeconds so new model versions and log files show up. With
    // versions=true each numbered version directory appears whole (copied under a dot
    // name, then renamed), so TF Serving never loads a half-copied version.
    s3SyncImage:: 'amazon/aws-cli:2.17.0',

    s3Sync(p, params, mountPath, versions)::
      local secret = util.get(params, 's3SecretName');
      local endpoint = util.get(params, 's3Endpoint');
      local https = util.toBool(util.get(params, 's3UseHttps', true), 's3UseHttps');
      local verify = util.toBool(util.get(params, 's3VerifySsl', true), 's3VerifySsl');
      local every = util.toInt(util.get(params, 's3SyncSeconds', 60), 's3SyncSeconds');
      local flags = (if util.isNone(endpoint) then '' else ' --endpoint-url %s://%s' % [if https then 'https' else 'http', endpoint])
                    + (if verify then '' else ' --no-verify-ssl');
      local staging = '/mnt/s3-staging';
      local sync =
        if versions then
          'aws s3 sync %s %s --only-show-errors%s && for v in %s/*/; do n=$(basename "$v"); [ -e "%s/$n" ] || { cp -r "$v" "%s/.$n.tmp" && mv "%s/.$n.tmp" "%s/$n"; }; done'
          % [p.path, staging, flags, staging, mountPath, mountPath, mountPath, mountPath]
        else 'aws s3 sync %s %s --only-show-errors%s' % [p.path, mountPath, flags];
      local env = (if util.isNone(secret) then [] else [
                     $.secretEnv('AWS_ACCESS_KEY_ID', secret, util.get(params, 's3AccessKeyIdKey', 'AWS_ACCESS_KEY_ID')),
                     $.secretEnv('AWS_SECRET_ACCESS_KEY', secret, util.get(params, 's3SecretAccessKeyKey', 'AWS_SECRET_ACCESS_KEY')),
                   ])
                  + [{ name: 'AWS_DEFAULT_REGION', value: util.get(params, 's3Region', 'us-east-1') }];
      local mounts = [{ name: 'store', mountPath: mountPath }]
                     + (if versions then [{ name: 's3-staging', mountPath: staging }] else []);
      local container(name, script) = {
        name: name,
        image: util.get(params, 's3SyncImage', $.storage.s3SyncImage),
        command: ['/bin/sh', '-c', script],
        env: env,
        volumeMounts: mounts,
      };
      {
        path: mountPath,
        env: [],
        volumes: [{ name: 'store', emptyDir: {} }]
                 + (if versions then [{ name: 's3-staging', emptyDir: {} }] else []),
        volumeMounts: [{ name: 'store', mountPath: mountPath, readOnly: true }],
        initContainers: [container('s3-sync-init', sync)],
        sidecars: [container('s3-sync', 'while true; do sleep %d; %s; done' % [every, sync])],
      },

    // sync=true: read s3:// through s3Sync (unless s3Mode is native).
    mount(uri, params, what='path', mountPath='/mnt/store', readOnly=true, sync=false, versions=false)::
      local p = self.parse(uri, what);
      local pvcName = util.get(params, 'pvcName');
      local volName = 'store';
      local mode = util.oneOf(util.get(params, 's3Mode', 'sync'), ['sync', 'native'], 's3Mode');
      { initContainers: [], sidecars: [] } +
      if p.scheme == 's3' && sync && mode == 'sync' then self.s3Sync(p, params, mountPath, versions)
      else if p.scheme == 'pvc' then {
        path: join(mountPath, p.subPath),
        env: [],
        volumes: [{ name: volName, persistentVolumeClaim: { claimName: p.claim, readOnly: readOnly } }],
        volumeMounts: [{ name: volName, mountPath: mountPath, readOnly: readOnly }],
      }
      else if p.scheme == 'file' then {
        local onClaim = !util.isNone(pvcName),
        // A relative path lies on the claim.
        path: if onClaim && !std.startsWith(p.path, '/') then join(mountPath, p.path) else p.path,
        env: [],
        volumes: if onClaim then [{ name: volName, persistentVolumeClaim: { claimName: pvcName, readOnly: readOnly } }] else [],
        volumeMounts: if onClaim then [{ name: volName, mountPath: mountPath, readOnly: readOnly }] else [],
      }
      else if p.scheme == 's3' then {
        local secret = util.get(params, 's3SecretName'),
        local endpoint = util.get(params, 's3Endpoint'),
        path: p.path,
        env: (if util.isNone(secret) then [] else [
               $.secretEnv('AWS_ACCESS_KEY_ID', secret, util.get(params, 's3AccessKeyIdKey', 'AWS_ACCESS_KEY_ID')),
               $.secretEnv('AWS_SECRET_ACCESS_KEY', secret, util.get(params, 's3SecretAccessKeyKey', 'AWS_SECRET_ACCESS_KEY')),
             ])
             + [{ name: 'AWS_REGION', value: util.get(params, 's3Region', 'us-east-1') }]
             + (if util.isNone(endpoint) then [] else [{ name: 'S3_ENDPOINT', value: endpoint }])
             + [
               { name: 'S3_USE_HTTPS', value: if util.toBool(util.get(params, 's3UseHttps', true), 's3UseHttps') then '1' else '0' },
               { name: 'S3_VERIFY_SSL', value: if util.toBool(util.get(params, 's3VerifySsl', true), 's3VerifySsl') then '1' else '0' },
             ],
        volumes: [],
        volumeMounts: [],
      }
      else {
        // gs://: a service-account key when one is given; else the node's or
        // the workload identity's credentials.
        local secret = util.get(params, 'gcpCredentialSecretName'),
        local dir = '/secret/gcp-credentials',
        path: p.path,
        env: if util.isNone(secret) then [] else [{
          name: 'GOOGLE_APPLICATION_CREDENTIALS',
          value: dir + '/' + util.get(params, 'gcpCredentialKey', 'key.json'),
        }],
        volumes: if util.isNone(secret) then [] else [{ name: 'gcp-credentials', secret: { secretName: secret } }],
        volumeMounts: if util.isNone(secret) then [] else [{ name: 'gcp-credentials', mountPath: dir, readOnly: true }],
      },
  },
}
