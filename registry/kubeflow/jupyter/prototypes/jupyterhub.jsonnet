// @apiVersion 0.1
// @name io.ksonnet.pkg.jupyterhub
// @description JupyterHub with KubeSpawner: the hub and configurable-http-proxy Deployments, a ConfigMap holding jupyterhub_config.py and its settings, the hub, proxy-api and proxy-public Services, the spawner's ServiceAccount, Role and RoleBinding, and a PVC for the hub database (storage=false: an emptyDir). Users pick a server profile: CPU only, or one per GPU count (gpuProfiles, e.g. [1,2,4], or numGpus), each GPU profile with gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations. Idle servers are culled after cullTimeout seconds (jupyterhub-idle-culler; idle GPU notebooks hold GPUs). User homes are writable (uid 1000, fs_gid 100, as z2jh). The proxy token Secret (proxyTokenSecret, key token) is created with a random token by the hub's init container when absent. With the google authenticator, allowedGroups names hosted domains whose users are admitted.
// @shortDescription JupyterHub (KubeSpawner) with GPU notebook profiles.
// @requires For github, gitlab or google login: the OAuth client Secret named by oauthClientSecretName (key client-secret)
// @requires A default StorageClass, or storageClass/userStorageClass, for the hub database and user homes
// @param name string Name prefix of the objects (e.g. jupyterhub)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam hubImage string quay.io/jupyterhub/k8s-hub:4.0.0 Hub image (JupyterHub + KubeSpawner + OAuthenticator)
// @optionalParam proxyImage string quay.io/jupyterhub/configurable-http-proxy:4.6.2 Proxy image
// @optionalParam proxyTokenSecret string null Secret with key "token" shared by hub and proxy (default: <name>-proxy-token)
// @optionalParam createProxyToken boolean true Create the proxy token Secret with a random token when it does not exist
// @optionalParam notebookImage string quay.io/jupyter/scipy-notebook:latest Notebook image of CPU servers
// @optionalParam gpuImage string quay.io/jupyter/pytorch-notebook:cuda12-latest Notebook image of GPU profiles
// @optionalParam numGpus integer 0 GPUs of the one GPU profile offered when gpuProfiles is empty
// @optionalParam gpuProfiles array [] GPU counts offered as profiles, e.g. [1,2,4]
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector of GPU profiles (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations of GPU profiles (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam cpuGuarantee string null CPU guaranteed to each server (e.g. 0.5)
// @optionalParam memGuarantee string null Memory guaranteed to each server (e.g. 1G)
// @optionalParam userStorageSize string 10Gi Size of each user's home PVC (null: no persistent home)
// @optionalParam userStorageClass string null Storage class of home PVCs (default: the cluster's)
// @optionalParam notebookServiceAccount string null Service account of user servers
// @optionalParam fsGid integer 100 Group owning user home volumes (the notebook images' users group)
// @optionalParam cullIdle boolean true Stop servers idle for cullTimeout seconds
// @optionalParam cullTimeout integer 3600 Seconds of inactivity before a server is stopped
// @optionalParam cullEvery integer 600 Seconds between idle checks
// @optionalParam startTimeout integer 300 Seconds a server may take to start
// @optionalParam defaultUrl string /lab Page a server opens on
// @optionalParam baseUrl string / URL prefix of the hub (e.g. /jupyter/ behind a route)
// @optionalParam authenticator string dummy Authenticator: dummy (any name, no password), github, gitlab or google
// @optionalParam oauthClientId string null OAuth client id (github, gitlab, google)
// @optionalParam oauthClientSecretName string null Secret with key client-secret holding the OAuth client secret
// @optionalParam oauthCallbackUrl string null OAuth callback URL (https://<host>/hub/oauth_callback)
// @optionalParam allowedGroups array null GitHub organizations, GitLab groups or Google hosted domains allowed in
// @optionalParam allowedUsers array null Users allowed in (JSON array, or separated by spaces)
// @optionalParam adminUsers array null Admin users (JSON array, or separated by spaces)
// @optionalParam allowAll boolean null Let every authenticated user in (default: true for dummy, false otherwise)
// @optionalParam hubResources object {} Hub container resources
// @optionalParam storage boolean true Keep the hub database on a PVC (false: an emptyDir, lost on restart)
// @optionalParam storageSize string 1Gi Size of the hub database PVC
// @optionalParam storageClass string null Storage class of the hub database PVC
// @optionalParam serviceType string ClusterIP Type of the proxy-public Service: ClusterIP, NodePort or LoadBalancer
// @optionalParam extraConfig string null Python appended to jupyterhub_config.py

local jupyterhub = import 'kubeflow/jupyter/jupyterhub.libsonnet';

jupyterhub.all(params, env)
