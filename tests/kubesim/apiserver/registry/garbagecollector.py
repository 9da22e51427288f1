"""The garbage collector's part of the store (kube-controller-manager pkg/controller/garbagecollector,
run synchronously on the store's objects): the `orphan` and `foregroundDeletion` finalizers of an
object being deleted, and the dependents of a removed owner (deleted in the background when no
other owner of theirs exists, else only the dangling ownerReference goes)."""

from ...machinery.errors import ApiError
from ...machinery.gojson import copy_json

# The garbage collector's finalizers (metav1.FinalizerOrphanDependents, FinalizerDeleteDependents).
ORPHAN = 'orphan'
FOREGROUND = 'foregroundDeletion'


class GarbageCollector:
    """Store methods: they read ``self.objects`` and write through the store's ``delete``,
    ``_replace`` and ``remove``."""

    def _dependents(self, owner_uid):
        for key, obj in list(self.objects.items()):
            for ref in obj['metadata'].get('ownerReferences') or []:
                if ref.get('uid') == owner_uid:
                    yield key, obj
                    break

    def _owner_exists(self, ref, namespace):
        for (_resource, ns, _name), obj in self.objects.items():
            if obj['metadata'].get('uid') == ref.get('uid') and ns in ('', namespace):
                return True
        return False

    def collect_garbage(self, resource, namespace, name):
        """The garbage collector's work on an object being deleted with its finalizers: `orphan`
        (dependents lose their reference to it, then the finalizer goes) and `foregroundDeletion`
        (dependents are deleted, the finalizer goes once no blocking one is left)."""
        key = (resource, namespace, name)
        obj = self.objects.get(key)
        if obj is None or not obj['metadata'].get('deletionTimestamp'):
            return
        finalizers = obj['metadata'].get('finalizers') or []
        uid = obj['metadata']['uid']
        if ORPHAN in finalizers:
            self._orphan_dependents(uid)
            self._drop_finalizer(key, ORPHAN)
        elif FOREGROUND in finalizers:
            for dep_key, dep in list(self._dependents(uid)):
                if dep_key in self.objects and not dep['metadata'].get('deletionTimestamp'):
                    has_own = any(True for _ in self._dependents(dep['metadata']['uid']))
                    try:
                        self.delete(dep_key[0], dep_key[1], dep_key[2],
                                    propagation='Foreground' if has_own else 'Background')
                    except ApiError:
                        continue
            self._finish_foreground(uid)

    def _finish_foreground(self, owner_uid):
        """Drop `foregroundDeletion` from an owner being deleted once none of its dependents
        blocks it (an ownerReference with blockOwnerDeletion)."""
        for key, obj in list(self.objects.items()):
            if obj['metadata'].get('uid') != owner_uid:
                continue
            if FOREGROUND not in (obj['metadata'].get('finalizers') or []) \
                    or not obj['metadata'].get('deletionTimestamp'):
                return
            for _dep_key, dep in self._dependents(owner_uid):
                for ref in dep['metadata'].get('ownerReferences') or []:
                    if ref.get('uid') == owner_uid and ref.get('blockOwnerDeletion'):
                        return
            self._drop_finalizer(key, FOREGROUND)
            return

    def _drop_finalizer(self, key, finalizer):
        obj = self.objects.get(key)
        if obj is None:
            return
        new = copy_json(obj)
        new['metadata']['finalizers'] = [f for f in new['metadata'].get('finalizers') or [] if f != finalizer]
        if not new['metadata']['finalizers']:
            del new['metadata']['finalizers']
        self._replace(key[0], key, new, obj)
        if not new['metadata'].get('finalizers'):
            self.remove(*key)

    def _orphan_dependents(self, owner_uid):
        for key, obj in list(self._dependents(owner_uid)):
            new = copy_json(obj)
            refs = [r for r in new['metadata']['ownerReferences'] if r.get('uid') != owner_uid]
            if refs:
                new['metadata']['ownerReferences'] = refs
            else:
                del new['metadata']['ownerReferences']
            self._replace(key[0], key, new, obj)

    def _collect_dependents(self, owner_uid):
        """Dependents of a removed owner: deleted (in the background, or as their own finalizers
        say) when no other owner of theirs exists, else only the dangling reference goes."""
        for key, _obj in list(self._dependents(owner_uid)):
            current = self.objects.get(key)
            if current is None:
                continue
            others = [r for r in current['metadata'].get('ownerReferences') or []
                      if r.get('uid') != owner_uid]
            if any(self._owner_exists(r, key[1]) for r in others):
                new = copy_json(current)
                new['metadata']['ownerReferences'] = others
                self._replace(key[0], key, new, current)
                continue
            if current['metadata'].get('deletionTimestamp') and not current['metadata'].get('finalizers'):
                continue  # already terminating
            try:
                self.delete(key[0], key[1], key[2])
            except ApiError:
                continue
