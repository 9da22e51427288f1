"""The rbac.authorization.k8s.io/v1 strategies: Role, ClusterRole, RoleBinding, ClusterRoleBinding
(pkg/apis/rbac/v1/defaults.go, pkg/apis/rbac/validation/validation.go, and the policybased
storages' escalation checks, ../rbac/escalation.py, which run between the two as they do there).

Each kind's row names one hook (`admit_*`, run as the row's defaulter) that defaults, checks
escalation and validates: RBAC names are path segment names (`system:aggregate-to-edit` is one),
not the DNS subdomains other kinds' metadata validation asks for.
"""

from ...machinery.errors import ApiError
from ...machinery.selectors import SUBDOMAIN_MSG
from ..rbac import escalation
from .validation import _DNS1123_SUBDOMAIN, Errors, go_repr, validate_annotations_size, validate_labels

GROUP = 'rbac.authorization.k8s.io'


def path_segment_errors(name):
    """path.IsValidPathSegmentName (ValidateRBACName)."""
    if name in ('.', '..'):
        return [f'may not be \'{name}\'']
    return [f'may not contain \'{c}\'' for c in ('/', '%') if c in name]


def _invalid(kind, obj, errs):
    if errs.causes:
        raise ApiError.invalid(f'{GROUP}/{kind.lower()}s', (obj.get('metadata') or {}).get('name', ''),
                               errs.causes, kind=f'{kind}.{GROUP}')


def _metadata(errs, obj):
    meta = obj.get('metadata') or {}
    for msg in path_segment_errors(meta.get('name', '')):
        errs.invalid('metadata.name', meta['name'], msg)
    validate_labels(errs, meta.get('labels'), 'metadata.labels')
    validate_annotations_size(errs, meta.get('annotations'))


def _invalid_raw(errs, field, shown, detail):
    """field.Invalid with a value already written as Go's %#v prints it."""
    errs.causes.append((field, 'FieldValueInvalid', f'Invalid value: {shown}: {detail}'))


def _go_strings(values):
    return '[]string{' + ', '.join(go_repr(v) for v in values) + '}'


def validate_rule(errs, rule, namespaced, path):
    """ValidatePolicyRule."""
    if not rule.get('verbs'):
        errs.required(f'{path}.verbs', 'verbs must contain at least one value')
    if rule.get('nonResourceURLs'):
        urls = _go_strings(rule['nonResourceURLs'])
        if namespaced:
            _invalid_raw(errs, f'{path}.nonResourceURLs', urls,
                         'namespaced rules cannot apply to non-resource URLs')
        if rule.get('apiGroups') or rule.get('resources') or rule.get('resourceNames'):
            _invalid_raw(errs, f'{path}.nonResourceURLs', urls,
                         'rules cannot apply to both regular resources and non-resource URLs')
        return
    if not rule.get('apiGroups'):
        errs.required(f'{path}.apiGroups', 'resource rules must supply at least one api group')
    if not rule.get('resources'):
        errs.required(f'{path}.resources', 'resource rules must supply at least one resource')


def _rules(errs, obj, namespaced):
    for i, rule in enumerate(obj.get('rules') or []):
        validate_rule(errs, rule, namespaced, f'rules[{i}]')


def admit_role(obj, old):
    escalation.check_role('roles', obj, old)
    errs = Errors()
    _metadata(errs, obj)
    _rules(errs, obj, True)
    _invalid('Role', obj, errs)


def admit_cluster_role(obj, old):
    escalation.check_role('clusterroles', obj, old)
    errs = Errors()
    _metadata(errs, obj)
    _rules(errs, obj, False)
    aggregation = obj.get('aggregationRule')
    if aggregation is not None and not aggregation.get('clusterRoleSelectors'):
        errs.required('aggregationRule.clusterRoleSelectors',
                      'at least one clusterRoleSelector required if aggregationRule is non-nil')
    _invalid('ClusterRole', obj, errs)


def default_binding(obj):
    """SetDefaults_RoleBinding / ClusterRoleBinding / Subject."""
    ref = obj.get('roleRef')
    if isinstance(ref, dict) and not ref.get('apiGroup'):
        ref['apiGroup'] = GROUP
    for subject in obj.get('subjects') or []:
        if isinstance(subject, dict) and not subject.get('apiGroup') \
                and subject.get('kind') in ('User', 'Group'):
            subject['apiGroup'] = GROUP


def _go_role_ref(ref):
    return ('rbac.RoleRef{APIGroup:%s, Kind:%s, Name:%s}' % (
        go_repr(ref.get('apiGroup', '')), go_repr(ref.get('kind', '')), go_repr(ref.get('name', ''))))


def validate_binding(errs, obj, old, namespaced):
    """ValidateRoleBinding / ValidateClusterRoleBinding (and their Update)."""
    _metadata(errs, obj)
    ref = obj.get('roleRef') or {}
    if ref.get('apiGroup', '') != GROUP:
        errs.unsupported('roleRef.apiGroup', ref.get('apiGroup', ''), [GROUP])
    if namespaced and ref.get('kind') not in ('Role', 'ClusterRole'):
        errs.unsupported('roleRef.kind', ref.get('kind', ''), ['Role', 'ClusterRole'])
    if not namespaced and ref.get('kind') != 'ClusterRole':
        errs.unsupported('roleRef.kind', ref.get('kind', ''), ['ClusterRole'])
    if not ref.get('name'):
        errs.required('roleRef.name')
    else:
        for msg in path_segment_errors(ref['name']):
            errs.invalid('roleRef.name', ref['name'], msg)
    for i, subject in enumerate(obj.get('subjects') or []):
        path = f'subjects[{i}]'
        name, kind, group = subject.get('name', ''), subject.get('kind', ''), subject.get('apiGroup', '')
        if not name:
            errs.required(f'{path}.name')
        if kind == 'ServiceAccount':
            if name and (len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name)):
                errs.invalid(f'{path}.name', name, SUBDOMAIN_MSG)
            if group:
                errs.unsupported(f'{path}.apiGroup', group, [''])
            if not namespaced and not subject.get('namespace'):
                errs.required(f'{path}.namespace')
        elif kind in ('User', 'Group'):
            if group != GROUP:
                errs.unsupported(f'{path}.apiGroup', group, [GROUP])
        else:
            errs.unsupported(f'{path}.kind', kind, ['ServiceAccount', 'User', 'Group'])
    if old is not None and (old.get('roleRef') or {}) != ref:
        _invalid_raw(errs, 'roleRef', _go_role_ref(ref), 'cannot change roleRef')


def admit_role_binding(obj, old):
    default_binding(obj)
    escalation.check_binding('rolebindings', obj, old)
    errs = Errors()
    validate_binding(errs, obj, old, True)
    _invalid('RoleBinding', obj, errs)


def admit_cluster_role_binding(obj, old):
    default_binding(obj)
    escalation.check_binding('clusterrolebindings', obj, old)
    errs = Errors()
    validate_binding(errs, obj, old, False)
    _invalid('ClusterRoleBinding', obj, errs)
