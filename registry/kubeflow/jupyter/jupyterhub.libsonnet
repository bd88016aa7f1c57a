// JupyterHub on Kubernetes: the hub (JupyterHub + KubeSpawner), a
// configurable-http-proxy, their Services, the spawner's RBAC and an
// optional PVC for the hub database.
//
// Objects (for name N):
//   ConfigMap N-config          jupyterhub_config.py + settings.json (from params)
//   Deployment N-hub            JupyterHub, reads the ConfigMap, sqlite in /srv/jupyterhub
//   Deployment N-proxy          configurable-http-proxy
//   Service N-hub (8081), N-proxy-api (8001), N-proxy-public (80 → 8000, serviceType)
//   ServiceAccount/Role/RoleBinding N-hub   what KubeSpawner needs in the namespace
//   PersistentVolumeClaim N-hub-db          unless storage=false
// The proxy's auth token is the Secret proxyTokenSecret (key "token"), created by the
// hub's init container when absent (createProxyToken).
local gpu = import 'kubeflow/common/gpu.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  hubPort:: 8081,
  proxyPort:: 8000,
  proxyApiPort:: 8001,
  configDir:: '/etc/jupyterhub',
  dataDir:: '/srv/jupyterhub',

  // Authenticator param → JupyterHub authenticator class (entry-point names).
  authenticators:: {
    dummy: 'dummy',
    github: 'github',
    gitlab: 'gitlab',
    google: 'google',
  },

  labels(name, component):: util.labels(name, { component: component }),

  // The GPU counts offered as profiles: gpuProfiles, else numGpus when > 0.
  gpuCounts(params)::
    local listed = k8s.asArray(util.get(params, 'gpuProfiles', []), 'gpuProfiles');
    local counts = [gpu.count(c, 'gpuProfiles') for c in listed];
    local n = gpu.settings(params).count;
    local all = if counts != [] then counts else if n > 0 then [n] else [];
    std.uniq(std.sort([c for c in all if c > 0])),

  // KubeSpawner profile_list: a CPU profile (the default) and one per GPU count.
  profiles(params)::
    local g = gpu.settings(params);
    local counts = $.gpuCounts(params);
    local image = util.get(params, 'notebookImage', 'quay.io/jupyter/scipy-notebook:latest');
    if counts == [] then []
    else [{
      display_name: 'CPU only',
      slug: 'cpu',
      description: image,
      default: true,
      kubespawner_override: { image: image },
    }] + [
      local gpuImage = gpu.image(c, image, util.get(params, 'gpuImage'));
      {
        display_name: '%d GPU%s (%s)' % [c, if c == 1 then '' else 's', g.resource],
        slug: 'gpu-%d' % c,
        description: gpuImage,
        kubespawner_override: util.prune({
          image: gpuImage,
          extra_resource_limits: { [g.resource]: std.toString(c) },
          node_selector: gpu.nodeSelector(c, g.nodeSelector, 'gpuNodeSelector'),
          tolerations: gpu.tolerations(c, g.resource, g.tolerations, 'gpuTolerations'),
        }),
      }
      for c in counts
    ],

  auth(params)::
    local kind = util.get(params, 'authenticator', 'dummy');
    local cls = if std.objectHas($.authenticators, kind) then $.authenticators[kind]
    else error 'authenticator: "%s" is not one of %s' % [kind, std.join(', ', std.objectFields($.authenticators))];
    local oauth = kind != 'dummy';
    // Google's hosted_domain only restricts who may try: with no allow-list, everyone of
    // the named domains is admitted (OAuthenticator 16 admits nobody otherwise).
    local domains = kind == 'google' && util.toArray(util.get(params, 'allowedGroups')) != [];
    local allowAll = util.toBool(util.get(params, 'allowAll', kind == 'dummy' || (domains && util.toArray(util.get(params, 'allowedUsers')) == [])), 'allowAll');
    {
      class: cls,
      adminUsers: util.toArray(util.get(params, 'adminUsers')),
      allowedUsers: util.toArray(util.get(params, 'allowedUsers')),
      allowAll: allowAll,
      oauth: if !oauth then null else
        if util.isNone(util.get(params, 'oauthClientId')) then error 'oauthClientId: required by the %s authenticator' % kind
        else if util.isNone(util.get(params, 'oauthClientSecretName')) then error 'oauthClientSecretName: required by the %s authenticator (a Secret with key client-secret)' % kind
        else {
          clientId: params.oauthClientId,
          callbackUrl: util.get(params, 'oauthCallbackUrl'),
          allowedOrganizations: if kind == 'github' then util.toArray(util.get(params, 'allowedGroups')) else [],
          allowedGroups: if kind == 'gitlab' then util.toArray(util.get(params, 'allowedGroups')) else [],
          hostedDomains: if kind == 'google' then util.toArray(util.get(params, 'allowedGroups')) else [],
        },
    },

  settings(params, env)::
    local name = params.name;
    local storage = util.get(params, 'userStorageSize');
    {
      name: name,
      hubPort: $.hubPort,
      hubUrl: 'http://%s-hub:%d' % [name, $.hubPort],
      proxyApiUrl: 'http://%s-proxy-api:%d' % [name, $.proxyApiPort],
      baseUrl: util.get(params, 'baseUrl', '/'),
      auth: $.auth(params),
      spawner: {
        image: util.get(params, 'notebookImage', 'quay.io/jupyter/scipy-notebook:latest'),
        startTimeout: util.toInt(util.get(params, 'startTimeout', 300), 'startTimeout'),
        defaultUrl: util.get(params, 'defaultUrl', '/lab'),
        cpuGuarantee: util.toStringOrNull(util.get(params, 'cpuGuarantee')),
        memGuarantee: util.toStringOrNull(util.get(params, 'memGuarantee')),
        serviceAccount: util.get(params, 'notebookServiceAccount'),
        storage: if util.isNone(storage) then null else {
          size: storage,
          storageClass: util.get(params, 'userStorageClass'),
          mountPath: '/home/jovyan',
        },
        profiles: $.profiles(params),
        uid: 1000,
        fsGid: util.toInt(util.get(params, 'fsGid', 100), 'fsGid'),
      },
      culler: if util.toBool(util.get(params, 'cullIdle', true), 'cullIdle') then {
        timeout: util.toInt(util.get(params, 'cullTimeout', 3600), 'cullTimeout'),
        every: util.toInt(util.get(params, 'cullEvery', 600), 'cullEvery'),
      } else null,
      extraConfig: util.get(params, 'extraConfig', ''),
    },

  spawnerRules:: [
    { apiGroups: [''], resources: ['pods', 'persistentvolumeclaims', 'secrets', 'services'], verbs: ['get', 'watch', 'list', 'create', 'delete'] },
    { apiGroups: [''], resources: ['events'], verbs: ['get', 'watch', 'list'] },
  ],

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local hubLabels = $.labels(name, 'hub');
    local proxyLabels = $.labels(name, 'proxy');
    local tokenSecret = util.get(params, 'proxyTokenSecret', name + '-proxy-token');
    local tokenEnv = k8s.secretEnv('CONFIGPROXY_AUTH_TOKEN', tokenSecret, 'token');
    local settings = $.settings(params, env);
    local storage = util.toBool(util.get(params, 'storage', true), 'storage');
    local createToken = util.toBool(util.get(params, 'createProxyToken', true), 'createProxyToken');
    local hub = {
      name: 'hub',
      image: util.get(params, 'hubImage', 'quay.io/jupyterhub/k8s-hub:4.0.0'),
      command: ['jupyterhub', '--config', $.configDir + '/jupyterhub_config.py'],
      workingDir: $.dataDir,
      env: [k8s.fieldEnv('POD_NAMESPACE', 'metadata.namespace'), tokenEnv]
           + (if settings.auth.oauth == null then []
              else [k8s.secretEnv('OAUTH_CLIENT_SECRET', params.oauthClientSecretName, 'client-secret')]),
      ports: [k8s.containerPort('http', $.hubPort)],
      readinessProbe: { httpGet: { path: std.rstripChars(settings.baseUrl, '/') + '/hub/health', port: 'http' }, periodSeconds: 10 },
      volumeMounts: [
        { name: 'config', mountPath: $.configDir, readOnly: true },
        { name: 'data', mountPath: $.dataDir },
      ],
      resources: k8s.resources(util.get(params, 'hubResources', {})),
    };
    local proxy = {
      name: 'chp',
      image: util.get(params, 'proxyImage', 'quay.io/jupyterhub/configurable-http-proxy:4.6.2'),
      command: [
        'configurable-http-proxy',
        '--ip=',
        '--api-ip=',
        '--api-port=%d' % $.proxyApiPort,
        '--port=%d' % $.proxyPort,
        '--default-target=' + settings.hubUrl,
        '--error-target=%s%shub/error' % [settings.hubUrl, std.rstripChars(settings.baseUrl, '/') + '/'],
      ],
      env: [tokenEnv],
      ports: [k8s.containerPort('http', $.proxyPort), k8s.containerPort('api', $.proxyApiPort)],
      readinessProbe: { httpGet: { path: '/_chp_healthz', port: 'http' }, periodSeconds: 10 },
    };
    util.list([
      k8s.configMap(name + '-config', ns, util.labels(name), {
        'jupyterhub_config.py': importstr 'jupyterhub_config.py',
        'ensure_proxy_token.py': importstr 'ensure_proxy_token.py',
        'settings.json': std.manifestJsonEx(settings, '  ') + '\n',
      }),
      k8s.serviceAccount(name + '-hub', ns, hubLabels),
      k8s.role(name + '-hub', ns, hubLabels, $.spawnerRules),
      k8s.roleBinding(name + '-hub', ns, hubLabels, name + '-hub', name + '-hub'),
      if storage then k8s.pvc(name + '-hub-db', ns, hubLabels, util.get(params, 'storageSize', '1Gi'), util.get(params, 'storageClass')),
      k8s.deployment(name + '-hub', ns, hubLabels, {
        serviceAccountName: name + '-hub',
        securityContext: { fsGroup: 1000 },
        // The proxy token Secret is made on first start when absent (a random token, never
        // in the render): hub and proxy wait for it through their secretKeyRef.
        [if createToken then 'initContainers']: [{
          name: 'proxy-token',
          image: hub.image,
          command: ['python3', $.configDir + '/ensure_proxy_token.py'],
          env: [
            k8s.fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
            { name: 'TOKEN_SECRET', value: tokenSecret },
          ],
          volumeMounts: [{ name: 'config', mountPath: $.configDir, readOnly: true }],
        }],
        containers: [util.prune(hub)],
        volumes: [
          { name: 'config', configMap: { name: name + '-config' } },
          if storage then { name: 'data', persistentVolumeClaim: { claimName: name + '-hub-db' } }
          else { name: 'data', emptyDir: {} },
        ],
      }, strategy={ type: 'Recreate' }, podAnnotations={
        // Roll the hub when its configuration changes.
        'kf.io/config-hash': std.md5(std.manifestJson(settings)),
      }),
      k8s.deployment(name + '-proxy', ns, proxyLabels, { containers: [proxy] }),
      k8s.service(name + '-hub', ns, hubLabels, hubLabels, [k8s.port('http', $.hubPort, 'http')]),
      k8s.service(name + '-proxy-api', ns, proxyLabels, proxyLabels, [k8s.port('api', $.proxyApiPort, 'api')]),
      k8s.service(name + '-proxy-public', ns, proxyLabels, proxyLabels, [k8s.port('http', 80, 'http')],
                  util.get(params, 'serviceType', 'ClusterIP')),
    ]),
}
