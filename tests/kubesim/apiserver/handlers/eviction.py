"""The `pods/eviction` subresource (pkg/registry/core/pod/storage/eviction.go, EvictionREST):
a POSTed policy/v1 Eviction deletes the pod, with its `deleteOptions`, unless the one
PodDisruptionBudget that selects it allows no disruption.

- The body's name, when given, must be the URL's (400 `name in URL does not match name in Eviction
  object`); the pod must exist (404).
- A pod that is terminal, Pending or already being deleted is deleted without looking at budgets
  (canIgnorePDB).
- Budgets are those of the pod's namespace whose selector matches its labels: more than one is a
  500 (`This pod has more than one PodDisruptionBudget, which the eviction subresource does not
  support.`); none deletes the pod. With one, a pod that is not Ready is deleted without using the
  budget when `unhealthyPodEvictionPolicy` is AlwaysAllow, or (IfHealthyBudget, the default) when
  the budget has its desired healthy pods; otherwise (checkAndDecrement) a budget whose status is
  older than its generation, or that allows no disruption, refuses with 429 `Cannot evict pod as it
  would violate the pod's disruption budget.` (cause DisruptionBudget), and else one disruption is
  taken: `disruptionsAllowed` less one and the pod in `disruptedPods`, then the pod is deleted.
- The answer is 201 with a Success Status; `dryRun=All` changes nothing.
"""

import json

from ...machinery.clock import now_rfc3339
from ...machinery.errors import ApiError
from ...machinery.selectors import matches_labels, selector_from_label_selector_object
from .responsewriters import _json_response

PDBS = 'policy/poddisruptionbudgets'
REFUSED = "Cannot evict pod as it would violate the pod's disruption budget."


def _ready(pod):
    return any(c.get('type') == 'Ready' and c.get('status') == 'True'
               for c in (pod.get('status') or {}).get('conditions') or [])


def _budgets(store, pod):
    labels = pod['metadata'].get('labels') or {}
    out = []
    for pdb in store.list(PDBS, pod['metadata'].get('namespace')):
        selector = (pdb.get('spec') or {}).get('selector')
        if selector is not None and matches_labels(selector_from_label_selector_object(selector), labels):
            out.append(pdb)
    return out


def _take_disruption(pdb, pod_name):
    """The status after one more disruption, or the 429 of checkAndDecrement."""
    status = dict(pdb.get('status') or {})
    name = pdb['metadata']['name']
    if status.get('observedGeneration', 0) < pdb['metadata'].get('generation', 0):
        cause = f'The disruption budget {name} is still being processed by the server.'
    elif status.get('disruptionsAllowed', 0) <= 0:
        cause = (f'The disruption budget {name} needs {status.get("desiredHealthy", 0)} healthy pods and has '
                 f'{status.get("currentHealthy", 0)} currently')
    else:
        status['disruptionsAllowed'] -= 1
        status['disruptedPods'] = {**(status.get('disruptedPods') or {}), pod_name: now_rfc3339()}
        return status
    raise ApiError(429, 'TooManyRequests', REFUSED,
                   {'causes': [{'reason': 'DisruptionBudget', 'message': cause}]})


async def evict(store, request, route, dry_run_of):
    if request.method != 'POST':
        raise ApiError.method_not_allowed()
    try:
        body = json.loads(await request.read() or b'{}')
    except ValueError as e:
        raise ApiError.bad_request(f'the Eviction body is not valid JSON: {e}')
    if not isinstance(body, dict):
        raise ApiError.bad_request('the Eviction body is not an object')
    given = (body.get('metadata') or {}).get('name')
    if given and given != route.name:
        raise ApiError.bad_request('name in URL does not match name in Eviction object')
    options = body.get('deleteOptions') or {}
    dry_run = dry_run_of(request, options)
    pod = store.must_get('/pods', route.namespace, route.name)
    phase = (pod.get('status') or {}).get('phase')
    if not (pod['metadata'].get('deletionTimestamp') or phase in ('Succeeded', 'Failed', 'Pending')):
        budgets = _budgets(store, pod)
        if len(budgets) > 1:
            raise ApiError.internal('This pod has more than one PodDisruptionBudget, which the eviction '
                                    'subresource does not support.')
        if budgets:
            pdb = budgets[0]
            status = pdb.get('status') or {}
            policy = (pdb.get('spec') or {}).get('unhealthyPodEvictionPolicy') or 'IfHealthyBudget'
            unhealthy_ok = not _ready(pod) and (
                policy == 'AlwaysAllow'
                or status.get('currentHealthy', 0) >= status.get('desiredHealthy', 0) > 0)
            if not unhealthy_ok:
                taken = _take_disruption(pdb, route.name)
                if not dry_run:
                    store.update(PDBS, {**pdb, 'status': taken}, subresource='status')
    store.delete_request('/pods', route.namespace, route.name, dry_run=dry_run,
                         preconditions=options.get('preconditions') or {},
                         grace_seconds=options.get('gracePeriodSeconds'))
    return _json_response({'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Success',
                           'code': 201}, status=201)
