"""The controllers' read path: the store's objects indexed by resource, namespace and owner.

`Store.list` scans and sorts every object and deep-copies each match; the controllers list per
workload on every pass, which made a pass quadratic in the number of objects. This index is
rebuilt from the store at the start of a full pass (one scan, no copies), kept current between
and within passes by the store's events, and copies only what a caller selects: the objects a controller owns
plus the orphans its selector matches (all that adoption needs).
"""

from ..machinery.selectors import matches_labels


def json_copy(value):
    """A deep copy of JSON data (dicts, lists, scalars): several times faster than copy.deepcopy."""
    if type(value) is dict:
        return {k: json_copy(v) for k, v in value.items()}
    if type(value) is list:
        return [json_copy(v) for v in value]
    return value


def _controller_uid(obj):
    for ref in obj['metadata'].get('ownerReferences') or []:
        if ref.get('controller'):
            return ref.get('uid')
    return None


class _Scope:
    """The objects of one resource in one namespace."""

    def __init__(self):
        self.objects = {}  # name -> stored object (never modified here)
        self.owned = {}  # controller uid -> {name: object}; None holds the orphans

    def put(self, name, obj):
        self.drop(name)
        self.objects[name] = obj
        self.owned.setdefault(_controller_uid(obj), {})[name] = obj

    def drop(self, name):
        old = self.objects.pop(name, None)
        if old is not None:
            bucket = self.owned.get(_controller_uid(old), {})
            bucket.pop(name, None)


class ObjectIndex:
    def __init__(self, store):
        self.store = store
        self._scopes = {}  # (resource, namespace) -> _Scope

    def rebuild(self):
        self._scopes = {}
        for (resource, namespace, name), obj in self.store.objects.items():
            self._scope(resource, namespace).put(name, obj)

    def _scope(self, resource, namespace):
        key = (resource, namespace or '')
        scope = self._scopes.get(key)
        if scope is None:
            scope = self._scopes[key] = _Scope()
        return scope

    def observe(self, event_type, resource, obj):
        meta = obj['metadata']
        namespace = meta.get('namespace', '') if self.store.registry.strategy(resource).namespaced else ''
        scope = self._scope(resource, namespace)
        if event_type == 'DELETED':
            scope.drop(meta['name'])
        else:
            scope.put(meta['name'], obj)

    def _scopes_of(self, resource, namespace):
        if namespace is not None:
            scope = self._scopes.get((resource, namespace or ''))
            return [scope] if scope else []
        return [self._scopes[k] for k in sorted(k for k in self._scopes if k[0] == resource)]

    def peek(self, resource, namespace=None):
        """The stored objects themselves, sorted by namespace and name: read them, never change them."""
        out = []
        for scope in self._scopes_of(resource, namespace):
            out.extend(scope.objects[name] for name in sorted(scope.objects))
        return out

    def stored(self, resource, namespace, name):
        """The stored object itself (never change it), or None."""
        scope = self._scopes.get((resource, namespace or ''))
        return scope.objects.get(name) if scope else None

    def get(self, resource, namespace, name):
        scope = self._scopes.get((resource, namespace or ''))
        obj = scope.objects.get(name) if scope else None
        return json_copy(obj) if obj is not None else None

    def list(self, resource, namespace=None, selector=None, owner_uid=None):
        """Copies of the objects; with ``selector``/``owner_uid``, only those ``owner_uid`` controls
        and the orphans ``selector`` matches (what claiming needs), sorted by name."""
        if selector is None and owner_uid is None:
            return [json_copy(obj) for obj in self.peek(resource, namespace)]
        out = []
        for scope in self._scopes_of(resource, namespace):
            chosen = dict(scope.owned.get(owner_uid, {})) if owner_uid is not None else {}
            if selector:
                for name, obj in scope.owned.get(None, {}).items():
                    if matches_labels(selector, obj['metadata'].get('labels') or {}):
                        chosen[name] = obj
            out.extend(json_copy(chosen[name]) for name in sorted(chosen))
        return out
