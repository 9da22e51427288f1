"""One open watch (the watch cache's watchers, apiserver pkg/storage/cacher): the store pushes the
events it selects (by resource, namespace, labels and fields) onto its queue, and the watch
handler (apiserver/handlers/watch.py) streams them. The store keeps the event history a watch
resumes from."""

from ...machinery.selectors import matches_fields, matches_labels


class Watch:
    """One open watch: events are pushed by the store, consumed by the HTTP layer."""

    def __init__(self, store, resource, namespace, label_selector, field_selector):
        import asyncio

        self.store = store
        self.resource = resource
        self.namespace = namespace
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.queue = asyncio.Queue()

    def wants(self, resource, obj):
        if resource != self.resource or obj is None:
            return False
        meta = obj.get('metadata', {})
        if self.namespace and meta.get('namespace') != self.namespace:
            return False
        return matches_labels(self.label_selector, meta.get('labels') or {}) and matches_fields(
            self.field_selector, obj
        )

    def event_for(self, typ, resource, obj, old):
        """The event this watch sees for a change, or None. As in the API server's watch cache, an
        object that starts matching the selectors is ADDED and one that stops matching is DELETED."""
        now = self.wants(resource, obj)
        if typ != 'MODIFIED':
            return typ if now else None
        before = self.wants(resource, old) if old is not None else now
        if now and before:
            return 'MODIFIED'
        if now:
            return 'ADDED'
        if before:
            return 'DELETED'
        return None

    def close(self):
        if self in self.store.watches:
            self.store.watches.remove(self)
