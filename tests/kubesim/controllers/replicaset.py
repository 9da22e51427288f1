"""ReplicaSet and ReplicationController controllers (pkg/controller/replicaset in Kubernetes).

Both keep `spec.replicas` pods matching the selector: create missing ones from the template
(named `<owner>-<5 random chars>`), delete surplus ones (least useful first: unscheduled, pending,
not ready, lowest `pod-deletion-cost`, most doubled up on a node, ready the shortest time, most
restarted, newest), adopt matching orphans and release pods that no
longer match. The RC is the same controller with a plain-map selector in the core API group.
"""

import re

from ..errors import ApiError
from ..selectors import matches_labels, selector_from_label_selector_object
from ..store import now_rfc3339
from .common import (claim, controller_of, create_with_random_name, creation_key, is_deleting,
                     is_pod_active, is_pod_ready, labels_of, name_of, ns_of, omit_zero, pod_from_template,
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

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store

    def selector(self, owner):
        return selector_from_label_selector_object((owner.get('spec') or {}).get('selector'))

    def sync_all(self):
        for owner in self.mgr.index.list(self.resource):
            self.mgr.guard(self.kind, owner, self.sync, owner)

    def sync(self, owner):
        spec = owner.get('spec') or {}
        selector = self.selector(owner)
        candidates = [p for p in self.mgr.index.list('/pods', ns_of(owner), selector, uid_of(owner))
                      if is_pod_active(p)]
        pods = claim(self.store, '/pods', owner, self.api_version, self.kind, candidates, selector)
        failure = None
        if not is_deleting(owner):
            pods, failure = self.manage_replicas(owner, pods, spec.get('replicas', 1))
        self.update_status(owner, pods, failure)

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
            on_node = self.pods_per_node(owner)
            doomed = sorted(pods, key=lambda pod: self.deletion_rank(pod, on_node))[:diff]
            for pod in doomed:
                try:
                    self.store.delete('/pods', ns_of(pod), name_of(pod))
                except ApiError as err:
                    if err.code != 404:
                        raise
            gone = {name_of(p) for p in doomed}
            pods = [p for p in pods if name_of(p) not in gone]
        return pods, None

    def deletion_rank(self, pod, on_node=None):
        """Smaller ranks are deleted first (controller.ActivePodsWithRanks): unassigned, pending
        before unknown before running, not ready, lower `pod-deletion-cost`, more of the related
        pods on its node, ready the shortest time, more container restarts, newest."""
        node = (pod.get('spec') or {}).get('nodeName') or ''
        ready = is_pod_ready(pod)
        since = self.mgr.pods.ready_since(pod) if ready else 0.0
        created = self.mgr.pods.created_at(pod) or 0.0
        ts, name = creation_key(pod)
        regular, sidecar = _max_restarts(pod)
        return (bool(node), _PHASE_RANK.get(pod_phase(pod), 0), ready, deletion_cost(pod),
                -(on_node or {}).get(node, 0), -(since or 0.0), -regular, -sidecar, -created,
                _neg(ts), name)

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

    def update_status(self, owner, pods, failure=None):
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
                                              'status': status}, subresource='status')


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


def _neg(text):
    """Invert a string's order for sorting (newer creation timestamps first)."""
    return tuple(-ord(c) for c in text)


class ReplicationControllerController(ReplicaSetController):
    resource = '/replicationcontrollers'
    component = 'replication-controller'
    api_version = 'v1'
    kind = 'ReplicationController'

    def selector(self, owner):
        sel = (owner.get('spec') or {}).get('selector') or {}
        return [(k, '=', {v}) for k, v in sorted(sel.items())]
