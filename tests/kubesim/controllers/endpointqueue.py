"""What the two endpoint controllers (endpointslice.py, endpoints.py) share: the informers' view of
Services, pods and managed EndpointSlices, the work queue with its batch period (the lag), and
the trigger time tracker (staging/src/k8s.io/endpointslice/trigger_time_tracker.go).

It follows the store as a listener and reacts to each event incrementally, as the controllers'
event handlers do (`addPod`/`updatePod`/`deletePod` with GetServicesToUpdateOnPodChange,
`onServiceUpdate`): Services are indexed per namespace with the pods their selector matches; a pod
event looks only at the Services of its namespace and queues those it belongs to (before or after
the change), and only when something an endpoint shows changed (labels, IPs, readiness, deletion,
phase, node, hostname, ports); a Service event rescans the pods of its namespace only when its
selector changed. A sync reads the Service's pods from that index and its slices from the slices
index: no scan of the store.

The queue: a Service with work waits `lag` seconds before its sync (0: the next turn of the event
loop, so that a burst of changes in one turn is one sync). Changes while it waits join that sync,
which writes the state as it is then: the queue's AddAfter keeps the earlier due time, as the
controllers' `--endpoint-updates-batch-period` and `--endpointslice-updates-batch-period` do. So
with a lag every change shows in the slices within `lag` seconds (less when it joins a sync
already waiting), and a pod that stops being Ready can stay a ready endpoint for up to `lag`
seconds: what a proxy would act on, which the endpoints timeline (timeline.py) records.
"""

import asyncio
import datetime
import logging

from ..machinery.errors import ApiError
from .common import is_pod_ready, labels_of, name_of, pod_condition, pod_phase
from .endpoints import EndpointsController
from .endpointslice import CONTROLLER_NAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, EndpointSliceController

SLICES = 'discovery.k8s.io/endpointslices'
log = logging.getLogger('kubesim.controllers')


def _selector(service):
    spec = service.get('spec') or {}
    if spec.get('type') == 'ExternalName' or not spec.get('selector'):
        return None
    return spec['selector']


def _matches(selector, pod):
    labels = labels_of(pod)
    return all(labels.get(k) == v for k, v in selector.items())


def _endpoint_view(pod):
    """What of a pod its endpoints show (podEndpointsChanged and the label check of
    GetServicesToUpdateOnPodChange)."""
    spec = pod.get('spec') or {}
    status = pod.get('status') or {}
    ports = [(c.get('ports'), c.get('restartPolicy')) for c in
             (spec.get('containers') or []) + (spec.get('initContainers') or [])]
    return (labels_of(pod), status.get('podIPs'), status.get('podIP'), is_pod_ready(pod),
            bool(pod['metadata'].get('deletionTimestamp')), pod_phase(pod) in ('Succeeded', 'Failed'),
            spec.get('nodeName'), spec.get('hostname'), spec.get('subdomain'), ports)


def _parse_time(text):
    return datetime.datetime.strptime(text, '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc)


class TriggerTimeTracker:
    """ComputeEndpointLastChangeTriggerTime: the Service's creation time on its first sync, then
    the earliest trigger time (a pod's Ready condition's last transition, the Service's creation)
    that changed since the last sync, or none."""

    def __init__(self):
        self.states = {}  # (namespace, name) -> (pod trigger times, service trigger time)

    def compute(self, service, pods):
        key = (service['metadata'].get('namespace', ''), name_of(service))
        known = self.states.get(key)
        last_pods, last_service = known if known else ({}, None)
        changed = []
        times = {}
        for pod in pods:
            cond = pod_condition(pod, 'Ready')
            stamp = (cond or {}).get('lastTransitionTime')
            if stamp:
                times[name_of(pod)] = stamp
                before = last_pods.get(name_of(pod))
                if before is None or _parse_time(stamp) > _parse_time(before):
                    changed.append(stamp)
        created = service['metadata'].get('creationTimestamp')
        if created and (last_service is None or _parse_time(created) > _parse_time(last_service)):
            changed.append(created)
        self.states[key] = (times, created)
        if not known:
            return created
        return min(changed, key=_parse_time) if changed else None

    def forget(self, namespace, name):
        self.states.pop((namespace, name), None)


class EndpointControllers:
    """The EndpointSlice and Endpoints controllers over one shared index and queue."""

    def __init__(self, store, lag=0.0, clock=None):
        if lag < 0:
            raise ValueError('endpoint_lag must not be negative')
        self.store = store
        self.lag = float(lag)
        self.slices = EndpointSliceController(store)
        self.endpoints = EndpointsController(store)
        self.triggers = TriggerTimeTracker()
        self.services = {}  # namespace -> {name: stored Service}
        self.members = {}  # (namespace, service) -> set of pod names its selector matches
        self.pods = {}  # namespace -> {name: stored pod}
        self.managed = {}  # (namespace, service) -> {slice name: stored EndpointSlice}
        self._due = {}  # (namespace, service) -> the asyncio handle of its waiting sync
        self.syncs = 0
        self.errors = 0
        self._retries = {}
        self._loop = None
        for (resource, _namespace, _name), obj in list(store.objects.items()):
            self._observe('ADDED', resource, obj, None)

    def attach(self):
        self._loop = asyncio.get_running_loop()
        self.store.listeners.append(self._on_event)
        for namespace, services in self.services.items():
            for name in services:
                self._queue(namespace, name)
        return self

    def detach(self):
        if self._on_event in self.store.listeners:
            self.store.listeners.remove(self._on_event)
        for handle in self._due.values():
            handle.cancel()
        self._due.clear()

    # ---- the informers ---------------------------------------------------------------------------
    def _on_event(self, event_type, resource, obj):
        meta = obj['metadata']
        namespace, name = meta.get('namespace', ''), meta['name']
        if resource == '/pods':
            old = self.pods.get(namespace, {}).get(name)
            self._observe(event_type, resource, obj, old)
        elif resource == '/services':
            old = self.services.get(namespace, {}).get(name)
            self._observe(event_type, resource, obj, old)
        elif resource == SLICES:
            self._observe(event_type, resource, obj, None)

    def _observe(self, event_type, resource, obj, old):
        meta = obj['metadata']
        namespace, name = meta.get('namespace', ''), meta['name']
        gone = event_type == 'DELETED'
        if resource == '/pods':
            pods = self.pods.setdefault(namespace, {})
            if gone:
                pods.pop(name, None)
            else:
                pods[name] = obj
            if old is not None and not gone and _endpoint_view(old) == _endpoint_view(obj):
                return
            for svc_name, service in self.services.get(namespace, {}).items():
                selector = _selector(service)
                members = self.members.setdefault((namespace, svc_name), set())
                was = name in members
                now = not gone and selector is not None and _matches(selector, obj)
                if now:
                    members.add(name)
                else:
                    members.discard(name)
                if was or now:
                    self._queue(namespace, svc_name)
        elif resource == '/services':
            services = self.services.setdefault(namespace, {})
            if gone:
                services.pop(name, None)
                self.members.pop((namespace, name), None)
                self._queue(namespace, name)
                return
            services[name] = obj
            selector = _selector(obj)
            if old is None or _selector(old) != selector:
                self.members[(namespace, name)] = {
                    pod_name for pod_name, pod in self.pods.get(namespace, {}).items()
                    if selector is not None and _matches(selector, pod)}
            self._queue(namespace, name)
        elif resource == SLICES:
            labels = labels_of(obj)
            if labels.get(LABEL_MANAGED_BY) != CONTROLLER_NAME or not labels.get(LABEL_SERVICE_NAME):
                for slices in self.managed.values():
                    slices.pop(name, None)
                return
            key = (namespace, labels[LABEL_SERVICE_NAME])
            for other, slices in self.managed.items():
                if other != key:
                    slices.pop(name, None)
            slices = self.managed.setdefault(key, {})
            if gone:
                slices.pop(name, None)
            else:
                slices[name] = obj

    # ---- the queue -------------------------------------------------------------------------------
    def _queue(self, namespace, name):
        key = (namespace, name)
        if key in self._due or self._loop is None:
            return
        if self.lag:
            self._due[key] = self._loop.call_later(self.lag, self._run, key)
        else:
            self._due[key] = self._loop.call_soon(self._run, key)

    def _run(self, key):
        self._due.pop(key, None)
        try:
            self.sync(*key)
            self._retries.pop(key, None)
        except ApiError as err:  # a race with a client (an object changed or gone): once more
            log.debug('endpoints of service %s/%s: %s', *key, err.message)
            self._retry(key)
        except Exception:
            self.errors += 1
            log.exception('endpoints of service %s/%s', *key)
            self._retry(key)

    def _retry(self, key):
        """Queue the Service again after the rate limiter's back-off (5 ms doubling, at most 1 s
        here)."""
        tries = self._retries[key] = self._retries.get(key, 0) + 1
        if self._loop is not None and key not in self._due:
            self._due[key] = self._loop.call_later(min(0.005 * 2 ** tries, 1.0), self._run, key)

    def pending(self):
        """Services whose sync is waiting (for tests)."""
        return sorted(self._due)

    def sync(self, namespace, name):
        """syncService of both controllers for one Service."""
        self.syncs += 1
        service = self.services.get(namespace, {}).get(name)
        if service is None:
            self.triggers.forget(namespace, name)
            self.managed.pop((namespace, name), None)
            if self.store.get('/endpoints', namespace, name) is not None:
                self.endpoints.delete(namespace, name)
            return  # the slices go with their owner (the garbage collector)
        if _selector(service) is None:
            return
        pods = [self.pods[namespace][p] for p in sorted(self.members.get((namespace, name), ()))
                if p in self.pods.get(namespace, {})]
        trigger = self.triggers.compute(service, pods)
        slices = list(self.managed.get((namespace, name), {}).values())
        self.slices.sync(service, pods, slices, trigger)
        self.endpoints.sync(service, pods, self.store.get('/endpoints', namespace, name), trigger)

