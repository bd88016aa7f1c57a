# JupyterHub configuration written by kf's jupyterhub prototype.
# The hub and the configurable-http-proxy run in separate Deployments; user
# servers are started by KubeSpawner in the hub's namespace. Everything a
# component param can change is in settings.json, next to this file.
import json
import os

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

# Free-form additions (the extraConfig param).
exec(settings.get('extraConfig') or '')
