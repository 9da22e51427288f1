"""The in-memory object store behind kubesim: Kubernetes object metadata rules, watches and GC.

Everything here runs on kubesim's single asyncio event loop thread, so no locking is needed. The
HTTP layer (server.py) and the controllers (controllers/) both read and write through this class.

Objects are plain JSON dicts (``dict``/``list``/``str``/...), stored and returned as deep copies,
so nobody can mutate the store by accident and unknown fields survive every operation.

Resources are named by a *resource key*: ``"<group>/<plural>"`` with an empty group for the core
API, e.g. ``"/pods"``, ``"/replicationcontrollers"``, ``"apps/deployments"``.
"""

import copy
import datetime
import itertools
import uuid

from .errors import ApiError
from .resources import strategy
from .selectors import matches_fields, matches_labels

# Metadata an update can never change.
SERVER_OWNED = ('uid', 'creationTimestamp', 'generation', 'deletionTimestamp')

# Watch events kept for resuming a watch from an older resourceVersion.
EVENT_HISTORY = 5000


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def _spec_view(obj):
    """What counts as a spec change for `metadata.generation` (everything but metadata and status)."""
    return {k: v for k, v in obj.items() if k not in ('metadata', 'status', 'apiVersion', 'kind')}


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


class Store:
    """Keyed by (resource, namespace, name); namespace is '' for cluster-scoped resources."""

    def __init__(self):
        self.objects = {}
        self._rv = itertools.count(1000)
        self.resource_version = 1000
        self.watches = []
        self.history = []  # (rv:int, resource, type, obj, old_obj) for watch resumption
        # Callables (event_type, resource, obj) told about every persisted change (controllers).
        self.listeners = []
        # Callable (resource, new_obj, old_obj_or_None) -> None; defaults and validates in place,
        # raising ApiError(422) on invalid objects. Set by the server (resources.admit).
        self.admission = None
        # Callables (store, resource, new_obj, old_obj_or_None) run after defaulting and validation,
        # changing the object in place or raising ApiError (mutating admission plugins such as
        # ServiceAccount; set by the server).
        self.mutating_admission = []
        # Callables (store, resource, new_obj) run after admission on creates, raising ApiError to
        # refuse (validating admission plugins such as ResourceQuota; set by the server).
        self.validating_admission = []
        # Callable (resource, obj) -> obj: the object as the API server's Go types encode it
        # (resources.encode), applied to everything stored; None keeps objects as written.
        self.encoder = None

    # ---- reads ---------------------------------------------------------------------------
    def get(self, resource, namespace, name):
        obj = self.objects.get((resource, namespace or '', name))
        return copy.deepcopy(obj) if obj is not None else None

    def must_get(self, resource, namespace, name):
        obj = self.get(resource, namespace, name)
        if obj is None:
            raise ApiError.not_found(resource, name)
        return obj

    def list(self, resource, namespace=None, label_selector=None, field_selector=None):
        """Objects of a resource, sorted by namespace and name (as the API server lists them)."""
        out = []
        for (res, ns, _name), obj in sorted(self.objects.items()):
            if res != resource or (namespace and ns != namespace):
                continue
            if not matches_labels(label_selector, obj['metadata'].get('labels') or {}):
                continue
            if not matches_fields(field_selector, obj):
                continue
            out.append(copy.deepcopy(obj))
        return out

    # ---- writes --------------------------------------------------------------------------
    def _next_rv(self):
        self.resource_version = next(self._rv)
        return str(self.resource_version)

    def _key(self, resource, obj):
        meta = obj['metadata']
        ns = meta.get('namespace', '') if strategy(resource).namespaced else ''
        return (resource, ns or '', meta['name'])

    def create(self, resource, obj, dry_run=False):
        obj = copy.deepcopy(obj)
        meta = obj.setdefault('metadata', {})
        if not meta.get('name'):
            if meta.get('generateName'):
                meta['name'] = meta['generateName'] + uuid.uuid4().hex[:5]
            else:
                raise ApiError.invalid(resource, '', [('metadata.name', 'FieldValueRequired',
                                                       'Required value: name or generateName is required')])
        if not strategy(resource).namespaced:
            meta.pop('namespace', None)
        key = self._key(resource, obj)
        if key in self.objects:
            raise ApiError.already_exists(resource, meta['name'])
        if self.admission:
            self.admission(resource, obj, None)
        for mutate in self.mutating_admission:
            mutate(self, resource, obj, None)
        for check in self.validating_admission:
            check(self, resource, obj)
        meta['uid'] = str(uuid.uuid4())
        meta['creationTimestamp'] = now_rfc3339()
        if strategy(resource).generation:
            meta['generation'] = 1
        else:
            meta.pop('generation', None)
        meta.pop('resourceVersion', None)
        meta.pop('deletionTimestamp', None)
        if self.encoder is not None:
            obj = self.encoder(resource, obj)
            meta = obj['metadata']
        if dry_run:
            meta['resourceVersion'] = str(self.resource_version)
            return obj
        meta['resourceVersion'] = self._next_rv()
        self.objects[key] = obj
        self._emit('ADDED', resource, obj)
        return copy.deepcopy(obj)

    def update(self, resource, obj, subresource=None, dry_run=False, check_rv=True, whole_object=False):
        """Replace an object (PUT semantics).

        ``subresource='status'`` changes only ``status``, and with ``whole_object`` (a client's
        write of the whole object) also the metadata its status strategy lets through; a
        main-resource update keeps the old
        ``status`` for kinds that have a status subresource (all kinds kubesim serves but
        namespaces and nodes behave that way in Kubernetes too for the workload kinds).
        A stale ``metadata.resourceVersion`` is a 409 Conflict when ``check_rv`` is set.
        """
        obj = copy.deepcopy(obj)
        key = self._key(resource, obj)
        old = self.objects.get(key)
        if old is None:
            raise ApiError.not_found(resource, obj['metadata']['name'])
        given_rv = obj['metadata'].get('resourceVersion')
        if check_rv and given_rv and given_rv != old['metadata']['resourceVersion']:
            raise ApiError.conflict(resource, obj['metadata']['name'])
        if subresource == 'status':
            new = copy.deepcopy(old)
            new['status'] = obj.get('status', {})
            if whole_object:
                # The status strategies reset spec only (and a few metadata fields per kind):
                # label and annotation changes written through /status are kept.
                new['metadata'] = obj['metadata']
                for field in SERVER_OWNED + strategy(resource).status_keeps:
                    if field in old['metadata']:
                        new['metadata'][field] = copy.deepcopy(old['metadata'][field])
                    else:
                        new['metadata'].pop(field, None)
        else:
            new = obj
            if 'status' in old or 'status' in new:
                new['status'] = copy.deepcopy(old.get('status', {}))
            # Fields the server owns.
            for field in SERVER_OWNED:
                if field in old['metadata']:
                    new['metadata'][field] = old['metadata'][field]
                else:
                    new['metadata'].pop(field, None)
            if self.admission:
                self.admission(resource, new, old)
            if strategy(resource).generation and _spec_view(new) != _spec_view(old):
                new['metadata']['generation'] = old['metadata'].get('generation', 1) + 1
        new['metadata']['resourceVersion'] = old['metadata']['resourceVersion']
        if self.encoder is not None:
            new = self.encoder(resource, new)
        if new == old:
            # A no-op write stores nothing and keeps the resourceVersion, as in Kubernetes.
            return copy.deepcopy(old)
        if dry_run:
            return new
        new['metadata']['resourceVersion'] = self._next_rv()
        self.objects[key] = new
        self._emit('MODIFIED', resource, new, old)
        return copy.deepcopy(new)

    def _check_preconditions(self, resource, name, old, preconditions):
        if preconditions:
            if preconditions.get('uid') and preconditions['uid'] != old['metadata']['uid']:
                raise ApiError.conflict(resource, name, 'Precondition failed: UID in precondition')
            rv = preconditions.get('resourceVersion')
            if rv and rv != old['metadata']['resourceVersion']:
                raise ApiError.conflict(resource, name,
                                        'Precondition failed: ResourceVersion in precondition')

    def mark_deleting(self, resource, namespace, name, preconditions=None, grace_seconds=None,
                      status=None, finalizers=()):
        """The first step of a deletion that waits: `deletionTimestamp` (now, unless already set),
        `deletionGracePeriodSeconds` when given, ``status`` fields merged in, ``finalizers``
        added. Returns the updated object (one MODIFIED event)."""
        key = (resource, namespace or '' if strategy(resource).namespaced else '', name)
        old = self.objects.get(key)
        if old is None:
            raise ApiError.not_found(resource, name)
        self._check_preconditions(resource, name, old, preconditions)
        new = copy.deepcopy(old)
        meta = new['metadata']
        meta.setdefault('deletionTimestamp', now_rfc3339())
        if grace_seconds is not None:
            meta['deletionGracePeriodSeconds'] = grace_seconds
        for finalizer in finalizers:
            if finalizer not in (meta.get('finalizers') or []):
                meta.setdefault('finalizers', []).append(finalizer)
        if status:
            new.setdefault('status', {}).update(status)
        if new == old:
            return copy.deepcopy(old)
        if self.encoder is not None:
            new = self.encoder(resource, new)
        new['metadata']['resourceVersion'] = self._next_rv()
        self.objects[key] = new
        self._emit('MODIFIED', resource, new, old)
        return copy.deepcopy(new)

    def delete(self, resource, namespace, name, propagation='Background', dry_run=False,
               preconditions=None):
        key = (resource, namespace or '' if strategy(resource).namespaced else '', name)
        old = self.objects.get(key)
        if old is None:
            raise ApiError.not_found(resource, name)
        self._check_preconditions(resource, name, old, preconditions)
        if dry_run:
            return copy.deepcopy(old)
        uid = old['metadata']['uid']
        if propagation == 'Orphan':
            self._orphan_dependents(uid)
        del self.objects[key]
        gone = copy.deepcopy(old)
        gone['metadata']['resourceVersion'] = self._next_rv()
        self._emit('DELETED', resource, gone)
        if propagation != 'Orphan':
            self._collect_dependents(uid)
        return gone

    def _dependents(self, owner_uid):
        for key, obj in list(self.objects.items()):
            for ref in obj['metadata'].get('ownerReferences') or []:
                if ref.get('uid') == owner_uid:
                    yield key, obj
                    break

    def _orphan_dependents(self, owner_uid):
        for key, obj in list(self._dependents(owner_uid)):
            new = copy.deepcopy(obj)
            refs = [r for r in new['metadata']['ownerReferences'] if r.get('uid') != owner_uid]
            if refs:
                new['metadata']['ownerReferences'] = refs
            else:
                del new['metadata']['ownerReferences']
            new['metadata']['resourceVersion'] = self._next_rv()
            self.objects[key] = new
            self._emit('MODIFIED', key[0], new, obj)

    def _collect_dependents(self, owner_uid):
        """Garbage collection: delete what the deleted owner owned (recursively)."""
        for key, _obj in list(self._dependents(owner_uid)):
            if key in self.objects:
                self.delete(key[0], key[1], key[2], propagation='Background')

    # ---- watches -------------------------------------------------------------------------
    def watch(self, resource, namespace=None, resource_version=None, label_selector=None,
              field_selector=None):
        """Open a watch. Events after ``resource_version`` (if given and not '0') are replayed.

        Raises ApiError.gone (410) when that resourceVersion is older than the kept history.
        """
        w = Watch(self, resource, namespace, label_selector, field_selector)
        if resource_version not in (None, '', '0'):
            rv = int(resource_version)
            if self.history and rv < self.history[0][0] - 1 and rv < self.resource_version:
                raise ApiError.gone()
            for ev_rv, res, typ, obj, old in self.history:
                seen = w.event_for(typ, res, obj, old) if ev_rv > rv else None
                if seen:
                    w.queue.put_nowait((seen, copy.deepcopy(obj)))
        self.watches.append(w)
        return w

    def _emit(self, typ, resource, obj, old=None):
        self.history.append((int(obj['metadata']['resourceVersion']), resource, typ,
                             copy.deepcopy(obj), copy.deepcopy(old)))
        if len(self.history) > EVENT_HISTORY:
            del self.history[: len(self.history) - EVENT_HISTORY]
        for w in list(self.watches):
            seen = w.event_for(typ, resource, obj, old)
            if seen:
                w.queue.put_nowait((seen, copy.deepcopy(obj)))
        for listener in list(self.listeners):
            listener(typ, resource, obj)
