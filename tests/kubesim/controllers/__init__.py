"""kubesim's controller manager: the kubelet stand-in and the workload controllers on one loop.

`ControllerManager.run()` creates the Nodes, then reconciles everything in passes: a pass runs the
kubelet (scheduling, pod readiness), then the ReplicaSet, ReplicationController, Deployment,
StatefulSet and DaemonSet controllers, each over all of its objects. A pass starts when the store
reports a change (a store listener sets an asyncio.Event), when a timer a controller asked for is
due (pod readiness, minReadySeconds, progress deadlines) or after an idle resync period; it never
spins while nothing happens. A failing sync is logged and retried on the next pass.

Time: `ready_delay` is in real seconds; `time_scale` makes controller time (minReadySeconds,
progressDeadlineSeconds) pass that many times faster.
"""

import asyncio
import logging
import re
import time

from ..errors import ApiError
from .common import is_pod_ready
from .daemonset import DaemonSetController
from .deployment import DeploymentController
from .events import EventRecorder
from .hpa import HorizontalPodAutoscalerController
from .index import ObjectIndex
from .kubelet import Kubelet
from .quota import ResourceQuotaController
from .replicaset import ReplicaSetController, ReplicationControllerController
from .statefulset import StatefulSetController
from .. import timeline

__all__ = ['ControllerManager']

log = logging.getLogger('kubesim.controllers')

# A full pass at least this often even when nothing changes (a safety net, not a busy loop).
IDLE_RESYNC = 1.0
# Pause between passes so bursts of events coalesce and API requests get the loop.
MIN_PASS_INTERVAL = 0.01
# Resources whose changes can give a controller work.
WATCHED = frozenset({'/pods', '/nodes', '/replicationcontrollers', 'apps/replicasets', 'apps/deployments',
                     'apps/statefulsets', 'apps/daemonsets', 'apps/controllerrevisions', '/resourcequotas',
                     'autoscaling/horizontalpodautoscalers'})


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
                            HorizontalPodAutoscalerController(self)]
        self.passes = 0
        self.errors = 0
        self._wake = None
        self._due = None
        self._listening = False

    # ---- services for the controllers ---------------------------------------------------------
    def wake_at(self, when):
        """Ask for a pass no later than monotonic time ``when``."""
        self._due = when if self._due is None else min(self._due, when)

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

    # ---- the loop ------------------------------------------------------------------------------
    def _on_event(self, event_type, resource, obj):
        self.index.observe(event_type, resource, obj)
        self.pods.observe(event_type, resource, obj)
        if resource in WATCHED and self._wake is not None:
            self._wake.set()

    def attach(self):
        """Start following store events (done by `run`; separate for tests that step passes)."""
        if not self._listening:
            self.store.listeners.append(self._on_event)
            self._listening = True

    def detach(self):
        if self._listening:
            self.store.listeners.remove(self._on_event)
            self._listening = False

    def reconcile_once(self):
        """One pass over every object. Returns the monotonic time a timer wants the next pass."""
        self._due = None
        self.index.rebuild()
        try:
            self.kubelet.sync()
        except Exception:
            self.errors += 1
            log.exception('kubelet pass failed')
        for controller in self.controllers:
            try:
                controller.sync_all()
            except Exception:
                self.errors += 1
                log.exception('%s pass failed', type(controller).__name__)
        self.passes += 1
        return self._due

    async def run(self):
        self._wake = asyncio.Event()
        self.attach()
        try:
            self.kubelet.ensure_nodes(self.nodes)
            while True:
                self._wake.clear()
                due = self.reconcile_once()
                timeout = IDLE_RESYNC if due is None else max(0.0, min(IDLE_RESYNC, due - self.clock()))
                if not self._wake.is_set():
                    # Not asyncio.wait_for: on Python 3.11 it can swallow a cancellation that
                    # arrives as the event is set, and the manager would never stop.
                    waiter = asyncio.ensure_future(self._wake.wait())
                    try:
                        await asyncio.wait({waiter}, timeout=timeout)
                    finally:
                        waiter.cancel()
                await asyncio.sleep(MIN_PASS_INTERVAL)
        finally:
            self.detach()
