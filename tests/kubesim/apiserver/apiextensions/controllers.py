"""The apiextensions-apiserver's controllers, run as store listeners so they act at once (a client
that created a CRD finds it established on its next request):

- naming (`pkg/controller/status/naming_controller.go`): accepts the CRD's names unless another
  CRD of the group has them (`NamesAccepted` True, reason NoConflicts; or False with
  PluralConflict, KindConflict, ...), sets `status.acceptedNames`, and `Established` False
  (reason Installing) until the establishing controller runs;
- establishing (`pkg/controller/establish/establishing_controller.go`): `Established` True,
  reason InitialNamesAccepted, `the initial names have been accepted`;
- the handler's serving (`customresource_handler.go`, `customresource_discovery_controller.go`):
  the CRD's rows join the store's registry once its names are accepted, are rebuilt on every
  change, and leave with the CRD;
- finalizing (`pkg/controller/finalizer/crd_finalizer.go`): a deleted CRD's custom resources are
  deleted (Terminating: InstanceDeletionInProgress), then its cleanup finalizer removed, and the
  CRD goes.

Their writes are `kube-apiserver` Updates (the loopback client's field manager), status ones
through `status`.
"""

from .. import fieldmanager
from . import handler
from .strategy import CLEANUP_FINALIZER, KEY, condition, condition_true, set_condition

MANAGER = 'kube-apiserver'


class CustomResourceDefinitionControllers:
    def __init__(self, store):
        self.store = store

    def attach(self):
        self.store.listeners.append(self.on_event)
        return self

    def _row(self):
        return self.store.registry.strategy(KEY)

    # ---- events -----------------------------------------------------------------------------------
    def on_event(self, event_type, resource, obj):
        if resource == KEY:
            name = obj['metadata']['name']
            if event_type == 'DELETED':
                self.store.registry.unserve(name)
                self.store.defer(self.requeue_group, obj['spec'].get('group'), name)
                return
            self.store.defer(self.sync, name)
            return
        if event_type == 'DELETED':
            for crd_name, rows in self.store.registry.custom_rows().items():
                if rows and rows[0].key == resource and rows[0].custom.terminating:
                    self.store.defer(self.finalize, crd_name)

    def requeue_group(self, group, gone):
        for (resource, _ns, name), crd in list(self.store.objects.items()):
            if resource == KEY and name != gone and crd['spec'].get('group') == group:
                self.sync(name)

    def _crd(self, name):
        return self.store.get(KEY, '', name)

    def sync(self, name):
        crd = self._crd(name)
        if crd is None:
            return
        if crd['metadata'].get('deletionTimestamp'):
            handler.serve(self.store.registry, crd)
            self.finalize(name)
            return
        if self.name_conditions(crd):
            return  # the status write comes back as an event
        if self.establish(crd):
            return
        handler.serve(self.store.registry, crd)

    # ---- naming ----------------------------------------------------------------------------------
    def _names_in_group(self, crd):
        resources, kinds = set(), set()
        for (resource, _ns, name), other in self.store.objects.items():
            if (
                resource != KEY
                or name == crd['metadata']['name']
                or other['spec'].get('group') != crd['spec'].get('group')
            ):
                continue
            accepted = (other.get('status') or {}).get('acceptedNames') or {}
            resources.update(
                n
                for n in [accepted.get('plural'), accepted.get('singular')]
                + list(accepted.get('shortNames') or [])
                if n
            )
            kinds.update(n for n in (accepted.get('kind'), accepted.get('listKind')) if n)
        return resources, kinds

    def name_conditions(self, crd):
        """NamingConditionController.sync; True when it wrote the status."""
        requested = crd['spec'].get('names') or {}
        status = crd.get('status') or {}
        accepted = dict(status.get('acceptedNames') or {})
        if requested == accepted:
            return False
        resources, kinds = self._names_in_group(crd)
        new = dict(accepted)
        reason = message = None

        def fresh(wanted, current, used):
            return wanted == current or wanted not in used

        for field, conflict, used in (
            ('plural', 'PluralConflict', resources),
            ('singular', 'SingularConflict', resources),
        ):
            if fresh(requested.get(field, ''), accepted.get(field, ''), used):
                if requested.get(field):
                    new[field] = requested[field]
                else:
                    new.pop(field, None)
            else:
                reason, message = conflict, f'"{requested.get(field)}" is already in use'
        if requested.get('shortNames') != accepted.get('shortNames'):
            mine = set(accepted.get('shortNames') or [])
            taken = [s for s in requested.get('shortNames') or [] if s not in mine and s in resources]
            if taken:
                reason = 'ShortNamesConflict'
                message = ', '.join(f'"{s}" is already in use' for s in taken)
                if len(taken) > 1:
                    message = '[' + message + ']'
            elif requested.get('shortNames'):
                new['shortNames'] = requested['shortNames']
            else:
                new.pop('shortNames', None)
        for field, conflict in (('kind', 'KindConflict'), ('listKind', 'ListKindConflict')):
            if fresh(requested.get(field, ''), accepted.get(field, ''), kinds):
                if requested.get(field):
                    new[field] = requested[field]
                else:
                    new.pop(field, None)
            else:
                reason, message = conflict, f'"{requested.get(field)}" is already in use'
        if requested.get('categories'):
            new['categories'] = requested['categories']
        else:
            new.pop('categories', None)
        accepted_now = reason is None
        names_cond = (
            ('True', 'NoConflicts', 'no conflicts found') if accepted_now else ('False', reason, message)
        )
        old_cond = condition(crd, 'NamesAccepted')
        if (
            new == accepted
            and old_cond is not None
            and (old_cond.get('status'), old_cond.get('reason'), old_cond.get('message')) == names_cond
        ):
            return False
        crd.setdefault('status', {})['acceptedNames'] = new
        set_condition(crd, 'NamesAccepted', *names_cond)
        established = condition(crd, 'Established')
        if established is None:
            set_condition(crd, 'Established', 'False', 'NotAccepted', 'not all names are accepted')
        if not condition_true(crd, 'Established') and accepted_now:
            set_condition(crd, 'Established', 'False', 'Installing', 'the initial names have been accepted')
        self._write_status(crd)
        return True

    # ---- establishing ---------------------------------------------------------------------------------
    def establish(self, crd):
        if not condition_true(crd, 'NamesAccepted') or condition_true(crd, 'Established'):
            return False
        set_condition(
            crd, 'Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'
        )
        self._write_status(crd)
        return True

    def _write_status(self, crd):
        crd['metadata'].pop('resourceVersion', None)
        self.store.update(
            KEY,
            crd,
            subresource='status',
            check_rv=False,
            manager=fieldmanager.row_recorder(self._row(), MANAGER, 'status'),
        )

    # ---- finalizing ----------------------------------------------------------------------------------
    def finalize(self, name):
        crd = self._crd(name)
        if crd is None or CLEANUP_FINALIZER not in (crd['metadata'].get('finalizers') or []):
            return
        found = condition(crd, 'Terminating') or {}
        if found.get('reason') != 'InstanceDeletionInProgress' and found.get('status') != 'False':
            set_condition(
                crd,
                'Terminating',
                'True',
                'InstanceDeletionInProgress',
                'CustomResource deletion is in progress',
            )
            self._write_status(crd)
            crd = self._crd(name)
        accepted = (crd.get('status') or {}).get('acceptedNames') or {}
        key = f'{crd["spec"]["group"]}/{accepted.get("plural") or crd["spec"]["names"]["plural"]}'
        left = [k for k in self.store.objects if k[0] == key]
        for resource, namespace, obj_name in left:
            current = self.store.objects.get((resource, namespace, obj_name))
            if current is None or current['metadata'].get('deletionTimestamp'):
                continue
            try:
                self.store.delete(resource, namespace, obj_name, propagation='Background')
            except Exception:  # noqa: BLE001 (gone meanwhile)
                continue
        if any(k[0] == key for k in self.store.objects):
            return  # instances with finalizers of their own: again when they go
        crd = self._crd(name)
        set_condition(crd, 'Terminating', 'False', 'InstanceDeletionCompleted', 'removed all instances')
        self._write_status(crd)
        crd = self._crd(name)
        crd['metadata']['finalizers'] = [
            f for f in crd['metadata'].get('finalizers') or [] if f != CLEANUP_FINALIZER
        ]
        if not crd['metadata']['finalizers']:
            del crd['metadata']['finalizers']
        crd['metadata'].pop('resourceVersion', None)
        self.store.update(KEY, crd, check_rv=False, manager=fieldmanager.row_recorder(self._row(), MANAGER))
