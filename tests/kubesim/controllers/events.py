"""Events, recorded the way client-go's event recorder writes core/v1 Events.

An Event names the object it is about (`involvedObject`: kind, namespace, name, uid, apiVersion,
resourceVersion, fieldPath for a container), the component that saw it (`source`,
`reportingComponent`), a `type` (Normal or Warning), a `reason` and a `message`. The same event
seen again (same object, fieldPath, reason, message and source) is not written twice: its `count`
grows and `lastTimestamp` moves, as the recorder's correlator does. Events are named
`<object name>.<nanoseconds in hex>` in the object's namespace (`default` for cluster-scoped objects).
"""

import time

from ..apiserver.recorders import CONTROLLER_MANAGER, KUBELET, recorder
from ..machinery.clock import now_rfc3339
from ..machinery.errors import ApiError
from .common import name_of, ns_of, uid_of

NORMAL, WARNING = 'Normal', 'Warning'
# The field manager of the component that writes an event: its User-Agent's first part.
_COMPONENT_MANAGERS = {'kubelet': KUBELET, 'default-scheduler': 'kube-scheduler'}


def _manager(component):
    return recorder('/events', _COMPONENT_MANAGERS.get(component, CONTROLLER_MANAGER))


class EventRecorder:
    def __init__(self, store):
        self.store = store
        self._seen = {}  # correlation key -> (namespace, event name)

    def record(self, obj, event_type, reason, message, component, *, host=None, field_path=None):
        """Write (or count again) one event about ``obj``; returns the stored Event."""
        meta = obj['metadata']
        namespace = ns_of(obj) or 'default'
        involved = {'kind': obj.get('kind', ''), 'namespace': ns_of(obj) or None, 'name': name_of(obj),
                    'uid': uid_of(obj), 'apiVersion': obj.get('apiVersion', ''),
                    'resourceVersion': meta.get('resourceVersion', '')}
        if field_path:
            involved['fieldPath'] = field_path
        involved = {k: v for k, v in involved.items() if v is not None}
        source = {'component': component, **({'host': host} if host else {})}
        key = (uid_of(obj), field_path, reason, message, component, host, event_type)
        now = now_rfc3339()
        seen = self._seen.get(key)
        if seen is not None:
            current = self.store.get('/events', *seen)
            if current is not None:
                current['count'] = current.get('count', 1) + 1
                current['lastTimestamp'] = now
                try:
                    return self.store.update('/events', current, manager=_manager(component))
                except ApiError:
                    pass  # deleted or changed by a client: write a new one
        event = {
            'apiVersion': 'v1', 'kind': 'Event',
            'metadata': {'name': f'{name_of(obj)}.{time.time_ns():x}', 'namespace': namespace},
            'involvedObject': involved, 'reason': reason, 'message': message, 'source': source,
            'firstTimestamp': now, 'lastTimestamp': now, 'count': 1, 'type': event_type,
            'eventTime': None, 'reportingComponent': component, 'reportingInstance': host or '',
        }
        try:
            created = self.store.create('/events', event, manager=_manager(component))
        except ApiError:
            return None  # namespace gone, name clash: events are best effort, as in client-go
        self._seen[key] = (namespace, name_of(created))
        return created
