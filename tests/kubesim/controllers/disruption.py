"""The disruption controller (pkg/controller/disruption/disruption.go), reduced: each
PodDisruptionBudget's status counts the pods its selector matches in its namespace (a budget
without a selector matches none): `expectedPods` those not being deleted, `currentHealthy` the
Ready ones, `desiredHealthy` the minAvailable (a percentage of the expected pods, rounded up) or
the expected pods less maxUnavailable (likewise), `disruptionsAllowed` what the healthy pods exceed
it by, with the DisruptionAllowed condition (SufficientPods / InsufficientPods) and
`observedGeneration`. The expected count is the matching pods, not the scale of their
controllers as Kubernetes reads it for percentages and maxUnavailable."""

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.clock import now_rfc3339
from ..machinery.selectors import matches_labels, selector_from_label_selector_object
from .common import is_deleting, is_pod_ready, labels_of, name_of, ns_of, scaled_value

PDBS = 'policy/poddisruptionbudgets'


def budget_status(pdb, pods, now):
    spec, old = pdb.get('spec') or {}, pdb.get('status') or {}
    selector = spec.get('selector')
    matched = []
    if selector is not None:
        reqs = selector_from_label_selector_object(selector)
        matched = [p for p in pods if not is_deleting(p) and matches_labels(reqs, labels_of(p))]
    expected = len(matched)
    healthy = sum(1 for p in matched if is_pod_ready(p))
    if spec.get('maxUnavailable') is not None:
        desired = max(0, expected - scaled_value(spec['maxUnavailable'], expected, True))
    else:
        desired = scaled_value(spec.get('minAvailable'), expected, True)
    allowed = max(0, healthy - desired) if expected > 0 else 0
    generation = pdb['metadata'].get('generation', 0)
    condition = {'type': 'DisruptionAllowed', 'status': 'True' if allowed > 0 else 'False',
                 'observedGeneration': generation,
                 'reason': 'SufficientPods' if allowed > 0 else 'InsufficientPods', 'message': ''}
    before = next((c for c in old.get('conditions') or [] if c.get('type') == 'DisruptionAllowed'), None)
    condition['lastTransitionTime'] = (before['lastTransitionTime'] if before is not None
                                       and before.get('status') == condition['status'] else now)
    status = {'observedGeneration': generation, 'disruptionsAllowed': allowed, 'currentHealthy': healthy,
              'desiredHealthy': desired, 'expectedPods': expected, 'conditions': [condition]}
    if old.get('disruptedPods'):
        status['disruptedPods'] = old['disruptedPods']
    return status


class DisruptionController:
    resource = PDBS

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store

    def sync_all(self):
        for pdb in self.mgr.index.list(self.resource):
            self.mgr.guard('PodDisruptionBudget', pdb, self.sync, pdb)

    def sync(self, pdb):
        pods = self.mgr.index.peek('/pods', ns_of(pdb))
        status = budget_status(pdb, pods, now_rfc3339())
        current = pdb.get('status') or {}
        if {k: v for k, v in status.items() if k != 'conditions'} == \
                {k: v for k, v in current.items() if k != 'conditions'} and \
                [dict(c, lastTransitionTime='') for c in status['conditions']] == \
                [dict(c, lastTransitionTime='') for c in current.get('conditions') or []]:
            return
        self.store.update(self.resource, {'metadata': {'name': name_of(pdb), 'namespace': ns_of(pdb)},
                                          'status': status}, subresource='status',
                          manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))
