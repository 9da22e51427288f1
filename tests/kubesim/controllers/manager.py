"""kubesim's controller manager: the kubelet stand-in and the workload controllers on one loop.

`ControllerManager.run()` creates the Nodes, then reconciles in passes: a pass runs the kubelet
(scheduling, pod readiness), then the ReplicaSet, ReplicationController, Deployment, StatefulSet
and DaemonSet controllers. As the informers and work queues of kube-controller-manager do, those
five sync only the objects whose state may have changed: a store event queues the object itself,
its controlling owner (and, for a pod, the owner's owner: a ReplicaSet's Deployment), and, for an
object no one controls, every object of the kinds that could adopt it in its namespace; a timer a
sync asked for (minReadySeconds, progress deadlines) queues that object again when it is due. The
first pass and a pass after an idle resync period (no event, no timer) sync every object, as an
informer's resync does. A pass starts when the store reports a change (a store listener sets an
asyncio.Event), when a timer is due or after the idle resync period; it never spins while nothing
happens. A failing sync is logged and retried on the next pass.

The API goes first. On a real control plane the API server and the controller manager are
separate processes; here they share one event loop, so a pass waits until no API request has been
answered for `API_QUIET` seconds (at most `MAX_API_DEFER`), and a pass of the keyed controllers and
the kubelet stops after `SLICE_SECONDS` of work, the rest queued for the next pass, which follows
at once: a client's burst of requests is not held up behind the rollouts it starts.

Time: `ready_delay` is in real seconds; `time_scale` makes controller time (minReadySeconds,
progressDeadlineSeconds) pass that many times faster.
"""

import asyncio
import logging
import re
import time

from .. import timeline
from ..kubelet.kubelet import Kubelet
from ..machinery.errors import ApiError
from .common import is_pod_ready
from .cronjob import CronJobController
from .daemonset import DaemonSetController
from .deployment import DeploymentController
from .events import EventRecorder
from .disruption import DisruptionController
from .hpa import HorizontalPodAutoscalerController
from .index import ObjectIndex
from .job import JobController
from .replicaset import ReplicaSetController, ReplicationControllerController
from .resourcequota import ResourceQuotaController
from .statefulset import StatefulSetController
from .volume import VolumeController

__all__ = ['ControllerManager']

log = logging.getLogger('kubesim.controllers')

# A full pass at least this often even when nothing changes (a safety net, not a busy loop).
IDLE_RESYNC = 1.0
# Pause between passes so bursts of events coalesce and API requests get the loop.
MIN_PASS_INTERVAL = 0.01
# The controllers that sync only what changed, by the resource they own and its kind.
KEYED = {'apps/replicasets': 'ReplicaSet', '/replicationcontrollers': 'ReplicationController',
         'apps/deployments': 'Deployment', 'apps/statefulsets': 'StatefulSet', 'apps/daemonsets': 'DaemonSet',
         'batch/jobs': 'Job', 'batch/cronjobs': 'CronJob'}
KEYED_BY_KIND = {kind: resource for resource, kind in KEYED.items()}
# Who may adopt an object that no one controls (it matches their selector).
ADOPTERS = {'/pods': ('apps/replicasets', '/replicationcontrollers', 'apps/statefulsets', 'apps/daemonsets',
                      'batch/jobs'),
            'apps/replicasets': ('apps/deployments',),
            'apps/controllerrevisions': ('apps/statefulsets', 'apps/daemonsets')}
# API requests go first: a pass waits for this much quiet after the last answer, at most this long.
API_QUIET = 0.005
MAX_API_DEFER = 0.25
# The work of one pass (keyed syncs, the kubelet's pods) before it yields the loop.
SLICE_SECONDS = 0.005
# Resources whose changes can give a controller work.
WATCHED = frozenset({'/pods', '/nodes', '/replicationcontrollers', 'apps/replicasets', 'apps/deployments',
                     'apps/statefulsets', 'apps/daemonsets', 'apps/controllerrevisions', '/resourcequotas',
                     'autoscaling/horizontalpodautoscalers', 'batch/jobs', 'batch/cronjobs'})
WATCHED |= {'/persistentvolumeclaims', '/persistentvolumes', 'policy/poddisruptionbudgets'}


def _controller_ref(obj):
    """(kind, name) of the controller owner reference of ``obj``, else None."""
    for ref in ((obj or {}).get('metadata') or {}).get('ownerReferences') or []:
        if ref.get('controller'):
            return ref.get('kind'), ref.get('name')
    return None


class ControllerManager:
    def __init__(self, store, *, nodes=3, ready_delay=0.2, fail_image=None, time_scale=1.0, crash_image=None,
                 crash_after=1.0, stop_delay=0.1):
        if time_scale <= 0:
            raise ValueError('time_scale must be positive')
        self.store = store
        self.nodes = int(nodes)
        self.ready_delay = float(ready_delay)
        self.fail_image = re.compile(fail_image) if isinstance(fail_image, str) and fail_image else (
            fail_image or None)
        self.crash_image = re.compile(crash_image) if isinstance(crash_image, str) and crash_image else (
            crash_image or None)
        self.crash_after = float(crash_after)
        # Real seconds a pod's containers take to stop after SIGTERM (the grace period caps it).
        self.stop_delay = float(stop_delay)
        self.time_scale = float(time_scale)
        self.events = EventRecorder(store)
        self.clock = time.monotonic
        self.pods = timeline.PodTracker(store, self.clock)  # also the readiness log tests read
        self.index = ObjectIndex(store)
        self.readiness_log = self.pods.log
        self.kubelet = Kubelet(self)
        self.controllers = [ReplicaSetController(self), ReplicationControllerController(self),
                            DeploymentController(self), StatefulSetController(self),
                            DaemonSetController(self), ResourceQuotaController(self),
                            HorizontalPodAutoscalerController(self), JobController(self)]
        self.controllers.append(VolumeController(self))  # claims and volumes (controllers/volume.py)
        self.controllers.append(CronJobController(self))  # schedules Jobs (controllers/cronjob.py)
        self.controllers.append(DisruptionController(self))  # PodDisruptionBudgets' status (disruption.py)
        self.passes = 0
        self.errors = 0
        self.synced = 0  # object syncs by the keyed controllers (a measure of their work)
        self._wake = None
        self._due = None
        self._listening = False
        self._full = True  # the next pass syncs every object
        self._dirty = {}  # keyed resource -> {(namespace, name)}; name None: the whole namespace
        self._timers = {}  # (keyed resource, namespace, name) -> monotonic time it wants a sync
        self._syncing = None  # (keyed resource, namespace, name) during its sync
        self._slice_end = None  # monotonic time the current pass's slice ends (None: no limit)
        self._more = False  # the last pass left work queued
        self._worked = False  # the current pass did a unit of work
        # () -> seconds since the API last answered (0 while a request is being answered), or None.
        self.api_quiet = None

    # ---- services for the controllers ---------------------------------------------------------
    def wake_at(self, when):
        """Ask for a pass no later than monotonic time ``when`` (during a keyed controller's sync:
        a sync of that object then)."""
        self._due = when if self._due is None else min(self._due, when)
        if self._syncing is not None:
            self._timers[self._syncing] = min(self._timers.get(self._syncing, when), when)

    def out_of_time(self):
        """The current pass has used its slice: leave the rest for the next one. Called before each
        unit of work; a pass always does at least one, so work never stalls."""
        if self._slice_end is None:
            return False
        if not self._worked:
            self._worked = True
            return False
        if self.clock() >= self._slice_end:
            self._more = True
            return True
        return False

    def is_available(self, pod, min_ready_seconds):
        """Ready for at least minReadySeconds of controller time."""
        if not is_pod_ready(pod):
            return False
        if not min_ready_seconds:
            return True
        since = self.pods.ready_since(pod)
        if since is None:
            return False
        due = since + min_ready_seconds / self.time_scale
        if self.clock() >= due:
            return True
        self.wake_at(due)
        return False

    def guard(self, kind, obj, fn, *args):
        """Run one object's sync; errors are logged, the next pass retries."""
        resource = KEYED_BY_KIND.get(kind)
        if resource is not None:
            self._syncing = (resource, obj['metadata'].get('namespace', ''), obj['metadata'].get('name'))
            self.synced += 1
        try:
            fn(*args)
        except ApiError as err:
            # Races with API clients (object deleted or changed mid-sync) resolve on the next pass.
            log.debug('%s %s/%s: %s', kind, obj['metadata'].get('namespace', ''),
                      obj['metadata'].get('name'), err.message)
        except Exception:
            self.errors += 1
            log.exception('%s %s/%s: sync failed', kind, obj['metadata'].get('namespace', ''),
                          obj['metadata'].get('name'))
        finally:
            self._syncing = None

    # ---- the loop ------------------------------------------------------------------------------
    def _on_event(self, event_type, resource, obj):
        meta = obj['metadata']
        old = self.index.stored(resource, meta.get('namespace', ''), meta.get('name'))
        self.index.observe(event_type, resource, obj)
        self.pods.observe(event_type, resource, obj)
        if resource in WATCHED:
            self._enqueue(resource, obj, old)
            if self._wake is not None:
                self._wake.set()

    # ---- the work queue ------------------------------------------------------------------------
    def _mark(self, resource, namespace, name):
        self._dirty.setdefault(resource, set()).add((namespace, name))

    def _enqueue(self, resource, obj, old):
        """Queue the syncs a change of ``obj`` (``old``: its previous version, or None) calls for."""
        namespace = obj['metadata'].get('namespace', '')
        if resource in KEYED:
            self._mark(resource, namespace, obj['metadata'].get('name'))
        if resource == '/nodes':
            self._mark('apps/daemonsets', None, None)
            return
        owners = [o for o in (_controller_ref(obj), _controller_ref(old)) if o is not None]
        for kind, name in owners:
            owner_resource = KEYED_BY_KIND.get(kind)
            if owner_resource is None:
                continue
            self._mark(owner_resource, namespace, name)
            if resource == '/pods':
                # The owner's owner reads its pods too (a Deployment's Recreate, its availability).
                parent = _controller_ref(self.index.stored(owner_resource, namespace, name))
                if parent is not None and parent[0] in KEYED_BY_KIND:
                    self._mark(KEYED_BY_KIND[parent[0]], namespace, parent[1])
        if not owners:
            for adopter in ADOPTERS.get(resource, ()):
                self._mark(adopter, namespace, None)

    def _objects(self, resource, keys):
        """Copies of the objects ``keys`` name (a name of None: all of that namespace)."""
        out = {}
        for namespace, name in keys:
            if name is None:
                for obj in self.index.list(resource, namespace):
                    out[(obj['metadata'].get('namespace', ''), obj['metadata']['name'])] = obj
            elif (namespace, name) not in out:
                obj = self.index.get(resource, namespace, name)
                if obj is not None:
                    out[(namespace, name)] = obj
        return [out[key] for key in sorted(out)]

    def attach(self):
        """Start following store events (done by `run`; separate for tests that step passes)."""
        if not self._listening:
            self.store.listeners.append(self._on_event)
            self._listening = True

    def detach(self):
        if self._listening:
            self.store.listeners.remove(self._on_event)
            self._listening = False

    def reconcile_once(self, full=False, budget=None):
        """One pass: the kubelet and the controllers, the keyed ones over what changed (every object
        on the first pass or with ``full``); with ``budget`` (seconds), the kubelet and the keyed
        controllers stop once it is used and leave the rest for the next pass (see `more`).
        Returns the monotonic time a timer wants the next pass."""
        full = full or self._full
        self._full = False
        self._due = None
        self._more = False
        self._worked = False
        now = self.clock()
        self._slice_end = None if budget is None or full else now + budget
        for key, when in list(self._timers.items()):
            if when <= now:
                del self._timers[key]
                self._mark(*key)
        if full or not self._listening:
            # Otherwise the store's events have kept it current since the last rebuild.
            self.index.rebuild()
        try:
            self.kubelet.sync()
        except Exception:
            self.errors += 1
            log.exception('kubelet pass failed')
        for controller in self.controllers:
            keyed = controller.resource in KEYED
            # Taken before the syncs: what they change is queued for the next pass.
            keys = self._dirty.pop(controller.resource, None) if keyed else None
            try:
                if not keyed or full:
                    controller.sync_all()
                elif keys:
                    objects = self._objects(controller.resource, keys)
                    for i, obj in enumerate(objects):
                        if self.out_of_time():
                            for rest in objects[i:]:
                                self._mark(controller.resource, rest['metadata'].get('namespace', ''),
                                           rest['metadata']['name'])
                            break
                        controller.sync_all([obj])
            except Exception:
                self.errors += 1
                log.exception('%s pass failed', type(controller).__name__)
        self.passes += 1
        self._slice_end = None
        if self._timers:
            soonest = min(self._timers.values())
            self._due = soonest if self._due is None else min(self._due, soonest)
        return self._due

    async def run(self):
        self._wake = asyncio.Event()
        self.attach()
        try:
            self.kubelet.ensure_nodes(self.nodes)
            while True:
                await self._yield_to_api()
                self._wake.clear()
                due = self.reconcile_once(budget=SLICE_SECONDS)
                if self._more:
                    await asyncio.sleep(0)  # the rest of the work at once, after the loop's other tasks
                    continue
                timeout = IDLE_RESYNC if due is None else max(0.0, min(IDLE_RESYNC, due - self.clock()))
                # Quiet for the whole resync period: the next pass syncs every object.
                self._full = timeout >= IDLE_RESYNC
                if not self._wake.is_set():
                    # Not asyncio.wait_for: on Python 3.11 it can swallow a cancellation that
                    # arrives as the event is set, and the manager would never stop.
                    waiter = asyncio.ensure_future(self._wake.wait())
                    try:
                        await asyncio.wait({waiter}, timeout=timeout)
                    finally:
                        waiter.cancel()
                if self._wake.is_set():
                    self._full = False
                await asyncio.sleep(MIN_PASS_INTERVAL)
        finally:
            self.detach()

    async def _yield_to_api(self):
        """Wait until the API has been quiet for API_QUIET seconds, at most MAX_API_DEFER."""
        if self.api_quiet is None:
            return
        deadline = self.clock() + MAX_API_DEFER
        while True:
            quiet = self.api_quiet()
            if quiet is None or quiet >= API_QUIET or self.clock() >= deadline:
                return
            await asyncio.sleep(API_QUIET - quiet)
