"""APIServices (apiregistration.k8s.io/v1, k8s.io/kube-aggregator): the strategy's validation
(pkg/apis/apiregistration/validation) and the APIServices kube-apiserver registers for its own
group-versions at start (the autoregister controller fed by apiServicesToRegister,
pkg/controlplane/apiserver/aggregator.go, with the priorities kube-apiserver gives each built-in
group-version), each made Available by the local availability controller
(NewLocalAvailableAPIServiceCondition: reason Local). kubesim aggregates nothing: an APIService
naming a Service is stored and listed, no request is proxied to it."""

from ...machinery.clock import now_rfc3339

AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged'
RESOURCE = 'apiregistration.k8s.io/apiservices'
# (group, version) -> (groupPriorityMinimum, versionPriority): kube-apiserver's priorities for the
# built-in group-versions kubesim serves.
PRIORITIES = {
    ('', 'v1'): (18000, 1),
    ('apps', 'v1'): (17800, 15),
    ('autoscaling', 'v1'): (17500, 15),
    ('autoscaling', 'v2'): (17500, 30),
    ('batch', 'v1'): (17400, 15),
    ('storage.k8s.io', 'v1'): (16800, 15),
    ('apiextensions.k8s.io', 'v1'): (16700, 15),
    ('rbac.authorization.k8s.io', 'v1'): (17000, 15),
    ('discovery.k8s.io', 'v1'): (16200, 15),
    ('networking.k8s.io', 'v1'): (17200, 15),
    ('coordination.k8s.io', 'v1'): (16500, 15),
}


def local_available_condition():
    return {'type': 'Available', 'status': 'True', 'lastTransitionTime': now_rfc3339(),
            'reason': 'Local', 'message': 'Local APIServices are always available'}


def builtin(group, version, managed='onstart'):
    """The APIService of a served group-version (makeAPIService), or None when kube-apiserver has
    no priority for it (then it registers none). ``managed``: `onstart` for the built-in ones,
    `true` for those of custom resources."""
    priority = PRIORITIES.get((group, version))
    if priority is None:
        return None
    return apiservice(group, version, priority, managed)


def apiservice(group, version, priority, managed):
    return {'apiVersion': 'apiregistration.k8s.io/v1', 'kind': 'APIService',
            'metadata': {'name': f'{version}.{group}', 'labels': {AUTOMANAGED_LABEL: managed}},
            'spec': {'group': group, 'version': version, 'groupPriorityMinimum': priority[0],
                     'versionPriority': priority[1]},
            'status': {'conditions': [local_available_condition()]}}


def register_builtin(store, group_versions):
    """Create the APIServices of ``group_versions`` (kube-apiserver's start-up registration)."""
    for group, version in group_versions:
        obj = builtin(group, version)
        if obj is not None and store.get(RESOURCE, '', obj['metadata']['name']) is None:
            status = obj.pop('status')
            created = store.create(RESOURCE, obj)
            created['status'] = status
            store.update(RESOURCE, created, subresource='status')


def validate(obj, old, errs):
    """ValidateAPIService's essentials: the name is `<version>.<group>` of the spec, priorities
    positive, a Service for any group but the legacy one."""
    spec = obj.get('spec') or {}
    name = (obj.get('metadata') or {}).get('name', '')
    group, version = spec.get('group') or '', spec.get('version') or ''
    if name != f'{version}.{group}':
        errs.invalid('metadata.name', name, f'must be `spec.version+"."+spec.group`: "{version}.{group}"')
    if not version:
        errs.required('spec.version')
    if not (spec.get('groupPriorityMinimum') or 0) > 0:
        errs.invalid('spec.groupPriorityMinimum', spec.get('groupPriorityMinimum', 0),
                     'must be positive and less than 20000')
    if not (spec.get('versionPriority') or 0) > 0:
        errs.invalid('spec.versionPriority', spec.get('versionPriority', 0),
                     'must be positive and less than 1000')
    if spec.get('service') is not None:
        if not spec['service'].get('namespace'):
            errs.required('spec.service.namespace')
        if not spec['service'].get('name'):
            errs.required('spec.service.name')
