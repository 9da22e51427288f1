"""The scheduler (pkg/scheduler), as kubesim runs it: in the kubelet's pass, for each pod without a
node.

The scheduler binds a pod to the ready node with the fewest pods among those where it fits: the
node's `status.allocatable` cpu, memory and pods must cover what the pods already bound there
request plus this pod's requests (limits stand in for unset requests), and `nodeSelector` must
match the node's labels; a cordoned node (`spec.unschedulable`) takes only pods that tolerate the
taint `node.kubernetes.io/unschedulable:NoSchedule` (daemon pods do). A pod that fits nowhere
stays Pending with `PodScheduled=False`, reason `Unschedulable`, and a `FailedScheduling` event
carrying the scheduler's message ("0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3
nodes are available: 3 No preemption victims found for incoming pod."); it is bound once it fits.
"""

import copy
from fractions import Fraction

from ..machinery.clock import now_rfc3339
from ..controllers.common import name_of
from ..controllers.events import WARNING
from ..machinery.quantity import parse_quantity
from .status import new_condition

SCHEDULER = 'default-scheduler'
UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable'


def pod_requests(pod):
    """The cpu and memory a pod asks for: containers summed, at least its largest init container;
    a container's limit stands in for an unset request (as API defaulting fills it in)."""
    spec = pod.get('spec') or {}
    out = {}
    for name in ('cpu', 'memory'):
        def value(container, name=name):
            resources = container.get('resources') or {}
            raw = (resources.get('requests') or {}).get(name, (resources.get('limits') or {}).get(name))
            try:
                return parse_quantity(raw).value if raw is not None else Fraction(0)
            except ValueError:
                return Fraction(0)
        total = sum((value(c) for c in spec.get('containers') or []), Fraction(0))
        for c in spec.get('initContainers') or []:
            total = max(total, value(c))
        out[name] = total
    return out


def _requirement_matches(req, value):
    op, values = req.get('operator'), req.get('values') or []
    if op == 'In':
        return value is not None and value in values
    if op == 'NotIn':
        return value is None or value not in values
    if op == 'Exists':
        return value is not None
    if op == 'DoesNotExist':
        return value is None
    if op in ('Gt', 'Lt') and value is not None and len(values) == 1:
        try:
            actual, bound = int(value), int(values[0])
        except ValueError:
            return False
        return actual > bound if op == 'Gt' else actual < bound
    return False


def matches_node_selector(required, node):
    """A required node-affinity NodeSelector: terms are ORed; a term's matchExpressions (labels)
    and matchFields (only metadata.name) are ANDed; no terms matches nothing, no selector all."""
    if not required:
        return True
    labels = node['metadata'].get('labels') or {}
    for term in required.get('nodeSelectorTerms') or []:
        exprs, fields = term.get('matchExpressions') or [], term.get('matchFields') or []
        if not exprs and not fields:
            continue
        if all(_requirement_matches(r, labels.get(r.get('key'))) for r in exprs) and all(
                _requirement_matches(r, name_of(node) if r.get('key') == 'metadata.name' else None)
                for r in fields):
            return True
    return False


def tolerates_unschedulable(tolerations):
    """Whether a pod tolerates a cordoned node (the NodeUnschedulable filter plugin: the taint
    `node.kubernetes.io/unschedulable:NoSchedule`, as v1 Toleration.ToleratesTaint matches it)."""
    for t in tolerations:
        if t.get('effect') not in (None, '', 'NoSchedule'):
            continue
        exists = t.get('operator') == 'Exists'
        if t.get('key') in (None, '') and exists:
            return True
        if t.get('key') == UNSCHEDULABLE_TAINT and (exists or not t.get('value')):
            return True
    return False


def unschedulable_message(total, reasons):
    """The scheduler's FitError text with the preemption post-filter's verdict (no pod in kubesim
    has a priority, so preemption never finds victims)."""
    def histogram(counts):
        return ', '.join(sorted(f'{n} {reason}' for reason, n in counts.items()))

    preemption = {}
    for reason, n in reasons.items():
        helpful = reason.startswith('Insufficient ') or reason == 'Too many pods'
        verdict = 'No preemption victims found for incoming pod' if helpful else \
            'Preemption is not helpful for scheduling'
        preemption[verdict] = preemption.get(verdict, 0) + n
    return (f'0/{total} nodes are available: {histogram(reasons)}. '
            f'preemption: 0/{total} nodes are available: {histogram(preemption)}.')


class SchedulerMixin:
    """The scheduler's part of the kubelet: binding a pod to a node."""

    def schedule(self, pod, nodes, load, all_nodes):
        """The node to bind ``pod`` to, or None after marking it unschedulable."""
        unbound = self._unbound_claims(pod)
        if unbound:
            total = len(all_nodes)
            self._unschedulable(pod, f'0/{total} nodes are available: {unbound}. preemption: 0/{total} nodes '
                                     f'are available: {total} Preemption is not helpful for scheduling.')
            return None
        wanted = pod_requests(pod)
        spec = pod.get('spec') or {}
        selector = spec.get('nodeSelector') or {}
        required = ((spec.get('affinity') or {}).get('nodeAffinity') or {}).get(
            'requiredDuringSchedulingIgnoredDuringExecution')
        fits, reasons = [], {}
        for node in all_nodes:
            name = name_of(node)
            why = self._misfit(node, name in nodes, wanted, selector, load.get(name), required,
                               spec.get('tolerations') or ())
            if why:
                for reason in why:
                    reasons[reason] = reasons.get(reason, 0) + 1
            else:
                fits.append(name)
        if fits:
            chosen = min(fits, key=lambda n: ((load.get(n) or {}).get('pods', 0), n))
            used = load.setdefault(chosen, {'pods': 0, 'cpu': Fraction(0), 'memory': Fraction(0)})
            used['pods'] += 1
            for name, value in wanted.items():
                used[name] += value
            return chosen
        self._unschedulable(pod, unschedulable_message(len(all_nodes), reasons))
        return None

    def _unbound_claims(self, pod):
        """The VolumeBinding plugin's PreFilter verdict on the pod's claims (a missing, deleted or
        unbound claim keeps it Pending), or None."""
        namespace = (pod.get('metadata') or {}).get('namespace', '')
        for volume in (pod.get('spec') or {}).get('volumes') or []:
            name = (volume.get('persistentVolumeClaim') or {}).get('claimName')
            if not name:
                continue
            claim = self.mgr.index.stored('/persistentvolumeclaims', namespace, name)
            if claim is None:
                return f'persistentvolumeclaim "{name}" not found'
            if claim['metadata'].get('deletionTimestamp'):
                return f'persistentvolumeclaim "{name}" is being deleted'
            if not (claim.get('spec') or {}).get('volumeName'):
                return 'pod has unbound immediate PersistentVolumeClaims'
        return None

    @staticmethod
    def _misfit(node, ready, wanted, selector, used, required=None, tolerations=()):
        """Why ``node`` cannot take the pod, as the scheduler's filter plugins word it."""
        if (node.get('spec') or {}).get('unschedulable') and not tolerates_unschedulable(tolerations):
            return ['node(s) were unschedulable']
        if not ready:
            return ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }']
        labels = node['metadata'].get('labels') or {}
        if any(labels.get(k) != v for k, v in selector.items()) or not matches_node_selector(required, node):
            return ["node(s) didn't match Pod's node affinity/selector"]
        allocatable = (node.get('status') or {}).get('allocatable') or {}
        used = used or {'pods': 0, 'cpu': Fraction(0), 'memory': Fraction(0)}
        out = []
        if 'pods' in allocatable and used['pods'] + 1 > parse_quantity(allocatable['pods']).value:
            out.append('Too many pods')
        for name in ('cpu', 'memory'):
            if wanted.get(name) and name in allocatable:
                if used[name] + wanted[name] > parse_quantity(allocatable[name]).value:
                    out.append(f'Insufficient {name}')
        return out

    def _unschedulable(self, pod, message):
        status = copy.deepcopy(pod.get('status') or {})
        status.setdefault('phase', 'Pending')
        conditions = [c for c in status.get('conditions') or [] if c.get('type') != 'PodScheduled']
        old = next((c for c in status.get('conditions') or [] if c.get('type') == 'PodScheduled'), None)
        if old is not None and old.get('status') == 'False' and old.get('message') == message:
            return
        conditions.append(new_condition('PodScheduled', 'False', now_rfc3339(), 'Unschedulable', message))
        status['conditions'] = conditions
        self._set_status(pod, status)
        self.mgr.events.record(pod, WARNING, 'FailedScheduling', message, SCHEDULER)
