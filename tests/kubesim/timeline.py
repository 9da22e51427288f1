"""The readiness log: every pod creation, deletion and readiness change, with monotonic times.

The controller manager records one entry per event (see `PodTracker`); `workload_timeline` replays
those entries to give, after every event, how many pods a workload had and how many were available,
so tests can check rolling-update bounds at every instant of a rollout.
"""

import time

from .controllers.common import controller_of, is_pod_ready

CREATED, READY, UNREADY, DELETED, REMOVED = 'created', 'ready', 'unready', 'deleted', 'removed'


class PodTracker:
    """Follows every pod write in the store (as a store listener) and keeps per-pod timing.

    A pod is `deleted` when its deletion is asked for (its `deletionTimestamp` appears, or it goes at
    once): from then on its controller no longer counts it. It is `removed` when it leaves the
    store, its containers stopped.

    ``log`` is the readiness log. Each entry: ``{"t", "event", "namespace", "pod", "owner_kind",
    "owner_name", "workload_kind", "workload_name"}``; owner is the pod's controller (e.g. a
    ReplicaSet), workload the top-level controller above it (e.g. the Deployment owning that
    ReplicaSet), or the owner itself.
    """

    def __init__(self, store, clock=time.monotonic):
        self.store = store
        self.clock = clock
        self.log = []
        self._pods = {}  # uid -> {'ready': bool, 'created': t, 'ready_since': t|None, ...}

    def created_at(self, pod):
        state = self._pods.get(pod['metadata'].get('uid'))
        return state['created'] if state else None

    def ready_since(self, pod):
        """Monotonic time the pod last became ready, or None when it is not ready."""
        state = self._pods.get(pod['metadata'].get('uid'))
        if state is None:
            return self.clock() - 1e6 if is_pod_ready(pod) else None  # ready before we watched
        return state['ready_since']

    def observe(self, event_type, resource, obj):
        if resource != '/pods':
            return
        now = self.clock()
        meta = obj['metadata']
        uid = meta.get('uid')
        ready = is_pod_ready(obj)
        if event_type == 'ADDED':
            owner_kind, owner_name, wl_kind, wl_name = self._owners(obj)
            state = {'ready': False, 'created': now, 'ready_since': None, 'owner_kind': owner_kind,
                     'owner_name': owner_name, 'workload_kind': wl_kind, 'workload_name': wl_name}
            self._pods[uid] = state
            self._record(now, CREATED, obj, state)
            if ready:
                state['ready'], state['ready_since'] = True, now
                self._record(now, READY, obj, state)
        elif event_type == 'MODIFIED':
            state = self._pods.get(uid)
            if state is None or state.get('deleted'):
                return
            if meta.get('deletionTimestamp'):
                # Deletion asked for: the pod leaves its controller's count now, while its
                # containers stop (it is `removed` when it is gone).
                state['deleted'] = True
                self._record(now, DELETED, obj, state)
                return
            if state['ready'] == ready:
                return
            state['ready'] = ready
            state['ready_since'] = now if ready else None
            self._record(now, READY if ready else UNREADY, obj, state)
        elif event_type == 'DELETED':
            state = self._pods.pop(uid, None)
            if state is not None:
                if not state.get('deleted'):
                    self._record(now, DELETED, obj, state)
                self._record(now, REMOVED, obj, state)

    def _owners(self, pod):
        ref = controller_of(pod)
        if ref is None:
            return '', '', '', ''
        kind, name = ref.get('kind', ''), ref.get('name', '')
        wl_kind, wl_name = kind, name
        if kind == 'ReplicaSet':
            rs = self.store.objects.get(('apps/replicasets', pod['metadata'].get('namespace', ''), name))
            parent = controller_of(rs) if rs else None
            if parent is not None:
                wl_kind, wl_name = parent.get('kind', ''), parent.get('name', '')
        return kind, name, wl_kind, wl_name

    def _record(self, now, event, pod, state):
        self.log.append({'t': now, 'event': event, 'namespace': pod['metadata'].get('namespace', ''),
                         'pod': pod['metadata']['name'], 'owner_kind': state['owner_kind'],
                         'owner_name': state['owner_name'], 'workload_kind': state['workload_kind'],
                         'workload_name': state['workload_name']})


def workload_timeline(log, namespace, kind, name, since=None, until=None):
    """Replay the readiness log for one workload.

    A pod belongs to the workload when the workload is its owner (``owner_kind/owner_name``) or the
    owner's own controller (``workload_kind/workload_name``), so ``kind='Deployment'`` counts the pods
    of all its ReplicaSets. Ready counts as available (minReadySeconds is not taken into account).

    Returns ``[(t, pods, available), ...]``: the first entry is the state at ``since`` (or at the first
    event), then one entry after every event of the workload up to ``until``.
    """
    pods = {}  # pod name -> ready
    out = []
    started = since is None
    for entry in list(log):
        if entry['namespace'] != namespace:
            continue
        mine = ((entry['owner_kind'], entry['owner_name']) == (kind, name)
                or (entry.get('workload_kind'), entry.get('workload_name')) == (kind, name))
        if not mine:
            continue
        t = entry['t']
        if until is not None and t > until:
            break
        if not started and t >= since:
            out.append((since, len(pods), sum(pods.values())))
            started = True
        event, pod = entry['event'], entry['pod']
        if event == CREATED:
            pods[pod] = False
        elif event == READY:
            pods[pod] = True
        elif event == UNREADY:
            pods[pod] = False
        elif event == DELETED:
            pods.pop(pod, None)
        if started:
            out.append((t, len(pods), sum(pods.values())))
    if not started:
        out.append((since, len(pods), sum(pods.values())))
    return out


def extremes(timeline):
    """(max pods, min available) over a timeline from `workload_timeline`."""
    return max(p for _t, p, _a in timeline), min(a for _t, _p, a in timeline)


# ---- the endpoints timeline ----------------------------------------------------------------------
SLICES = 'discovery.k8s.io/endpointslices'
SERVICE_NAME_LABEL = 'kubernetes.io/service-name'


class EndpointsTracker:
    """Follows every EndpointSlice write in the store (a store listener) and keeps, per Service,
    which pods were ready endpoints when: the union over the Service's slices (every slice
    labelled `kubernetes.io/service-name`, whoever wrote it) of the endpoints whose
    `conditions.ready` is not false (a missing condition counts as ready, as consumers must read
    it) and that name a pod. That is what a proxy (kube-proxy, a gateway) routes to, as of the
    slices kubesim wrote: with an endpoint lag it can differ from the pods' readiness, which the
    readiness log records.

    ``log[(namespace, service)]`` is ``[(t, frozenset of pod names), ...]``: one entry each time
    the set changes, monotonic times as in the readiness log."""

    def __init__(self, store, clock=time.monotonic):
        self.store = store
        self.clock = clock
        self.log = {}
        self._slices = {}  # (namespace, service) -> {slice name: frozenset of ready pod names}

    def observe(self, event_type, resource, obj):
        if resource != SLICES:
            return
        meta = obj['metadata']
        namespace, name = meta.get('namespace', ''), meta['name']
        service = (meta.get('labels') or {}).get(SERVICE_NAME_LABEL)
        # A slice whose label changed leaves the Service it named before.
        for key, slices in self._slices.items():
            if name in slices and key != (namespace, service):
                del slices[name]
                self._record(key)
        if not service:
            return
        key = (namespace, service)
        slices = self._slices.setdefault(key, {})
        if event_type == 'DELETED':
            slices.pop(name, None)
        else:
            slices[name] = frozenset(
                (e.get('targetRef') or {}).get('name') for e in obj.get('endpoints') or []
                if (e.get('conditions') or {}).get('ready') is not False
                and (e.get('targetRef') or {}).get('kind') == 'Pod')
        self._record(key)

    def _record(self, key):
        ready = frozenset().union(*self._slices.get(key, {}).values())
        entries = self.log.setdefault(key, [])
        if not entries or entries[-1][1] != ready:
            entries.append((self.clock(), ready))


def endpoint_gaps(timeline, since=None, until=None, tolerance=0.0):
    """The intervals ``[(start, end), ...]`` within [since, until] in which the Service had no ready
    endpoint (``end`` None: still none at the end of the timeline). Before its first entry a
    Service had none (counted only from ``since``). Gaps no longer than ``tolerance`` seconds are
    left out. An empty list: never without a ready endpoint in that window."""
    points = [(float('-inf'), frozenset())] + list(timeline)
    gaps = []
    for i, (t, ready) in enumerate(points):
        if ready:
            continue
        end = points[i + 1][0] if i + 1 < len(points) else None
        begin = t if since is None else max(t, since)
        if begin == float('-inf'):
            continue  # before the Service's first slice, with no window asked for
        if until is not None:
            end = until if end is None else min(end, until)
            if end <= begin:
                continue
        elif end is not None and end <= begin:
            continue
        if gaps and gaps[-1][1] == begin:
            begin = gaps.pop()[0]  # an empty first slice continues the gap before it
        gaps.append((begin, end))
    return [(a, b) for a, b in gaps if b is None or b - a > tolerance]


def ready_pods_at(readiness_log, namespace):
    """{pod: [(t, routable), ...]} from the readiness log: a pod is routable from `ready` until
    `unready`, `deleted` (its deletion asked for) or `removed`."""
    out = {}
    for entry in list(readiness_log):
        if entry['namespace'] != namespace:
            continue
        event = entry['event']
        out.setdefault(entry['pod'], []).append((entry['t'], event == READY))
    return out


def _routable(changes, t):
    """Whether the readiness changes say the pod was Ready at t (False before any)."""
    state = False
    for when, ready in changes:
        if when > t:
            break
        state = ready
    return state


def unready_routes(timeline, readiness_log, namespace, since=None, until=None, tolerance=0.0):
    """The times a proxy would have routed to a pod that was not Ready: ``[(start, end, pod), ...]``
    where the endpoints timeline had ``pod`` as a ready endpoint while the readiness log said it
    was not Ready (not yet Ready, unready, or its deletion asked for). ``end`` is None when it
    lasted to ``until`` (or the end of the logs). Intervals no longer than ``tolerance`` seconds
    (the propagation of a change even without a lag) are left out. An empty list: never."""
    pods = ready_pods_at(readiness_log, namespace)
    # Every instant where either log changes, within the window.
    instants = sorted({t for t, _ready in timeline}
                      | {t for changes in pods.values() for t, _r in changes})
    out = []
    open_since = {}
    for t in instants:
        if until is not None and t > until:
            break
        routed = frozenset()
        for when, ready in timeline:
            if when > t:
                break
            routed = ready
        bad = {p for p in routed if not _routable(pods.get(p, ()), t)}
        for pod in bad:
            open_since.setdefault(pod, t)
        for pod in list(open_since):
            if pod not in bad:
                start = open_since.pop(pod)
                out.append((start, t, pod))
    for pod, start in open_since.items():
        out.append((start, None, pod))
    if since is not None:
        out = [(max(a, since), b, p) for a, b, p in out if b is None or b > since]
    out = [(a, b, p) for a, b, p in out if b is None or b - a > tolerance]
    return sorted(out, key=lambda item: (item[0], item[2]))
