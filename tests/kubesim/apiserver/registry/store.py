"""The in-memory object store behind kubesim: Kubernetes object metadata rules, watches and GC
(the registry store, apiserver pkg/registry/generic/registry/store.go; the garbage collector of
kube-controller-manager runs here, as the store's deferred work).

Everything here runs on kubesim's single asyncio event loop thread, so no locking is needed. The
HTTP layer (apiserver/server.py) and the controllers (controllers/) both read and write through
this class; a watch is a `Watch` (watch.py).

Objects are plain JSON dicts (``dict``/``list``/``str``/...), stored and returned as deep copies,
so nobody can mutate the store by accident and unknown fields survive every operation.

Resources are named by a *resource key*: ``"<group>/<plural>"`` with an empty group for the core
API, e.g. ``"/pods"``, ``"/replicationcontrollers"``, ``"apps/deployments"``; custom resources
alike (``"example.com/widgets"``). Which resources exist, and their per-kind facts, is the
store's `registry` (resources.Registry), which CustomResourceDefinitions extend at runtime.
"""

import datetime
import itertools
import random
import uuid

from ...machinery.clock import now_rfc3339, parse_rfc3339, rfc3339, utc_now
from ...machinery.errors import ApiError
from ...machinery.gojson import copy_json as _copy
from ...machinery.selectors import matches_fields, matches_labels
from .garbagecollector import FOREGROUND, ORPHAN, GarbageCollector
from .resources import Registry
from .watch import Watch

# Metadata an update can never change.
SERVER_OWNED = ('uid', 'creationTimestamp', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds')

# apimachinery's utilrand alphabet, which generated names draw their 5 characters from.
_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'
_NAME_RNG = random.Random()

# Watch events kept for resuming a watch from an older resourceVersion.
EVENT_HISTORY = 5000


def _set_managed(meta, entries):
    if entries:
        meta['managedFields'] = entries
    else:
        meta.pop('managedFields', None)


def _gc_finalizers(propagation, obj, row):
    """(orphan, foreground): the garbage collector's finalizers a DELETE leaves on ``obj``
    (shouldOrphanDependents and shouldDeleteDependents in the registry store): an explicit
    policy decides; without one, a finalizer the object already has; else the kind's default
    (Orphan for core/v1 ReplicationControllers, Background for the rest)."""
    if propagation is not None:
        return propagation == 'Orphan', propagation == 'Foreground'
    finalizers = obj['metadata'].get('finalizers') or []
    for finalizer in finalizers:
        if finalizer == ORPHAN:
            return True, False
        if finalizer == FOREGROUND:
            return False, True
    return row.delete_propagation == 'Orphan', False


def _spec_view(obj, row=None):
    """What counts as a spec change for `metadata.generation`: everything but metadata and status
    (and, for a custom resource without the status subresource, everything but metadata)."""
    if row is not None and row.custom is not None and 'status' not in row.subresources:
        return {k: v for k, v in obj.items() if k not in ('metadata', 'apiVersion', 'kind')}
    return {k: v for k, v in obj.items() if k not in ('metadata', 'status', 'apiVersion', 'kind')}


class Store(GarbageCollector):
    """Keyed by (resource, namespace, name); namespace is '' for cluster-scoped resources."""

    def __init__(self, registry=None):
        # The served resources and their rows (resources.Registry; custom resources come and go).
        self.registry = registry if registry is not None else Registry()
        self.objects = {}
        self._rv = itertools.count(1000)
        self.resource_version = 1000
        self.watches = []
        self._deferred = []
        self._draining = False
        self._notifying = 0
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
        # Callables (store, resource, new_obj, old_obj_or_None) run last on creates and on updates of
        # the main resource, raising ApiError to refuse: the validating admission webhooks the API
        # server calls after its own admission (installed with the components that serve them).
        self.webhooks = []
        # Callable (resource, obj) -> obj: the object as the API server's Go types encode it
        # (resources.encode), applied to everything stored; None keeps objects as written.
        self.encoder = None

    # ---- reads ---------------------------------------------------------------------------
    def get(self, resource, namespace, name):
        obj = self.objects.get((resource, namespace or '', name))
        return _copy(obj) if obj is not None else None

    def must_get(self, resource, namespace, name):
        obj = self.get(resource, namespace, name)
        if obj is None:
            raise ApiError.not_found(resource, name)
        return obj

    def list(self, resource, namespace=None, label_selector=None, field_selector=None):
        """Objects of a resource, sorted by namespace and name (as the API server lists them)."""
        chosen = []
        for key, obj in self.objects.items():
            if key[0] != resource or (namespace and key[1] != namespace):
                continue
            if not matches_labels(label_selector, obj['metadata'].get('labels') or {}):
                continue
            if not matches_fields(field_selector, obj):
                continue
            chosen.append((key, obj))
        chosen.sort(key=lambda item: item[0])
        return [_copy(obj) for _key, obj in chosen]

    # ---- writes --------------------------------------------------------------------------
    def _next_rv(self):
        self.resource_version = next(self._rv)
        return str(self.resource_version)

    def _key(self, resource, obj):
        meta = obj['metadata']
        ns = meta.get('namespace', '') if self.registry.strategy(resource).namespaced else ''
        return (resource, ns or '', meta['name'])

    def create(self, resource, obj, dry_run=False, manager=None):
        obj = _copy(obj)
        meta = obj.setdefault('metadata', {})
        generated = not meta.get('name') and bool(meta.get('generateName'))
        if not meta.get('name'):
            if meta.get('generateName'):
                # names.SimpleNameGenerator; a name already taken is generated again
                # (RetryGenerateName), as a real store does a few times.
                for _ in range(8):
                    meta['name'] = meta['generateName'] + ''.join(
                        _NAME_RNG.choice(_NAME_ALPHABET) for _ in range(5))
                    if self._key(resource, obj) not in self.objects:
                        break
            else:
                raise ApiError.invalid(resource, '', [('metadata.name', 'FieldValueRequired',
                                                       'Required value: name or generateName is required')])
        if not self.registry.strategy(resource).namespaced:
            meta.pop('namespace', None)
        key = self._key(resource, obj)
        if key in self.objects:
            raise ApiError.already_exists(resource, meta['name'])
        if key[1]:
            ns = self.objects.get(('/namespaces', '', key[1]))
            if ns is not None and ns['metadata'].get('deletionTimestamp'):
                # The NamespaceLifecycle admission plugin.
                raise ApiError.namespace_terminating(resource, meta['name'], key[1])
        # The system fields are filled before the strategy's PrepareForCreate runs (rest.BeforeCreate
        # requires them): a Job's generated selector names its own UID. A client's uid is replaced.
        meta['uid'] = str(uuid.uuid4())
        if self.admission:
            self.admission(resource, obj, None)
        if manager is not None:
            # The create handler runs the field manager on the decoded (defaulted) object before
            # mutating admission (apiserver endpoints/handlers/create.go): what admission plugins
            # add (a ServiceAccount's token volume) is no manager's.
            _set_managed(meta, manager(None, obj))
        if generated:
            # Mutating admission runs before the registry generates the name (rest.BeforeCreate):
            # it sees only generateName, and its errors name that (admission's extractResourceName).
            name, meta['name'] = meta['name'], ''
        try:
            for mutate in self.mutating_admission:
                mutate(self, resource, obj, None)
        finally:
            if generated:
                meta['name'] = name
        for check in self.validating_admission:
            check(self, resource, obj)
        for webhook in self.webhooks:
            webhook(self, resource, obj, None)
        meta['creationTimestamp'] = now_rfc3339()
        if self.registry.strategy(resource).generation:
            meta['generation'] = 1
        else:
            meta.pop('generation', None)
        meta.pop('resourceVersion', None)
        meta.pop('deletionTimestamp', None)
        meta.pop('deletionGracePeriodSeconds', None)
        if self.encoder is not None:
            obj = self.encoder(resource, obj)
            meta = obj['metadata']
        if dry_run:
            meta['resourceVersion'] = str(self.resource_version)
            return obj
        meta['resourceVersion'] = self._next_rv()
        self.objects[key] = obj
        self._emit('ADDED', resource, obj)
        return _copy(obj)

    def update(self, resource, obj, subresource=None, dry_run=False, check_rv=True, whole_object=False,
               manager=None):
        """Replace an object (PUT semantics).

        ``subresource='status'`` changes only ``status``, and with ``whole_object`` (a client's
        write of the whole object) also the metadata its status strategy lets through; a
        main-resource update keeps the old
        ``status`` for kinds that have a status subresource (all kinds kubesim serves but
        namespaces and nodes behave that way in Kubernetes too for the workload kinds).
        A stale ``metadata.resourceVersion`` is a 409 Conflict when ``check_rv`` is set.
        """
        obj = _copy(obj)
        key = self._key(resource, obj)
        old = self.objects.get(key)
        if old is None:
            raise ApiError.not_found(resource, obj['metadata']['name'])
        # "0" is no resourceVersion, as the generic store parses it (registry/store.go Update)
        given_rv = obj['metadata'].get('resourceVersion')
        if check_rv and given_rv not in (None, '', '0') and given_rv != old['metadata']['resourceVersion']:
            raise ApiError.conflict(resource, obj['metadata']['name'])
        row = self.registry.strategy(resource)
        if subresource and row.update_subresource is not None:
            new = row.update_subresource(subresource, obj, old, row, now_rfc3339())
        elif subresource == 'status' and row.custom is not None:
            # The custom resources' status strategy: the stored object with the new status (none
            # if the write has none); metadata changes are dropped.
            new = _copy(old)
            if 'status' in obj:
                new['status'] = obj['status']
            else:
                new.pop('status', None)
            if row.status_admission and self.admission:
                self.admission(resource, new, old)
        elif subresource == 'status':
            new = _copy(old)
            new['status'] = obj.get('status', {})
            if whole_object:
                # The status strategies reset spec only (and a few metadata fields per kind):
                # label and annotation changes written through /status are kept.
                new['metadata'] = obj['metadata']
                for field in SERVER_OWNED + self.registry.strategy(resource).status_keeps:
                    if field in old['metadata']:
                        new['metadata'][field] = _copy(old['metadata'][field])
                    else:
                        new['metadata'].pop(field, None)
        else:
            new = obj
            if row.custom is not None:
                # customResourceStrategy.PrepareForUpdate: with the status subresource a write
                # keeps the stored status (or none); without it status is an ordinary field.
                if 'status' in row.subresources:
                    if 'status' in old:
                        new['status'] = _copy(old['status'])
                    else:
                        new.pop('status', None)
            elif 'status' in old or 'status' in new:
                new['status'] = _copy(old.get('status', {}))
            # Fields the server owns.
            for field in SERVER_OWNED:
                if field in old['metadata']:
                    new['metadata'][field] = old['metadata'][field]
                else:
                    new['metadata'].pop(field, None)
            if old['metadata'].get('deletionTimestamp'):
                added = [f for f in new['metadata'].get('finalizers') or []
                         if f not in (old['metadata'].get('finalizers') or [])]
                if added:
                    # ValidateObjectMetaUpdate (apimachinery api/validation/objectmeta.go).
                    listed = ', '.join(f'"{f}"' for f in added)
                    raise ApiError.invalid(resource, new['metadata']['name'], [(
                        'metadata.finalizers', 'FieldValueForbidden',
                        'Forbidden: no new finalizers can be added if the object is being deleted, found '
                        f'new finalizers []string{{{listed}}}')])
            if self.admission:
                self.admission(resource, new, old)
            for webhook in self.webhooks:
                webhook(self, resource, new, old)
            if row.generation and _spec_view(new, row) != _spec_view(old, row):
                new['metadata']['generation'] = old['metadata'].get('generation', 1) + 1
        new['metadata']['resourceVersion'] = old['metadata']['resourceVersion']
        if manager is not None:
            _set_managed(new['metadata'], manager(old, new))
        if self.encoder is not None:
            new = self.encoder(resource, new)
        if new == old:
            # A no-op write stores nothing and keeps the resourceVersion, as in Kubernetes.
            return _copy(old)
        if dry_run:
            return new
        new['metadata']['resourceVersion'] = self._next_rv()
        self.objects[key] = new
        self._emit('MODIFIED', resource, new, old)
        meta = new['metadata']
        if meta.get('deletionTimestamp') and not meta.get('finalizers') \
                and not meta.get('deletionGracePeriodSeconds'):
            # The registry's update deletes an object being deleted once its last finalizer is
            # gone (shouldDeleteDuringUpdate).
            self.defer(self.remove, resource, key[1], key[2])
        return _copy(new)

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
        key = (resource, namespace or '' if self.registry.strategy(resource).namespaced else '', name)
        old = self.objects.get(key)
        if old is None:
            raise ApiError.not_found(resource, name)
        self._check_preconditions(resource, name, old, preconditions)
        new = _copy(old)
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
            return _copy(old)
        return self._replace(resource, key, new, old)

    def replace(self, resource, new, old):
        """Store ``new`` in place of the stored ``old`` as it is (no admission, no generation): the
        registry's own writes, such as a CRD's first DELETE."""
        return self._replace(resource, self._key(resource, new), _copy(new), old)

    def _replace(self, resource, key, new, old):
        if self.encoder is not None:
            new = self.encoder(resource, new)
        new['metadata']['resourceVersion'] = self._next_rv()
        self.objects[key] = new
        self._emit('MODIFIED', resource, new, old)
        return _copy(new)

    def delete(self, resource, namespace, name, propagation=None, dry_run=False, preconditions=None,
               grace_seconds=None):
        """A DELETE as the API server's registry store does it (`delete_request`); returns the
        object: the removed one, or the one now being deleted (see `delete_request`)."""
        return self.delete_request(resource, namespace, name, propagation, dry_run, preconditions,
                                   grace_seconds)[0]

    def delete_request(self, resource, namespace, name, propagation=None, dry_run=False, preconditions=None,
                       grace_seconds=None):
        """(object, removed) for a DELETE, as the registry store's Delete
        (apiserver pkg/registry/generic/registry/store.go) decides it:

        - the garbage collector's finalizers follow ``propagation`` (None: the object's own
          `orphan`/`foregroundDeletion` finalizer, else the kind's default): `orphan` for Orphan,
          `foregroundDeletion` for Foreground, neither for Background;
        - a pod bound to a node and not finished is deleted gracefully (pod strategy
          CheckGracefulDelete): `deletionTimestamp` now + the grace period (``grace_seconds``, else
          its `terminationGracePeriodSeconds`), `deletionGracePeriodSeconds`; the kubelet removes
          it once its containers stopped. Deleting it again with a shorter grace period moves the
          deadline; with 0 it is removed at once;
        - an object left with finalizers is marked (`deletionTimestamp` now, grace 0, generation
          +1) and stays until they are removed: the garbage collector removes its own at once for
          `orphan` (after orphaning the dependents) and for `foregroundDeletion` when no blocking
          dependent is left;
        - anything else is removed at once, its dependents deleted in the background.

        ``removed`` tells which: the answer is the removed object or the one being deleted."""
        key = (resource, namespace or '' if self.registry.strategy(resource).namespaced else '', name)
        old = self.objects.get(key)
        if old is None:
            raise ApiError.not_found(resource, name)
        self._check_preconditions(resource, name, old, preconditions)
        row = self.registry.strategy(resource)
        if row.on_delete is not None and not old['metadata'].get('deletionTimestamp'):
            return row.on_delete(self, resource, _copy(old), dry_run), False
        new = _copy(old)
        meta = new['metadata']
        deleting = bool(meta.get('deletionTimestamp'))
        now = utc_now()

        graceful = pending = False
        if deleting:
            period = meta.get('deletionGracePeriodSeconds')
            if period:
                if grace_seconds is None or grace_seconds >= period:
                    pending = True
                elif grace_seconds > 0:
                    started = parse_rfc3339(meta['deletionTimestamp']) - datetime.timedelta(seconds=period)
                    deadline = started + datetime.timedelta(seconds=grace_seconds)
                    meta['deletionTimestamp'] = rfc3339(deadline)
                    meta['deletionGracePeriodSeconds'] = grace_seconds
                    graceful = True
                else:
                    meta['deletionGracePeriodSeconds'] = 0
        elif resource == '/pods':
            period = grace_seconds
            if period is None:
                period = (new.get('spec') or {}).get('terminationGracePeriodSeconds', 30)
            if period < 0:
                period = 1
            phase = (new.get('status') or {}).get('phase')
            if not (new.get('spec') or {}).get('nodeName') or phase in ('Succeeded', 'Failed'):
                period = 0  # never started, or already finished: nothing to wait for
            if period > 0:
                graceful = True
                meta['deletionTimestamp'] = rfc3339(now + datetime.timedelta(seconds=period))
                meta['deletionGracePeriodSeconds'] = period
                if meta.get('generation'):
                    meta['generation'] += 1

        if pending:
            return _copy(old), False
        finalizers = [f for f in meta.get('finalizers') or [] if f not in (ORPHAN, FOREGROUND)]
        orphan, foreground = _gc_finalizers(propagation, old, row)
        if orphan:
            finalizers.append(ORPHAN)
        if foreground:
            finalizers.append(FOREGROUND)
        if set(finalizers) != set(meta.get('finalizers') or []):
            meta['finalizers'] = finalizers
        if not meta.get('finalizers'):
            meta.pop('finalizers', None)
        if not graceful and meta.get('finalizers'):
            # markAsDeleting
            if not deleting and meta.get('generation'):
                meta['generation'] += 1
            if not deleting or parse_rfc3339(meta['deletionTimestamp']) > now:
                meta['deletionTimestamp'] = rfc3339(now)
            meta['deletionGracePeriodSeconds'] = 0
        if graceful or meta.get('finalizers'):
            if dry_run:
                return new, False
            marked = self._replace(resource, key, new, old) if new != old else _copy(old)
            if not graceful:
                self.defer(self.collect_garbage, resource, key[1], key[2])
            return marked, False
        if dry_run:
            return _copy(old), True
        return self.remove(resource, key[1], key[2]), True

    def remove(self, resource, namespace, name):
        """Take the object out of the store (one DELETED event); the garbage collector then
        deletes its dependents in the background and finishes owners waiting for it."""
        key = (resource, namespace or '' if self.registry.strategy(resource).namespaced else '', name)
        old = self.objects.pop(key, None)
        if old is None:
            return None
        gone = _copy(old)
        gone['metadata']['resourceVersion'] = self._next_rv()
        self._emit('DELETED', resource, gone)
        self.defer(self._collect_dependents, old['metadata']['uid'])
        for ref in old['metadata'].get('ownerReferences') or []:
            self.defer(self._finish_foreground, ref.get('uid'))
        return gone

    # ---- deferred work -------------------------------------------------------------------------
    def defer(self, fn, *args):
        """Run ``fn(*args)`` once the store operation under way (and every listener it notified)
        has finished: what controllers and the garbage collector do in reaction to a change comes
        after the change, as it does through watches."""
        self._deferred.append((fn, args))
        self._drain()

    def _drain(self):
        if self._draining or self._notifying:
            return
        self._draining = True
        try:
            while self._deferred:
                fn, args = self._deferred.pop(0)
                fn(*args)
        finally:
            self._draining = False

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
                    w.queue.put_nowait((seen, _copy(obj)))
        self.watches.append(w)
        return w

    def _emit(self, typ, resource, obj, old=None):
        # Stored objects are never changed in place (every write stores a new one), so the history
        # keeps them as they are; a replay copies what it hands out.
        self.history.append((int(obj['metadata']['resourceVersion']), resource, typ, obj, old))
        if len(self.history) > EVENT_HISTORY:
            del self.history[: len(self.history) - EVENT_HISTORY]
        for w in list(self.watches):
            seen = w.event_for(typ, resource, obj, old)
            if seen:
                w.queue.put_nowait((seen, _copy(obj)))
        self._notifying += 1
        try:
            for listener in list(self.listeners):
                listener(typ, resource, obj)
        finally:
            self._notifying -= 1
        self._drain()
