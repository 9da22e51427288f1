"""ServiceAccounts: the controllers that furnish every namespace and the admission plugin that
gives every pod an identity.

- The ServiceAccount controller (pkg/controller/serviceaccount/serviceaccounts_controller.go)
  keeps a `default` ServiceAccount in every active namespace, created again when deleted.
- The root CA publisher (pkg/controller/certificates/rootcacertpublisher/publisher.go) keeps a
  `kube-root-ca.crt` ConfigMap in every active namespace: `data["ca.crt"]` the cluster CA, the
  `kubernetes.io/description` annotation; deleted or changed, it is put back.
- The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount/admission.go), on pod
  creation: `serviceAccountName` defaults to `default`; the ServiceAccount must exist (else 403,
  `error looking up service account NS/NAME: serviceaccount "NAME" not found`); unless the pod's
  or else the ServiceAccount's `automountServiceAccountToken` is false, a projected volume
  `kube-api-access-<5 chars>` (token expiring in 3607 s, `ca.crt` from kube-root-ca.crt, the
  namespace from the downward API; mode 420) is added and mounted read-only at
  /var/run/secrets/kubernetes.io/serviceaccount in every init and regular container that has no
  mount there; a pod without `imagePullSecrets` takes the ServiceAccount's.

kubesim runs both controllers as store listeners, so they act at once: a pod created right after
its namespace finds the `default` ServiceAccount (on a real cluster the plugin retries for it).
"""

import copy

from .controllers.common import random_suffix
from .machinery.errors import ApiError

DEFAULT = 'default'
ROOT_CA = 'kube-root-ca.crt'
TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount'
TOKEN_VOLUME_PREFIX = 'kube-api-access-'
# serviceaccount.WarnOnlyBoundTokenExpirationSeconds
TOKEN_EXPIRATION_SECONDS = 3607
DESCRIPTION = ('Contains a CA bundle that can be used to verify the kube-apiserver when using internal '
               'endpoints such as the internal service IP or kubernetes.default.svc. No other usage is '
               'guaranteed across distributions of Kubernetes clusters.')

# Published as the cluster CA when kubesim serves plain HTTP (there is no serving certificate to
# take it from): a self-signed certificate whose key was thrown away, valid until 2125.
PLAIN_HTTP_CA = b'''-----BEGIN CERTIFICATE-----
MIIBRzCB7aADAgECAgEBMAoGCCqGSM49BAMCMCAxHjAcBgNVBAMMFWt1YmVzaW0t
cGxhaW4taHR0cC1jYTAgFw0yNjAxMDEwMDAwMDBaGA8yMTI1MTIwODAwMDAwMFow
IDEeMBwGA1UEAwwVa3ViZXNpbS1wbGFpbi1odHRwLWNhMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAExMT76uaChAab23Qrsf7AzlnFLGYLFZDbMonocxk0gh5naXff
sF6cl+uq2tn0A9Wtk7xavbDbMMWLLRct2g6QwKMWMBQwEgYDVR0TAQH/BAgwBgEB
/wIBADAKBggqhkjOPQQDAgNJADBGAiEAq2f257Y8Egpr/NdKxF1kmDjIUosEe2BZ
g0zXrgYhZE4CIQD93Wx5lCZhe6aXG/faAS6k6XPsYRy2fomp8TmkcbDEmQ==
-----END CERTIFICATE-----
'''


def token_volume(name):
    """TokenVolumeSource(): the projected volume of the bound service account token."""
    return {'name': name, 'projected': {
        'sources': [
            {'serviceAccountToken': {'expirationSeconds': TOKEN_EXPIRATION_SECONDS, 'path': 'token'}},
            {'configMap': {'name': ROOT_CA, 'items': [{'key': 'ca.crt', 'path': 'ca.crt'}]}},
            {'downwardAPI': {'items': [{'path': 'namespace', 'fieldRef': {
                'apiVersion': 'v1', 'fieldPath': 'metadata.namespace'}}]}},
        ],
        'defaultMode': 420}}


class ServiceAccounts:
    """The two controllers (store listeners) and the admission plugin, for one store."""

    def __init__(self, store, ca_pem=None):
        self.store = store
        self.ca_pem = (ca_pem or PLAIN_HTTP_CA).decode()

    def attach(self):
        self.store.listeners.append(self.observe)
        self.store.mutating_admission.append(self.admit)
        for ns in self.store.list('/namespaces'):
            self.furnish(ns['metadata']['name'])

    # ---- the controllers ------------------------------------------------------------------------
    def _active(self, namespace):
        ns = self.store.get('/namespaces', '', namespace)
        return ns is not None and (ns.get('status') or {}).get('phase') != 'Terminating' \
            and not ns['metadata'].get('deletionTimestamp')

    def furnish(self, namespace):
        """Create what a namespace lacks: the `default` ServiceAccount, the root CA ConfigMap."""
        if not self._active(namespace):
            return
        if self.store.get('/serviceaccounts', namespace, DEFAULT) is None:
            self.store.create('/serviceaccounts', {'apiVersion': 'v1', 'kind': 'ServiceAccount',
                                                   'metadata': {'name': DEFAULT, 'namespace': namespace}})
        current = self.store.get('/configmaps', namespace, ROOT_CA)
        wanted = {'ca.crt': self.ca_pem}
        if current is None:
            meta = {'name': ROOT_CA, 'namespace': namespace,
                    'annotations': {'kubernetes.io/description': DESCRIPTION}}
            self.store.create('/configmaps', {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': meta,
                                              'data': wanted})
        elif current.get('data') != wanted or (current['metadata'].get('annotations') or {}).get(
                'kubernetes.io/description') != DESCRIPTION:
            current['data'] = wanted
            current.pop('binaryData', None)
            current['metadata'].setdefault('annotations', {})['kubernetes.io/description'] = DESCRIPTION
            self.store.update('/configmaps', current)

    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        if resource == '/namespaces' and event_type == 'ADDED':
            self.store.defer(self.furnish, meta['name'])
        elif (resource == '/serviceaccounts' and meta['name'] == DEFAULT and event_type == 'DELETED') or (
                resource == '/configmaps' and meta['name'] == ROOT_CA and event_type != 'ADDED'):
            self.store.defer(self.furnish, meta.get('namespace', ''))

    # ---- the admission plugin -------------------------------------------------------------------
    def admit(self, store, resource, obj, old):
        if resource != '/pods' or old is not None:
            return
        meta, spec = obj['metadata'], obj.setdefault('spec', {})
        if 'kubernetes.io/config.mirror' in (meta.get('annotations') or {}):
            return
        name = spec.get('serviceAccountName') or DEFAULT
        spec['serviceAccountName'] = spec['serviceAccount'] = name
        account = store.get('/serviceaccounts', meta.get('namespace', ''), name)
        if account is None:
            raise ApiError.forbidden_because(
                '/pods', meta.get('name', ''),
                f'error looking up service account {meta.get("namespace", "")}/{name}: serviceaccount '
                f'"{name}" not found')
        automount = spec.get('automountServiceAccountToken')
        if automount is None:
            automount = account.get('automountServiceAccountToken')
        if automount is not False:
            self._mount_token(spec)
        if not spec.get('imagePullSecrets') and account.get('imagePullSecrets'):
            spec['imagePullSecrets'] = [{'name': ref.get('name', '')} for ref in account['imagePullSecrets']]

    @staticmethod
    def _mount_token(spec):
        volumes = spec.get('volumes') or []
        existing = next((v.get('name') for v in volumes
                         if str(v.get('name', '')).startswith(TOKEN_VOLUME_PREFIX)), None)
        name = existing or TOKEN_VOLUME_PREFIX + random_suffix()
        mount = {'name': name, 'readOnly': True, 'mountPath': TOKEN_MOUNT_PATH}
        needed = False
        for key in ('initContainers', 'containers'):
            for container in spec.get(key) or []:
                mounts = container.setdefault('volumeMounts', [])
                if not any(m.get('mountPath') == TOKEN_MOUNT_PATH for m in mounts):
                    mounts.append(copy.deepcopy(mount))
                    needed = True
        if needed and existing is None:
            spec['volumes'] = volumes + [token_volume(name)]
