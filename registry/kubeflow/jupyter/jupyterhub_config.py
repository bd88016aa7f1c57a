# JupyterHub configuration written by kf's jupyterhub prototype.
# The hub and the configurable-http-proxy run in separate Deployments; user
# servers are started by KubeSpawner in the hub's namespace. Everything a
# component param can change is in settings.json, next to this file.
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, 'settings.json')) as f:
    settings = json.load(f)

c = get_config()  # noqa: F821 (provided by JupyterHub)

# Hub and proxy
c.JupyterHub.hub_bind_url = 'http://:%d' % settings['hubPort']
c.JupyterHub.hub_connect_url = settings['hubUrl']
c.JupyterHub.base_url = settings['baseUrl']
c.JupyterHub.db_url = 'sqlite:///jupyterhub.sqlite'
c.JupyterHub.cleanup_servers = False
c.ConfigurableHTTPProxy.should_start = False
c.ConfigurableHTTPProxy.api_url = settings['proxyApiUrl']
c.ConfigurableHTTPProxy.auth_token = os.environ['CONFIGPROXY_AUTH_TOKEN']

# Authentication
auth = settings['auth']
c.JupyterHub.authenticator_class = auth['class']
if auth['adminUsers']:
    c.Authenticator.admin_users = set(auth['adminUsers'])
if auth['allowedUsers']:
    c.Authenticator.allowed_users = set(auth['allowedUsers'])
c.Authenticator.allow_all = auth['allowAll']
if auth.get('oauth'):
    oauth = auth['oauth']
    c.OAuthenticator.client_id = oauth['clientId']
    c.OAuthenticator.client_secret = os.environ['OAUTH_CLIENT_SECRET']
    if oauth.get('callbackUrl'):
        c.OAuthenticator.oauth_callback_url = oauth['callbackUrl']
    if oauth.get('allowedOrganizations'):
        c.GitHubOAuthenticator.allowed_organizations = set(oauth['allowedOrganizations'])
    if oauth.get('allowedGroups'):
        c.GitLabOAuthenticator.allowed_gitlab_groups = set(oauth['allowedGroups'])
    if oauth.get('hostedDomains'):
        c.GoogleOAuthenticator.hosted_domain = oauth['hostedDomains']

# Spawner
spawner = settings['spawner']
c.JupyterHub.spawner_class = 'kubespawner.KubeSpawner'
c.KubeSpawner.namespace = os.environ['POD_NAMESPACE']
c.KubeSpawner.image = spawner['image']
c.KubeSpawner.start_timeout = spawner['startTimeout']
c.KubeSpawner.http_timeout = 60
c.KubeSpawner.default_url = spawner['defaultUrl']
c.KubeSpawner.common_labels = {'app': settings['name'], 'component': 'singleuser-server'}
# The notebook images run as jovyan (uid 1000, group users = 100): with fs_gid the home
# volume is group-owned by 100, so a fresh PVC is writable (z2jh's singleuser.uid/fsGid).
c.KubeSpawner.uid = spawner['uid']
c.KubeSpawner.fs_gid = spawner['fsGid']
c.KubeSpawner.supplemental_gids = [spawner['fsGid']]
if spawner.get('cpuGuarantee'):
    c.KubeSpawner.cpu_guarantee = float(spawner['cpuGuarantee'])
if spawner.get('memGuarantee'):
    c.KubeSpawner.mem_guarantee = spawner['memGuarantee']
if spawner.get('serviceAccount'):
    c.KubeSpawner.service_account = spawner['serviceAccount']
if spawner.get('storage'):
    storage = spawner['storage']
    c.KubeSpawner.storage_pvc_ensure = True
    c.KubeSpawner.pvc_name_template = 'claim-{username}{servername}'
    c.KubeSpawner.storage_capacity = storage['size']
    if storage.get('storageClass'):
        c.KubeSpawner.storage_class = storage['storageClass']
    c.KubeSpawner.volumes = [{
        'name': 'home',
        'persistentVolumeClaim': {'claimName': 'claim-{username}{servername}'},
    }]
    c.KubeSpawner.volume_mounts = [{'name': 'home', 'mountPath': storage['mountPath']}]

# One profile per GPU count: a profile's kubespawner_override holds its
# image, GPU limit, node selector and tolerations.
if spawner['profiles']:
    c.KubeSpawner.profile_list = spawner['profiles']

# Idle servers are stopped (an idle GPU notebook holds its GPUs): jupyterhub-idle-culler,
# shipped in the k8s-hub image, as a hub-managed service with only the scopes it needs.
culler = settings['culler']
if culler:
    c.JupyterHub.load_roles = [{
        'name': 'jupyterhub-idle-culler',
        'scopes': ['list:users', 'read:users:activity', 'read:servers', 'delete:servers'],
        'services': ['jupyterhub-idle-culler'],
    }]
    c.JupyterHub.services = [{
        'name': 'jupyterhub-idle-culler',
        'command': [
            sys.executable, '-m', 'jupyterhub_idle_culler',
            '--timeout=%d' % culler['timeout'],
            '--cull-every=%d' % culler['every'],
            '--concurrency=10',
        ],
    }]

# Free-form additions (the extraConfig param).
exec(settings.get('extraConfig') or '')
