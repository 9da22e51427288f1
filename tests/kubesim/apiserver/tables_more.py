"""`kubectl get` columns of the policy, networking, certificates and LimitRange kinds, as the API
server's printers print them (pkg/printers/internalversion/printers.go: printPodDisruptionBudget,
printIngress, printIngressClass, printNetworkPolicy, printLimitRange,
printCertificateSigningRequest). Same (name, type, priority, cell) tuples as tables.py."""

from .tables import _AGE, _NAME, _spec, _status, human_duration


def format_selector(sel):
    """metav1.FormatLabelSelector: `<none>` for a nil or empty selector."""
    if not sel:
        return '<none>'
    parts = [f'{k}={v}' for k, v in sorted((sel.get('matchLabels') or {}).items())]
    for e in sel.get('matchExpressions') or []:
        op, key, values = e.get('operator'), e.get('key'), ','.join(sorted(e.get('values') or []))
        parts.append({'In': f'{key} in ({values})', 'NotIn': f'{key} notin ({values})',
                      'Exists': key, 'DoesNotExist': f'!{key}'}.get(op, key))
    return ','.join(parts) or '<none>'


def _int_or_na(key):
    def cell(obj):
        value = _spec(obj).get(key)
        return 'N/A' if value is None else str(value)
    return cell


POD_DISRUPTION_BUDGET = [
    _NAME, ('Min Available', 'string', 0, _int_or_na('minAvailable')),
    ('Max Unavailable', 'string', 0, _int_or_na('maxUnavailable')),
    ('Allowed Disruptions', 'integer', 0, lambda o: _status(o).get('disruptionsAllowed', 0)), _AGE,
]


def _ingress_hosts(obj):
    hosts = [r.get('host', '') for r in _spec(obj).get('rules') or [] if r.get('host')]
    if not hosts:
        return '*'
    text = ','.join(hosts[:3])
    return f'{text} + {len(hosts) - 3} more...' if len(hosts) > 3 else text


def _ingress_address(obj):
    points = ((_status(obj).get('loadBalancer') or {}).get('ingress')) or []
    return ','.join(p.get('ip') or p.get('hostname') or '' for p in points)


def _ingress_ports(obj):
    return '80, 443' if _spec(obj).get('tls') else '80'


INGRESS = [
    _NAME, ('Class', 'string', 0, lambda o: _spec(o).get('ingressClassName') or '<none>'),
    ('Hosts', 'string', 0, _ingress_hosts), ('Address', 'string', 0, _ingress_address),
    ('Ports', 'string', 0, _ingress_ports), _AGE,
]


def _ingress_class_parameters(obj):
    params = _spec(obj).get('parameters')
    if not params:
        return '<none>'
    kind = params.get('kind', '')
    if params.get('apiGroup') is not None:
        kind = f'{kind}.{params["apiGroup"]}'
    return f'{kind}/{params.get("name", "")}'


INGRESS_CLASS = [
    _NAME, ('Controller', 'string', 0, lambda o: _spec(o).get('controller', '')),
    ('Parameters', 'string', 0, _ingress_class_parameters), _AGE,
]

NETWORK_POLICY = [
    _NAME, ('Pod-Selector', 'string', 0, lambda o: format_selector(_spec(o).get('podSelector'))), _AGE,
]

LIMIT_RANGE = [_NAME, ('Created At', 'date', 0, lambda o: o['metadata'].get('creationTimestamp') or '')]


def _csr_condition(obj):
    types = [c.get('type', '') for c in _status(obj).get('conditions') or []]
    text = ','.join(types) or 'Pending'
    if _status(obj).get('certificate'):
        text += ',Issued'
    return text


def _csr_duration(obj):
    seconds = _spec(obj).get('expirationSeconds')
    return '<none>' if seconds is None else human_duration(seconds)


CERTIFICATE_SIGNING_REQUEST = [
    _NAME, _AGE, ('SignerName', 'string', 0, lambda o: _spec(o).get('signerName', '')),
    ('Requestor', 'string', 0, lambda o: _spec(o).get('username', '')),
    ('RequestedDuration', 'string', 0, _csr_duration), ('Condition', 'string', 0, _csr_condition),
]
