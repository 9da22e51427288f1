"""ResourceQuota, in one place: the usage of a namespace's pods (the pod evaluator of
pkg/quota/v1/evaluator/core/pods.go), the ResourceQuota admission plugin that checks a pod's
creation against it (plugin/pkg/admission/resourcequota, `check`, which the API server's store
runs as a validating admission plugin) and the quota controller that reports it in each quota's
status (pkg/controller/resourcequota, `ResourceQuotaController`).

A quota's `spec.hard` may limit `pods` (or `count/pods`), `requests.cpu` (or `cpu`),
`requests.memory` (or `memory`), `limits.cpu` and `limits.memory` in its namespace. Creating a pod
that would take usage over a limit is forbidden (403) with the API server's message, e.g.
`pods "web-abc12" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2,
limited: pods=2`; a pod that leaves a limited compute resource unset is forbidden with
`failed quota: compute: must specify limits.cpu for: app`. Scopes and scope selectors are not
simulated (every quota applies to every pod). Usage counts the namespace's pods that have not
finished (phase Succeeded or Failed), as the quota controller's evaluator does.
"""

from ..apiserver.recorders import CONTROLLER_MANAGER, recorder
from ..machinery.errors import ApiError
from ..machinery.quantity import Quantity, parse_quantity
from .common import name_of, ns_of

COMPUTE = {'cpu': ('requests', 'cpu'), 'memory': ('requests', 'memory'),
           'requests.cpu': ('requests', 'cpu'), 'requests.memory': ('requests', 'memory'),
           'limits.cpu': ('limits', 'cpu'), 'limits.memory': ('limits', 'memory')}
COUNTS = ('pods', 'count/pods')


def _containers_total(spec, kind, name):
    """Sum over containers, at least the largest init container (the pod's effective value)."""
    total = Quantity(0)
    for c in spec.get('containers') or []:
        value = ((c.get('resources') or {}).get(kind) or {}).get(name)
        if value is not None:
            total = total + parse_quantity(value)
    for c in spec.get('initContainers') or []:
        value = ((c.get('resources') or {}).get(kind) or {}).get(name)
        if value is not None and parse_quantity(value).value > total.value:
            total = Quantity(parse_quantity(value).value, parse_quantity(value).binary)
    return total


def pod_usage(pod, resources):
    """What one pod counts against each of ``resources`` (quota resource names)."""
    spec = pod.get('spec') or {}
    usage = {}
    for res in resources:
        if res in COUNTS:
            usage[res] = Quantity(1)
        elif res in COMPUTE:
            usage[res] = _containers_total(spec, *COMPUTE[res])
    return usage


def _missing(pod, resources):
    """Limited compute resources some container leaves unset: ``{resource: [container names]}``."""
    missing = {}
    for res in sorted(resources):
        if res not in COMPUTE:
            continue
        kind, name = COMPUTE[res]
        names = [c.get('name', '') for c in (pod.get('spec') or {}).get('containers') or []
                 if ((c.get('resources') or {}).get(kind) or {}).get(name) is None]
        if names:
            missing[res] = names
    return missing


def counts(pod):
    phase = (pod.get('status') or {}).get('phase')
    return phase not in ('Succeeded', 'Failed')


def namespace_usage(store, namespace, resources, exclude=None):
    total = {res: Quantity(0) for res in resources if res in COUNTS or res in COMPUTE}
    for pod in _stored(store, '/pods', namespace):
        if not counts(pod) or pod['metadata']['name'] == exclude:
            continue
        for res, value in pod_usage(pod, total).items():
            total[res] = total[res] + value
    return total


def _stored(store, resource, namespace):
    """The stored objects themselves (read only, not copied: this runs on every pod creation)."""
    return [obj for (res, ns, _name), obj in store.objects.items() if res == resource and ns == namespace]


def _pretty(values):
    return ','.join(f'{k}={v}' for k, v in sorted(values.items()))


def check(store, resource, obj):
    """The store's validating admission for quota: raises 403 when ``obj`` would exceed a quota."""
    if resource != '/pods':
        return
    meta = obj['metadata']
    namespace, name = meta.get('namespace', ''), meta.get('name', '')
    for quota in _stored(store, '/resourcequotas', namespace):
        hard = (quota.get('spec') or {}).get('hard') or {}
        tracked = [r for r in hard if r in COUNTS or r in COMPUTE]
        if not tracked:
            continue
        qname = quota['metadata']['name']
        missing = _missing(obj, tracked)
        if missing:
            detail = '; '.join(f'{res} for: {",".join(names)}' for res, names in missing.items())
            raise _forbidden(name, f'failed quota: {qname}: must specify {detail}')
        used = namespace_usage(store, namespace, tracked, exclude=name)
        requested = pod_usage(obj, tracked)
        over = [r for r in tracked if (used[r].value + requested[r].value) > parse_quantity(hard[r]).value]
        if over:
            raise _forbidden(name, f'exceeded quota: {qname}, '
                                   f'requested: {_pretty({r: requested[r] for r in over})}, '
                                   f'used: {_pretty({r: used[r] for r in over})}, '
                                   f'limited: {_pretty({r: parse_quantity(hard[r]) for r in over})}')


def _forbidden(name, detail):
    return ApiError.forbidden_because('/pods', name, detail)


def quota_status(store, quota):
    """The status the quota controller writes: `hard` as given, `used` for each limited resource."""
    hard = dict((quota.get('spec') or {}).get('hard') or {})
    used = namespace_usage(store, quota['metadata'].get('namespace', ''), list(hard))
    return {'hard': hard, 'used': {res: str(used.get(res, Quantity(0))) for res in hard}}


class ResourceQuotaController:
    resource = '/resourcequotas'

    def __init__(self, mgr):
        self.mgr = mgr
        self.store = mgr.store

    def sync_all(self):
        for quota in self.mgr.index.list(self.resource):
            self.mgr.guard('ResourceQuota', quota, self.sync, quota)

    def sync(self, quota):
        status = quota_status(self.store, quota)
        if status != (quota.get('status') or {}):
            self.store.update(self.resource, {'metadata': {'name': name_of(quota), 'namespace': ns_of(quota)},
                                              'status': status}, subresource='status',
                              manager=recorder(self.resource, CONTROLLER_MANAGER, 'status'))
