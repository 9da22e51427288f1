"""Label selectors (equality- and set-based) and field selectors, as the API server parses them."""

import re

from .errors import ApiError

_SET_RE = re.compile(r'^\s*([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)\s*$')


def _split_top(text):
    """Split on commas that are not inside parentheses."""
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def parse_label_selector(text):
    """'a=b,c!=d,e in (f,g),!h,i' -> list of (key, op, values). None/'' selects everything."""
    if not text:
        return None
    reqs = []
    for part in _split_top(text):
        m = _SET_RE.match(part)
        if m:
            values = {v.strip() for v in m.group(3).split(',') if v.strip()}
            reqs.append((m.group(1), m.group(2), values))
        elif '!=' in part:
            k, v = part.split('!=', 1)
            reqs.append((k.strip(), '!=', {v.strip()}))
        elif '==' in part:
            k, v = part.split('==', 1)
            reqs.append((k.strip(), '=', {v.strip()}))
        elif '=' in part:
            k, v = part.split('=', 1)
            reqs.append((k.strip(), '=', {v.strip()}))
        elif part.startswith('!'):
            reqs.append((part[1:].strip(), '!', set()))
        elif re.match(r'^[A-Za-z0-9_./-]+$', part):
            reqs.append((part, 'exists', set()))
        else:
            raise ApiError.bad_request(f'unable to parse requirement: {part!r}')
    return reqs


def selector_from_label_selector_object(sel):
    """A `spec.selector` object ({matchLabels, matchExpressions}) -> parsed requirements."""
    reqs = []
    for k, v in sorted((sel or {}).get('matchLabels', {}).items()):
        reqs.append((k, '=', {v}))
    for expr in (sel or {}).get('matchExpressions', []) or []:
        op = {'In': 'in', 'NotIn': 'notin', 'Exists': 'exists', 'DoesNotExist': '!'}[expr['operator']]
        reqs.append((expr['key'], op, set(expr.get('values') or [])))
    return reqs


def matches_labels(reqs, labels):
    if not reqs:
        return True
    for key, op, values in reqs:
        present = key in labels
        val = labels.get(key)
        if op == '=' and not (present and val in values):
            return False
        if op == '!=' and present and val in values:
            return False
        if op == 'in' and not (present and val in values):
            return False
        if op == 'notin' and present and val in values:
            return False
        if op == 'exists' and not present:
            return False
        if op == '!' and present:
            return False
    return True


def _field(path):
    def get(obj):
        value = obj
        for part in path.split('.'):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, bool):
            return 'true' if value else 'false'
        return '' if value is None else str(value)

    return get


# The field labels the API server accepts (the union over the kinds kubesim serves: pods, events,
# nodes, namespaces, replica sets and controllers); any other label is a 400, as there.
_FIELDS = {path: _field(path) for path in (
    'metadata.name', 'metadata.namespace',
    'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName',
    'spec.hostNetwork', 'spec.unschedulable',
    'status.phase', 'status.podIP', 'status.nominatedNodeName', 'status.replicas',
    'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
    'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath',
    'reason', 'reportingComponent', 'type',
)}
_FIELDS['source'] = _field('source.component')


def parse_field_selector(text):
    if not text:
        return None
    reqs = []
    for part in _split_top(text):
        if '!=' in part:
            k, v = part.split('!=', 1)
            op = '!='
        elif '==' in part:
            k, v = part.split('==', 1)
            op = '='
        elif '=' in part:
            k, v = part.split('=', 1)
            op = '='
        else:
            raise ApiError.bad_request(f'invalid field selector: {part!r}')
        k = k.strip()
        if k not in _FIELDS:
            raise ApiError.bad_request(f'field label not supported: {k}')
        reqs.append((k, op, v.strip()))
    return reqs


def matches_fields(reqs, obj):
    for key, op, value in reqs or []:
        actual = _FIELDS[key](obj)
        if (op == '=') != (actual == value):
            return False
    return True
