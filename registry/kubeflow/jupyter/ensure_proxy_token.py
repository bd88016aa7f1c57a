# Run by the hub's init container (kf's jupyterhub prototype): make the Secret that
# holds the proxy's auth token when it does not exist yet, with a random token, so the
# token never appears in a rendered manifest. An existing Secret is left as it is.
# Uses kubernetes_asyncio, which the k8s-hub image has for KubeSpawner, and the hub's
# ServiceAccount, whose Role may get and create Secrets.
import asyncio
import os
import secrets

from kubernetes_asyncio import client, config


async def main():
    config.load_incluster_config()
    namespace = os.environ['POD_NAMESPACE']
    name = os.environ['TOKEN_SECRET']
    async with client.ApiClient() as api:
        core = client.CoreV1Api(api)
        try:
            await core.read_namespaced_secret(name, namespace)
            print('secret %s/%s exists' % (namespace, name))
            return
        except client.exceptions.ApiException as e:
            if e.status != 404:
                raise
        body = client.V1Secret(
            metadata=client.V1ObjectMeta(name=name),
            string_data={'token': secrets.token_hex(32)},
        )
        try:
            await core.create_namespaced_secret(namespace, body)
            print('created secret %s/%s' % (namespace, name))
        except client.exceptions.ApiException as e:
            # Another hub pod made it first.
            if e.status != 409:
                raise


asyncio.run(main())
