"""The namespace controller (pkg/controller/namespace/deletion/namespaced_resources_deleter.go): a
namespace being deleted (`deletionTimestamp` set, phase Terminating, by the DELETE) has its
contents deleted, in the background (pods gracefully: they go once their containers stopped); once
nothing is left it is finalized (the `kubernetes` finalizer leaves `spec.finalizers`) and the API
server removes it. New content is refused meanwhile (the NamespaceLifecycle admission plugin, in
the store).

It runs as a store listener, so its work starts right after the namespace is marked.
"""

from ..machinery.errors import ApiError


class NamespaceController:
    def __init__(self, store):
        self.store = store

    def attach(self):
        self.store.listeners.append(self.observe)

    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        if resource == '/namespaces':
            if event_type == 'MODIFIED' and meta.get('deletionTimestamp'):
                self.store.defer(self.empty, meta['name'])
        elif event_type == 'DELETED' and meta.get('namespace'):
            ns = self.store.objects.get(('/namespaces', '', meta['namespace']))
            if ns is not None and ns['metadata'].get('deletionTimestamp'):
                self.store.defer(self.finalize, meta['namespace'])

    def _deleting(self, namespace):
        ns = self.store.get('/namespaces', '', namespace)
        return ns if ns is not None and ns['metadata'].get('deletionTimestamp') else None

    def empty(self, namespace):
        if self._deleting(namespace) is None:
            return
        for row in list(self.store.registry.by_key.values()):
            if not row.namespaced:
                continue
            for obj in self.store.list(row.key, namespace):
                meta = obj['metadata']
                if meta.get('deletionTimestamp'):
                    continue
                try:
                    self.store.delete(row.key, namespace, meta['name'], propagation='Background')
                except ApiError:
                    continue  # gone already (collected with its owner)
        self.finalize(namespace)

    def finalize(self, namespace):
        """Finalize and remove the namespace once nothing is left in it."""
        ns = self._deleting(namespace)
        if ns is None:
            return
        for row in self.store.registry.by_key.values():
            if row.namespaced and self.store.list(row.key, namespace):
                return
        if (ns.get('spec') or {}).get('finalizers'):
            ns['spec']['finalizers'] = []
            ns = self.store.update('/namespaces', ns, check_rv=False)
        if not ns['metadata'].get('finalizers'):
            self.store.remove('/namespaces', '', namespace)
