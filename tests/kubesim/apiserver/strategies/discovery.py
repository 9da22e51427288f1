"""The discovery.k8s.io/v1 EndpointSlice strategy and the core/v1 Endpoints one: defaults
(pkg/apis/discovery/v1/defaults.go, SetDefaults_EndpointPort; pkg/apis/core/v1/defaults.go,
SetDefaults_Endpoints) and the main rules of their validation
(pkg/apis/discovery/validation/validation.go, ValidateEndpointSlice and its update;
pkg/apis/core/validation/validation.go, ValidateEndpoints). The controllers that write them are
controllers/endpointslice.py and controllers/endpoints.py."""

from .service import IP_MSG, PORT_NUM_MSG, PROTOCOLS, family_of
from .validation import DNS1123_LABEL, LABEL_MSG

# The warning the API server sends with every v1 Endpoints request (deprecated in 1.33).
ENDPOINTS_DEPRECATED = 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice'
ADDRESS_TYPES = ('FQDN', 'IPv4', 'IPv6')
MAX_ENDPOINTS = 1000
MAX_PORTS = 100


def default_endpointslice(obj, old=None):
    """SetDefaults_EndpointPort: a port's name defaults to "" and its protocol to TCP."""
    for port in obj.get('ports') or []:
        if isinstance(port, dict):
            if port.get('name') is None:
                port['name'] = ''
            if port.get('protocol') is None:
                port['protocol'] = 'TCP'


def validate_endpointslice(obj, old, errs):
    address_type = obj.get('addressType') or ''
    if not address_type:
        errs.required('addressType')
    elif address_type not in ADDRESS_TYPES:
        errs.unsupported('addressType', address_type, ADDRESS_TYPES)
    if old is not None and old.get('addressType') != address_type:
        errs.invalid('addressType', address_type, 'field is immutable')
    endpoints = obj.get('endpoints') or []
    if len(endpoints) > MAX_ENDPOINTS:
        errs.causes.append(('endpoints', 'FieldValueTooMany',
                            f'Too many: {len(endpoints)}: must have at most {MAX_ENDPOINTS} items'))
    for i, endpoint in enumerate(endpoints):
        addresses = (endpoint or {}).get('addresses') or []
        if not addresses:
            errs.required(f'endpoints[{i}].addresses', 'must contain at least 1 address')
        for j, address in enumerate(addresses):
            if address_type in ('IPv4', 'IPv6') and family_of(address) != address_type:
                errs.invalid(f'endpoints[{i}].addresses[{j}]', address,
                             f'must be a valid {address_type} address')
    names = set()
    for i, port in enumerate(obj.get('ports') or []):
        port = port or {}
        name = port.get('name') or ''
        if name and (len(name) > 63 or not DNS1123_LABEL.match(name)):
            errs.invalid(f'ports[{i}].name', name, LABEL_MSG)
        if name in names:
            errs.duplicate(f'ports[{i}].name', name)
        names.add(name)
        protocol = port.get('protocol')
        if protocol not in PROTOCOLS:
            errs.unsupported(f'ports[{i}].protocol', protocol, PROTOCOLS)
        number = port.get('port')
        if number is not None and not 1 <= number <= 65535:
            errs.invalid(f'ports[{i}].port', number, PORT_NUM_MSG)


def default_endpoints(obj, old=None):
    """SetDefaults_Endpoints: every port's protocol defaults to TCP."""
    for subset in obj.get('subsets') or []:
        for port in (subset or {}).get('ports') or []:
            if isinstance(port, dict) and not port.get('protocol'):
                port['protocol'] = 'TCP'


def validate_endpoints(obj, old, errs):
    for i, subset in enumerate(obj.get('subsets') or []):
        subset = subset or {}
        for key in ('addresses', 'notReadyAddresses'):
            for j, address in enumerate(subset.get(key) or []):
                ip = (address or {}).get('ip', '')
                if family_of(ip) is None:
                    errs.invalid(f'subsets[{i}].{key}[{j}].ip', ip, IP_MSG)
        ports = subset.get('ports') or []
        for j, port in enumerate(ports):
            port = port or {}
            if len(ports) > 1 and not port.get('name'):
                errs.required(f'subsets[{i}].ports[{j}].name')
            number = port.get('port', 0)
            if not 1 <= number <= 65535:
                errs.invalid(f'subsets[{i}].ports[{j}].port', number, PORT_NUM_MSG)
            if port.get('protocol') not in PROTOCOLS:
                errs.unsupported(f'subsets[{i}].ports[{j}].protocol', port.get('protocol') or '', PROTOCOLS)
