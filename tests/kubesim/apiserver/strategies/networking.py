"""The networking.k8s.io/v1 strategies: NetworkPolicy (pkg/registry/networking/networkpolicy),
Ingress (pkg/registry/networking/ingress) and IngressClass (pkg/registry/networking/ingressclass),
with their defaults (pkg/apis/networking/v1/defaults.go) and the main rules of their validation
(pkg/apis/networking/validation/validation.go); and the DefaultIngressClass admission plugin
(plugin/pkg/admission/network/defaultingressclass)."""

import ipaddress
import re

from ...machinery.selectors import SUBDOMAIN_MSG
from .service import DNS1035_LABEL, DNS1035_MSG, PORT_NUM_MSG, PROTOCOLS
from .validation import DNS1123_LABEL

_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
POLICY_TYPES = ('Egress', 'Ingress')
PATH_TYPES = ('Exact', 'ImplementationSpecific', 'Prefix')
DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class'
INGRESS_CLASSES = 'networking.k8s.io/ingressclasses'


# ---- NetworkPolicy --------------------------------------------------------------------------------
def default_network_policy(obj, old=None):
    """SetDefaults_NetworkPolicyPort (protocol TCP) and SetDefaults_NetworkPolicy: without
    policyTypes a policy is about Ingress, and about Egress too when it has egress rules (even `{}`)."""
    spec = obj.setdefault('spec', {})
    for direction in ('ingress', 'egress'):
        for rule in spec.get(direction) or []:
            for port in (rule or {}).get('ports') or []:
                if isinstance(port, dict) and port.get('protocol') is None:
                    port['protocol'] = 'TCP'
    if not spec.get('policyTypes'):
        spec['policyTypes'] = ['Ingress'] + (['Egress'] if spec.get('egress') else [])


def _validate_selector(errs, sel, path):
    for i, req in enumerate((sel or {}).get('matchExpressions') or []):
        op = (req or {}).get('operator')
        if op in ('In', 'NotIn') and not req.get('values'):
            errs.required(f'{path}.matchExpressions[{i}].values',
                          'must be specified when `operator` is \'In\' or \'NotIn\'')
        elif op in ('Exists', 'DoesNotExist') and req.get('values'):
            errs.forbidden(f'{path}.matchExpressions[{i}].values',
                           'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\'')
        elif op not in ('In', 'NotIn', 'Exists', 'DoesNotExist'):
            errs.invalid(f'{path}.matchExpressions[{i}].operator', op, 'not a valid selector operator')


def _validate_policy_port(errs, port, path):
    if port.get('protocol') not in PROTOCOLS:
        errs.unsupported(f'{path}.protocol', port.get('protocol'), PROTOCOLS)
    number = port.get('port')
    if isinstance(number, int) and not 1 <= number <= 65535:
        errs.invalid(f'{path}.port', number, PORT_NUM_MSG)
    end = port.get('endPort')
    if end is None:
        return
    if number is None:
        errs.required(f'{path}.port', 'must be specified when endPort is specified')
    elif not isinstance(number, int):
        errs.forbidden(f'{path}.endPort', 'may not be specified when `port` is non-numeric')
    elif end < number:
        errs.invalid(f'{path}.endPort', end, 'must be greater than or equal to `port`')


def _validate_peer(errs, peer, path):
    count = sum(1 for key in ('podSelector', 'namespaceSelector', 'ipBlock') if peer.get(key) is not None)
    for key in ('podSelector', 'namespaceSelector'):
        _validate_selector(errs, peer.get(key), f'{path}.{key}')
    block = peer.get('ipBlock')
    if block is not None:
        cidr = block.get('cidr') or ''
        try:
            net = ipaddress.ip_network(cidr, strict=False) if cidr else None
        except ValueError:
            net = None
            errs.invalid(f'{path}.ipBlock.cidr', cidr, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or '
                                                        '2001:db8::/64)')
        if not cidr:
            errs.required(f'{path}.ipBlock.cidr')
        for i, text in enumerate(block.get('except') or []):
            try:
                inner = ipaddress.ip_network(text, strict=False)
            except ValueError:
                errs.invalid(f'{path}.ipBlock.except[{i}]', text, 'must be a valid CIDR value, (e.g. '
                                                                   '10.9.8.0/24 or 2001:db8::/64)')
                continue
            if net is not None and (inner.version != net.version or not inner.subnet_of(net) or inner == net):
                errs.invalid(f'{path}.ipBlock.except[{i}]', text, 'must be a strict subset of `cidr`')
    if count == 0:
        errs.required(path, 'must specify a peer')
    elif count > 1 and block is not None:
        errs.forbidden(path, 'may not specify both ipBlock and another peer')


def validate_network_policy(obj, old, errs):
    spec = obj.get('spec') or {}
    _validate_selector(errs, spec.get('podSelector'), 'spec.podSelector')
    for direction, peers in (('ingress', 'from'), ('egress', 'to')):
        for i, rule in enumerate(spec.get(direction) or []):
            rule = rule or {}
            for j, port in enumerate(rule.get('ports') or []):
                _validate_policy_port(errs, port or {}, f'spec.{direction}[{i}].ports[{j}]')
            for j, peer in enumerate(rule.get(peers) or []):
                _validate_peer(errs, peer or {}, f'spec.{direction}[{i}].{peers}[{j}]')
    types = spec.get('policyTypes') or []
    for i, kind in enumerate(types):
        if kind not in POLICY_TYPES:
            errs.unsupported(f'spec.policyTypes[{i}]', kind, POLICY_TYPES)
    if len(types) > 2:
        errs.forbidden('spec.policyTypes', 'may not specify more than two policyTypes')


# ---- Ingress --------------------------------------------------------------------------------------
def _validate_backend(errs, backend, path):
    service, resource = backend.get('service'), backend.get('resource')
    if service is not None and resource is not None:
        errs.invalid(path, '', 'cannot set both resource and service backends')
    if service is None:
        if resource is None:
            errs.invalid(path, '', 'resource or service backend is required')
        return
    name = service.get('name') or ''
    if not name:
        errs.required(f'{path}.service.name')
    elif not DNS1035_LABEL.match(name) or len(name) > 63:
        errs.invalid(f'{path}.service.name', name, DNS1035_MSG)
    port = service.get('port') or {}
    if port.get('name') and port.get('number'):
        errs.invalid(f'{path}.service.port', port.get('name'), 'cannot set both port name & port number')
    elif port.get('name'):
        name = port['name']
        if len(name) > 15 or not DNS1123_LABEL.match(name) or not re.search('[a-z]', name):
            errs.invalid(f'{path}.service.port.name', name,
                         'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)')
    elif port.get('number'):
        if not 1 <= port['number'] <= 65535:
            errs.invalid(f'{path}.service.port.number', port['number'], PORT_NUM_MSG)
    else:
        errs.required(f'{path}.service.port', 'port name or number is required')


def _validate_host(errs, host, path):
    try:
        ipaddress.ip_address(host)
        errs.invalid(path, host, 'must be a DNS name, not an IP address')
        return
    except ValueError:
        pass
    bare = host[2:] if host.startswith('*.') else host
    if len(host) > 253 or not _SUBDOMAIN.match(bare):
        if host.startswith('*'):
            errs.invalid(path, host, 'a wildcard DNS-1123 subdomain must start with \'*.\', followed by a '
                                     'valid DNS subdomain, which must consist of lower case alphanumeric '
                                     'characters, \'-\' or \'.\' and end with an alphanumeric character '
                                     '(e.g. '
                                     '\'*.example.com\', regex used for validation is '
                                     '\'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')
        else:
            errs.invalid(path, host, SUBDOMAIN_MSG)


def validate_ingress(obj, old, errs):
    spec = obj.get('spec') or {}
    rules = spec.get('rules') or []
    if not rules and spec.get('defaultBackend') is None:
        errs.causes.append(('spec', 'FieldValueInvalid', 'Invalid value: "null": either `defaultBackend` '
                                                         'or `rules` must be specified'))
    if spec.get('defaultBackend') is not None:
        _validate_backend(errs, spec['defaultBackend'], 'spec.defaultBackend')
    class_name = spec.get('ingressClassName')
    if class_name is not None and (len(class_name) > 253 or not _SUBDOMAIN.match(class_name)):
        errs.invalid('spec.ingressClassName', class_name, SUBDOMAIN_MSG)
    for i, rule in enumerate(rules):
        rule = rule or {}
        if rule.get('host'):
            _validate_host(errs, rule['host'], f'spec.rules[{i}].host')
        http = rule.get('http')
        if http is None:
            continue
        paths = http.get('paths') or []
        if not paths:
            errs.required(f'spec.rules[{i}].http.paths')
        for j, item in enumerate(paths):
            item, path = item or {}, f'spec.rules[{i}].http.paths[{j}]'
            kind = item.get('pathType')
            if kind is None:
                errs.required(f'{path}.pathType', 'pathType must be specified')
            elif kind not in PATH_TYPES:
                errs.unsupported(f'{path}.pathType', kind, PATH_TYPES)
            elif kind in ('Exact', 'Prefix') and not (item.get('path') or '').startswith('/'):
                errs.invalid(f'{path}.path', item.get('path', ''), 'must be an absolute path')
            _validate_backend(errs, item.get('backend') or {}, f'{path}.backend')
    for i, tls in enumerate(spec.get('tls') or []):
        for j, host in enumerate((tls or {}).get('hosts') or []):
            _validate_host(errs, host, f'spec.tls[{i}].hosts[{j}]')


def admit_default_class(store, resource, obj, old):
    """DefaultIngressClass: a new Ingress without a class gets the default IngressClass (the
    newest of those annotated `ingressclass.kubernetes.io/is-default-class: "true"`)."""
    if resource != 'networking.k8s.io/ingresses' or old is not None:
        return
    spec = obj.setdefault('spec', {})
    if spec.get('ingressClassName') is not None or 'kubernetes.io/ingress.class' in (
            obj['metadata'].get('annotations') or {}):
        return
    defaults = [c for c in store.list(INGRESS_CLASSES)
                if (c['metadata'].get('annotations') or {}).get(DEFAULT_CLASS_ANNOTATION) == 'true']
    if defaults:
        newest = max(defaults, key=lambda c: (c['metadata'].get('creationTimestamp', ''),
                                              c['metadata']['name']))
        spec['ingressClassName'] = newest['metadata']['name']


# ---- IngressClass ---------------------------------------------------------------------------------
def default_ingress_class(obj, old=None):
    """SetDefaults_IngressClass: parameters without a scope are cluster-scoped."""
    params = (obj.get('spec') or {}).get('parameters')
    if isinstance(params, dict) and params.get('scope') is None:
        params['scope'] = 'Cluster'


SCOPES = ('Cluster', 'Namespace')


def validate_ingress_class(obj, old, errs):
    spec = obj.get('spec') or {}
    controller = spec.get('controller') or ''
    if not controller:
        errs.required('spec.controller')
    elif len(controller) > 250:
        errs.causes.append(('spec.controller', 'FieldValueTooLong',
                            'Too long: may not be more than 250 bytes'))
    elif '/' not in controller or not _SUBDOMAIN.match(controller.split('/', 1)[0]):
        errs.invalid('spec.controller', controller, 'must be a domain-prefixed path (such as "acme.io/foo")')
    if old is not None and controller != ((old.get('spec') or {}).get('controller') or ''):
        errs.invalid('spec.controller', controller, 'field is immutable')
    params = spec.get('parameters')
    if params is None:
        return
    if not params.get('kind'):
        errs.required('spec.parameters.kind')
    if not params.get('name'):
        errs.required('spec.parameters.name')
    scope = params.get('scope')
    if scope not in SCOPES:
        errs.unsupported('spec.parameters.scope', scope, SCOPES)
    elif scope == 'Namespace' and not params.get('namespace'):
        errs.required('spec.parameters.namespace', '`parameters.scope` is set to "Namespace"')
    elif scope == 'Cluster' and params.get('namespace') is not None:
        errs.forbidden('spec.parameters.namespace', '`parameters.scope` is set to "Cluster"')

