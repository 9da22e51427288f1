"""ReplicaSet and ReplicationController controllers (pkg/controller/replicaset in Kubernetes).

Both keep `spec.replicas` pods matching the selector: create missing ones from the template
(named `<owner>-<5 random chars>`), delete surplus ones (least useful first, as
`controller.ActivePodsWithRanks` with `LogarithmicScaleDown`: see `less_useful`), adopt matching
orphans and release pods that no longer match. The RC is the same controller with a plain-map
selector in the core API group.
"""

import datetime
import functools
import math
import re
import time

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.clock import now_rfc3339
from ..machinery.errors import ApiError
from ..machinery.selectors import matches_labels, selector_from_label_selector_object
from .common import (claim, controller_of, create_with_random_name, is_deleting, is_pod_active,
                     is_pod_ready, labels_of, name_of, ns_of, omit_zero, pod_condition, pod_from_template,
                     pod_phase, template_labels_match, uid_of)
from .events import WARNING

REPLICA_FAILURE = 'ReplicaFailure'
_PHASE_RANK = {'Pending': 0, 'Unknown': 1, 'Running': 2}
DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost'
_INT = re.compile(r'[+-]?[0-9]+')


class ReplicaSetController:
    resource = 'apps/replicasets'
    component = 'replicaset-controller'
    api_version = 'apps/v1'
    kind = 'ReplicaSet'
    # status.terminatingReplicas (DeploymentReplicaSetTerminatingReplicas, beta and on since 1.35;
    # ReplicationControllers have no such field).
    reports_terminating = True

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store

    def selector(self, owner):
        return selector_from_label_selector_object((owner.get('spec') or {}).get('selector'))

    def sync_all(self, objects=None):
        """Sync ``objects`` (the ones that changed), or every owner."""
        for owner in self.mgr.index.list(self.resource) if objects is None else objects:
            self.mgr.guard(self.kind, owner, self.sync, owner)

    def sync(self, owner):
        spec = owner.get('spec') or {}
        selector = self.selector(owner)
        listed = self.mgr.index.list('/pods', ns_of(owner), selector, uid_of(owner))
        candidates = [p for p in listed if is_pod_active(p)]
        pods = claim(self.store, '/pods', owner, self.api_version, self.kind, candidates, selector)
        # FilterTerminatingPods, then FilterClaimedPods: being deleted, not finished, ours.
        terminating = [p for p in listed if is_deleting(p) and pod_phase(p) not in ('Succeeded', 'Failed')
                       and (controller_of(p) or {}).get('uid') == uid_of(owner)]
        failure = None
        if not is_deleting(owner):
            pods, failure = self.manage_replicas(owner, pods, spec.get('replicas', 1))
        self.update_status(owner, pods, failure, terminating)

    def manage_replicas(self, owner, pods, replicas):
        """Create or delete pods toward ``replicas``. Returns (pods, the failed creation's condition
        reason and message or None): a refused creation (quota, admission) is a `FailedCreate` event
        and stops this pass's creations, as the slow-start batches do."""
        diff = len(pods) - replicas
        template = (owner.get('spec') or {}).get('template') or {}
        if diff < 0:
            prefix = f'{name_of(owner)}-'
            for _ in range(-diff):
                pod = pod_from_template(template, owner, self.api_version, self.kind, '', prefix)
                try:
                    pods.append(create_with_random_name(self.store, pod, prefix))
                except ApiError as err:
                    self.mgr.events.record(owner, WARNING, 'FailedCreate', f'Error creating: {err.message}',
                                           self.component)
                    return pods, ('FailedCreate', err.message)
        elif diff > 0:
            doomed = sorted(pods, key=self.ranking(self.pods_per_node(owner)))[:diff]
            for pod in doomed:
                try:
                    self.store.delete('/pods', ns_of(pod), name_of(pod))
                except ApiError as err:
                    if err.code != 404:
                        raise
            gone = {name_of(p) for p in doomed}
            pods = [p for p in pods if name_of(p) not in gone]
        return pods, None

    def ranking(self, on_node=None, now=None):
        """A sort key putting the pods to delete first, for one sort: `less_useful` with ``now``
        (wall-clock nanoseconds, taken once here by default, as the controller does per sort) and
        ``on_node`` (`pods_per_node`). Where Kubernetes sees a tie (its order is then arbitrary),
        the pod kubesim saw created last goes first, then the smaller name."""
        now = time.time_ns() if now is None else now
        on_node = on_node or {}

        def compare(a, b):
            if less_useful(a, b, on_node, now):
                return -1
            if less_useful(b, a, on_node, now):
                return 1
            created_a, created_b = self.mgr.pods.created_at(a) or 0.0, self.mgr.pods.created_at(b) or 0.0
            if created_a != created_b:
                return -1 if created_a > created_b else 1
            return (name_of(a) > name_of(b)) - (name_of(a) < name_of(b))
        return functools.cmp_to_key(compare)

    def pods_per_node(self, owner):
        """Active pods per node among the pods related to ``owner``: those the selectors of all
        the objects sharing its controller match (none when it has no controller)."""
        ref = controller_of(owner)
        if ref is None:
            return {}
        related = {}
        for sibling in self.mgr.index.peek(self.resource, ns_of(owner)):
            if (controller_of(sibling) or {}).get('uid') != ref.get('uid'):
                continue
            selector = self.selector(sibling)
            for pod in self.mgr.index.peek('/pods', ns_of(owner)):
                if selector and matches_labels(selector, labels_of(pod)):
                    related.setdefault(uid_of(pod), pod)
        counts = {}
        for pod in related.values():
            if is_pod_active(pod):
                node = (pod.get('spec') or {}).get('nodeName') or ''
                counts[node] = counts.get(node, 0) + 1
        return counts

    def update_status(self, owner, pods, failure=None, terminating=()):
        spec = owner.get('spec') or {}
        min_ready = spec.get('minReadySeconds', 0)
        template = spec.get('template') or {}
        ready = [p for p in pods if is_pod_ready(p)]
        available = [p for p in ready if self.mgr.is_available(p, min_ready)]
        status = {'replicas': len(pods)}
        status.update(omit_zero({
            'fullyLabeledReplicas': sum(1 for p in pods if template_labels_match(template, p)),
            'readyReplicas': len(ready),
            'availableReplicas': len(available),
            'observedGeneration': owner['metadata'].get('generation', 1),
        }))
        if self.reports_terminating:
            status['terminatingReplicas'] = len(terminating)
        old = owner.get('status') or {}
        conditions = list(old.get('conditions') or [])
        current = next((c for c in conditions if c.get('type') == REPLICA_FAILURE), None)
        if failure is not None and current is None:
            reason, message = failure
            conditions.append({'type': REPLICA_FAILURE, 'status': 'True', 'lastTransitionTime': now_rfc3339(),
                               'reason': reason, 'message': message})
        elif failure is None and current is not None:
            conditions.remove(current)
        if conditions:
            status['conditions'] = conditions
        if status != old:
            self.store.update(self.resource, {'metadata': {'name': name_of(owner), 'namespace': ns_of(owner)},
                                              'status': status}, subresource='status',
                              manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))


def deletion_cost(pod):
    """The pod's `controller.kubernetes.io/pod-deletion-cost`: a base-10 int32, else 0."""
    text = ((pod['metadata'].get('annotations') or {}).get(DELETION_COST) or '')
    if not _INT.fullmatch(text):
        return 0
    value = int(text)
    return value if -2**31 <= value < 2**31 else 0


def _max_restarts(pod):
    """The highest restart count among regular containers, then among sidecars (init containers
    that restart always)."""
    status = pod.get('status') or {}
    regular = max((c.get('restartCount', 0) for c in status.get('containerStatuses') or []), default=0)
    always = {c.get('name') for c in (pod.get('spec') or {}).get('initContainers') or []
              if c.get('restartPolicy') == 'Always'}
    sidecar = max((c.get('restartCount', 0) for c in status.get('initContainerStatuses') or []
                   if c.get('name') in always), default=0)
    return regular, sidecar


def less_useful(a, b, on_node, now):
    """Whether pod ``a`` goes before pod ``b`` when pods are deleted (`ActivePodsWithRanks.Less`
    with `LogarithmicScaleDown`): unassigned before assigned; Pending before Unknown before
    Running; not ready before ready; lower `pod-deletion-cost` first; more of the related pods on
    its node (``on_node``: node name -> count) first; then, both ready since different times, the
    more recently ready first, by log2 buckets of the time since (`_newer_by_log_bucket`); more
    container restarts (regular, then sidecar) first; the newer creationTimestamp first, again by
    log2 buckets. ``now`` is in wall-clock nanoseconds. Equal pods: False both ways."""
    spec_a, spec_b = a.get('spec') or {}, b.get('spec') or {}
    node_a, node_b = spec_a.get('nodeName') or '', spec_b.get('nodeName') or ''
    if bool(node_a) != bool(node_b):
        return not node_a
    phase_a, phase_b = _PHASE_RANK.get(pod_phase(a), 0), _PHASE_RANK.get(pod_phase(b), 0)
    if phase_a != phase_b:
        return phase_a < phase_b
    ready_a, ready_b = is_pod_ready(a), is_pod_ready(b)
    if ready_a != ready_b:
        return not ready_a
    cost_a, cost_b = deletion_cost(a), deletion_cost(b)
    if cost_a != cost_b:
        return cost_a < cost_b
    rank_a, rank_b = on_node.get(node_a, 0), on_node.get(node_b, 0)
    if rank_a != rank_b:
        return rank_a > rank_b
    if ready_a and ready_b:
        since_a, since_b = _ready_time(a), _ready_time(b)
        if since_a != since_b:
            return _newer_by_log_bucket(since_a, since_b, uid_of(a), uid_of(b), now)
    restarts_a, restarts_b = _max_restarts(a), _max_restarts(b)
    if restarts_a != restarts_b:
        return restarts_a > restarts_b
    created_a = _time(a['metadata'].get('creationTimestamp'))
    created_b = _time(b['metadata'].get('creationTimestamp'))
    if created_a != created_b:
        return _newer_by_log_bucket(created_a, created_b, uid_of(a), uid_of(b), now)
    return False


def _newer_by_log_bucket(t1, t2, uid1, uid2, now):
    """Times (nanoseconds, None for a zero time) compared by the base-2 log of their age at
    ``now``: the younger bucket first, the smaller UID within a bucket. A zero time goes first
    (afterOrZero), else the later time."""
    if t1 is None or t2 is None:
        return t1 is None
    if not now:
        return t1 > t2
    diff = _log2_age(t1, now) - _log2_age(t2, now)
    if diff == 0:
        return uid1 < uid2
    return diff < 0


def _log2_age(t, now):
    age = now - t
    return int(math.log2(float(age))) if age > 0 else -1


def _ready_time(pod):
    """The Ready=True condition's lastTransitionTime in nanoseconds, None when absent."""
    cond = pod_condition(pod, 'Ready')
    if cond is None or cond.get('status') != 'True':
        return None
    return _time(cond.get('lastTransitionTime'))


def _time(text):
    """An API timestamp (RFC 3339) in nanoseconds since the epoch; None for a zero (absent,
    unreadable) time."""
    if not text or not isinstance(text, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    delta = parsed - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000


class ReplicationControllerController(ReplicaSetController):
    resource = '/replicationcontrollers'
    component = 'replication-controller'
    api_version = 'v1'
    kind = 'ReplicationController'
    reports_terminating = False

    def selector(self, owner):
        sel = (owner.get('spec') or {}).get('selector') or {}
        return [(k, '=', {v}) for k, v in sorted(sel.items())]
