"""The controllers that furnish every namespace, as ServiceAccounts need it:

- The ServiceAccount controller (pkg/controller/serviceaccount/serviceaccounts_controller.go)
  keeps a `default` ServiceAccount in every active namespace, created again when deleted.
- The root CA publisher (pkg/controller/certificates/rootcacertpublisher/publisher.go) keeps a
  `kube-root-ca.crt` ConfigMap in every active namespace: `data["ca.crt"]` the cluster CA, the
  `kubernetes.io/description` annotation; deleted or changed, it is put back.

kubesim runs both controllers as store listeners, so they act at once: a pod created right after
its namespace finds the `default` ServiceAccount (on a real cluster the ServiceAccount admission
plugin, apiserver/admission/serviceaccount.py, retries for it).
"""

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder

DEFAULT = 'default'
ROOT_CA = 'kube-root-ca.crt'
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


class ServiceAccountsController:
    """The two controllers (store listeners), for one store."""

    def __init__(self, store, ca_pem=None):
        self.store = store
        self.ca_pem = (ca_pem or PLAIN_HTTP_CA).decode()

    def attach(self):
        self.store.listeners.append(self.observe)
        for ns in self.store.list('/namespaces'):
            self.furnish(ns['metadata']['name'])

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
                                                   'metadata': {'name': DEFAULT, 'namespace': namespace}},
                              manager=recorder('/serviceaccounts', CONTROLLER_MANAGER))
        current = self.store.get('/configmaps', namespace, ROOT_CA)
        wanted = {'ca.crt': self.ca_pem}
        if current is None:
            meta = {'name': ROOT_CA, 'namespace': namespace,
                    'annotations': {'kubernetes.io/description': DESCRIPTION}}
            self.store.create('/configmaps', {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': meta,
                                              'data': wanted},
                              manager=recorder('/configmaps', CONTROLLER_MANAGER))
        elif current.get('data') != wanted or (current['metadata'].get('annotations') or {}).get(
                'kubernetes.io/description') != DESCRIPTION:
            current['data'] = wanted
            current.pop('binaryData', None)
            current['metadata'].setdefault('annotations', {})['kubernetes.io/description'] = DESCRIPTION
            self.store.update('/configmaps', current, manager=recorder('/configmaps', CONTROLLER_MANAGER))

    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        if resource == '/namespaces' and event_type == 'ADDED':
            self.store.defer(self.furnish, meta['name'])
        elif (resource == '/serviceaccounts' and meta['name'] == DEFAULT and event_type == 'DELETED') or (
                resource == '/configmaps' and meta['name'] == ROOT_CA and event_type != 'ADDED'):
            self.store.defer(self.furnish, meta.get('namespace', ''))
