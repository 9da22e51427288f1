"""The core/v1 LimitRange: its defaults (pkg/apis/core/v1/defaults.go, SetDefaults_LimitRangeItem),
the main rules of its validation (pkg/apis/core/validation/validation.go, ValidateLimitRange) and
the LimitRanger admission plugin (plugin/pkg/admission/limitranger/admission.go) for pods: on
create, every container without a request or limit of a resource gets the default of the
namespace's `Container` limits, and the pod the `kubernetes.io/limit-ranger` annotation naming
what was set; then the min, max and limit/request ratio of `Container` items are enforced (a 403
`pods "web" is forbidden: maximum cpu usage per Container is 500m, but limit is 1`)."""

from ...machinery.errors import ApiError
from ...machinery.quantity import parse_quantity
from .core import pod_qos_class

LIMIT_RANGES = '/limitranges'
ANNOTATION = 'kubernetes.io/limit-ranger'
_TYPES = ('Container', 'Pod', 'PersistentVolumeClaim')


def _value(text):
    if text is None:
        return None
    try:
        return parse_quantity(text).value
    except (ValueError, TypeError):
        return None


def default_limit_range(obj, old=None):
    """A Container item's default limit is its max when unset, its default request the default
    limit, else its min."""
    for item in (obj.get('spec') or {}).get('limits') or []:
        if not isinstance(item, dict) or item.get('type') != 'Container':
            continue
        default = item.setdefault('default', {})
        request = item.setdefault('defaultRequest', {})
        for key, value in (item.get('max') or {}).items():
            default.setdefault(key, value)
        for key, value in default.items():
            request.setdefault(key, value)
        for key, value in (item.get('min') or {}).items():
            request.setdefault(key, value)


def validate_limit_range(obj, old, errs):
    seen = set()
    for i, item in enumerate((obj.get('spec') or {}).get('limits') or []):
        item, path = item or {}, f'spec.limits[{i}]'
        kind = item.get('type')
        if kind in seen:
            errs.duplicate(f'{path}.type', kind)
        seen.add(kind)
        if kind == 'Pod':
            for key in ('default', 'defaultRequest'):
                if item.get(key):
                    errs.forbidden(f'{path}.{key}', 'may not be specified when `type` is \'Pod\'')
        low, high = item.get('min') or {}, item.get('max') or {}
        default, request = item.get('default') or {}, item.get('defaultRequest') or {}
        for key in sorted(set(low) | set(high) | set(default) | set(request)):
            lo, hi = _value(low.get(key)), _value(high.get(key))
            de, dr = _value(default.get(key)), _value(request.get(key))
            if lo is not None and hi is not None and lo > hi:
                errs.invalid(f'{path}.min[{key}]', low[key],
                             f'min value {low[key]} is greater than max value {high[key]}')
            if dr is not None and hi is not None and dr > hi:
                errs.invalid(f'{path}.defaultRequest[{key}]', request[key], f'default request value '
                             f'{request[key]} is greater than max value {high[key]}')
            if dr is not None and lo is not None and lo > dr:
                errs.invalid(f'{path}.defaultRequest[{key}]', request[key],
                             f'min value {low[key]} is greater than default request value {request[key]}')
            if de is not None and hi is not None and de > hi:
                errs.invalid(f'{path}.default[{key}]', default[key],
                             f'default value {default[key]} is greater than max value {high[key]}')
            if de is not None and dr is not None and dr > de:
                errs.invalid(f'{path}.defaultRequest[{key}]', request[key], f'default request value '
                             f'{request[key]} is greater than default limit value {default[key]}')


def _container_items(store, namespace):
    items = []
    for limit_range in store.list(LIMIT_RANGES, namespace):
        limits = (limit_range.get('spec') or {}).get('limits') or []
        items += [i for i in limits if i.get('type') == 'Container']
    return items


def _set_defaults(pod, items):
    notes = []
    spec = pod.get('spec') or {}
    for prefix, key in (('init container', 'initContainers'), ('container', 'containers')):
        for container in spec.get(key) or []:
            resources = container.setdefault('resources', {})
            set_requests, set_limits = set(), set()
            for item in items:
                for name, value in (item.get('default') or {}).items():
                    if name not in (resources.get('limits') or {}):
                        resources.setdefault('limits', {})[name] = value
                        set_limits.add(name)
                for name, value in (item.get('defaultRequest') or {}).items():
                    if name not in (resources.get('requests') or {}):
                        resources.setdefault('requests', {})[name] = value
                        set_requests.add(name)
            name = container.get('name', '')
            if set_requests:
                notes.append(f'{", ".join(sorted(set_requests))} request for {prefix} {name}')
            if set_limits:
                notes.append(f'{", ".join(sorted(set_limits))} limit for {prefix} {name}')
    return notes


def _violations(pod, items):
    out = []
    for container in (pod.get('spec') or {}).get('containers') or []:
        resources = container.get('resources') or {}
        requests, limits = resources.get('requests') or {}, resources.get('limits') or {}
        for item in items:
            for name, text in sorted((item.get('min') or {}).items()):
                if name not in requests:
                    out.append(f'minimum {name} usage per Container is {text}.  No request is specified')
                elif _value(requests[name]) < _value(text):
                    out.append(f'minimum {name} usage per Container is {text}, '
                               f'but request is {requests[name]}')
            for name, text in sorted((item.get('max') or {}).items()):
                if name not in limits:
                    out.append(f'maximum {name} usage per Container is {text}.  No limit is specified')
                elif _value(limits[name]) > _value(text):
                    out.append(f'maximum {name} usage per Container is {text}, but limit is {limits[name]}')
    return out


def admit(store, resource, obj, old):
    """The LimitRanger plugin on a pod's creation (a store mutating admission hook)."""
    if resource != '/pods' or old is not None:
        return
    items = _container_items(store, obj['metadata'].get('namespace', ''))
    if not items:
        return
    notes = _set_defaults(obj, items)
    if notes:
        annotations = obj['metadata'].setdefault('annotations', {})
        annotations[ANNOTATION] = 'LimitRanger plugin set: ' + '; '.join(notes)
        status = obj.get('status')
        if isinstance(status, dict) and 'qosClass' in status:
            status['qosClass'] = pod_qos_class(obj.get('spec') or {})
    problems = _violations(obj, items)
    if problems:
        reason = problems[0] if len(problems) == 1 else '[' + ', '.join(problems) + ']'
        raise ApiError.forbidden_because('/pods', obj['metadata'].get('name', ''), reason)
