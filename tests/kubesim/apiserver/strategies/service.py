"""The core/v1 Service strategy: defaults (pkg/apis/core/v1/defaults.go, SetDefaults_Service),
what the Service registry does around its allocators (pkg/registry/core/service/storage:
normalizeClusterIPs, patchAllocatedValues, initIPFamilyFields in alloc.go) and validation
(pkg/apis/core/validation/validation.go: ValidateService, validateServicePort,
ValidateServiceClusterIPsRelatedFields, ValidateServiceUpdate).

The cluster IPs themselves are handed out by apiserver/registry/ipallocator.py, which needs the
store; everything here is a pure function of the object (and the stored one, on updates).

The cluster is single-stack IPv4: its service range is `SERVICE_CIDR`, its only family IPv4.
"""

import ipaddress
import re

from .validation import DNS1123_LABEL, LABEL_MSG, go_repr, validate_labels

# kube-apiserver --service-cluster-ip-range (kubeadm's default).
SERVICE_CIDR = ipaddress.ip_network('10.96.0.0/12')
DEFAULT_FAMILY = 'IPv4'
# kube-apiserver --service-node-port-range
NODE_PORT_RANGE = (30000, 32767)

PROTOCOLS = ('SCTP', 'TCP', 'UDP')
SERVICE_TYPES = ('ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort')
AFFINITIES = ('ClientIP', 'None')
TRAFFIC_POLICIES = ('Cluster', 'Local')
IP_FAMILIES = ('IPv4', 'IPv6')
IP_FAMILY_POLICIES = ('PreferDualStack', 'RequireDualStack', 'SingleStack')
DEFAULT_CLIENT_IP_TIMEOUT = 10800  # v1.DefaultClientIPServiceAffinitySeconds

DNS1035_LABEL = re.compile(r'^[a-z]([-a-z0-9]*[a-z0-9])?$')
DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
               "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
               "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
PORT_NUM_MSG = 'must be between 1 and 65535, inclusive'
IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'


def go_strings(values):
    """A []string as Go's %#v prints it: `[]string{"a", "b"}`."""
    return '[]string{' + ', '.join(go_repr(v) for v in values) + '}'


def family_of(ip):
    """'IPv4', 'IPv6' or None for text that is no IP address."""
    try:
        return 'IPv6' if ipaddress.ip_address(ip).version == 6 else 'IPv4'
    except ValueError:
        return None


def is_headless(svc):
    spec = svc.get('spec') or {}
    return spec.get('clusterIP') == 'None' or (spec.get('clusterIPs') or [None])[0] == 'None'


def externally_accessible(spec):
    """apiservice.ExternallyAccessible: LoadBalancer, NodePort, or ClusterIP with externalIPs."""
    return spec.get('type') in ('LoadBalancer', 'NodePort') or (
        spec.get('type') == 'ClusterIP' and bool(spec.get('externalIPs')))


# ---- defaults ------------------------------------------------------------------------------------
def set_defaults(spec):
    """SetDefaults_Service."""
    if not spec.get('sessionAffinity'):
        spec['sessionAffinity'] = 'None'
    if spec['sessionAffinity'] == 'None':
        spec.pop('sessionAffinityConfig', None)
    elif spec['sessionAffinity'] == 'ClientIP':
        config = spec.get('sessionAffinityConfig') or {}
        if not isinstance(config, dict) or not isinstance(config.get('clientIP'), dict) \
                or config['clientIP'].get('timeoutSeconds') is None:
            spec['sessionAffinityConfig'] = {'clientIP': {'timeoutSeconds': DEFAULT_CLIENT_IP_TIMEOUT}}
    if not spec.get('type'):
        spec['type'] = 'ClusterIP'
    for port in spec.get('ports') or []:
        if not isinstance(port, dict):
            continue
        if not port.get('protocol'):
            port['protocol'] = 'TCP'
        if port.get('targetPort') in (None, 0, ''):
            port['targetPort'] = port.get('port', 0)
    if externally_accessible(spec) and not spec.get('externalTrafficPolicy'):
        spec['externalTrafficPolicy'] = 'Cluster'
    if spec.get('internalTrafficPolicy') is None and spec['type'] in SERVICE_TYPES[1:] + ('ClusterIP',):
        spec['internalTrafficPolicy'] = 'Cluster'
    if spec['type'] == 'LoadBalancer' and spec.get('allocateLoadBalancerNodePorts') is None:
        spec['allocateLoadBalancerNodePorts'] = True


def _same_cluster_ips(old, new):
    return (old.get('clusterIPs') or []) == (new.get('clusterIPs') or [])


def normalize_cluster_ips(spec, old_spec=None):
    """normalizeClusterIPs (pkg/registry/core/service/storage/storage.go): keep `clusterIP` and
    `clusterIPs` in step for clients that set only one of them."""
    if old_spec is None:
        if spec.get('clusterIP') and not spec.get('clusterIPs'):
            spec['clusterIPs'] = [spec['clusterIP']]
        return
    if old_spec.get('clusterIPs') and not spec.get('clusterIPs') \
            and old_spec.get('clusterIP') == spec.get('clusterIP'):
        spec['clusterIPs'] = list(old_spec['clusterIPs'])
    if old_spec.get('clusterIP') != spec.get('clusterIP'):
        if old_spec.get('clusterIP') and not spec.get('clusterIP'):
            if _same_cluster_ips(old_spec, spec):
                spec.pop('clusterIPs', None)
        elif _same_cluster_ips(old_spec, spec):
            spec['clusterIPs'] = [spec.get('clusterIP')]


def _needs_cluster_ip(spec):
    return spec.get('type') != 'ExternalName'


def patch_allocated_values(spec, old_spec):
    """patchAllocatedValues: an update that leaves out the allocated clusterIP(s) and node ports
    keeps them (so `kubectl replace` of a manifest without them works)."""
    if _needs_cluster_ip(old_spec) and _needs_cluster_ip(spec):
        if not spec.get('clusterIP') and old_spec.get('clusterIP'):
            spec['clusterIP'] = old_spec['clusterIP']
        if not spec.get('clusterIPs') and old_spec.get('clusterIPs'):
            spec['clusterIPs'] = list(old_spec['clusterIPs'])
    with_node_ports = ('NodePort', 'LoadBalancer')
    if spec.get('type') in with_node_ports and old_spec.get('type') in with_node_ports:
        old_ports = {(p.get('port'), p.get('protocol')): p.get('nodePort')
                     for p in old_spec.get('ports') or [] if isinstance(p, dict)}
        for port in spec.get('ports') or []:
            if isinstance(port, dict) and not port.get('nodePort'):
                previous = old_ports.get((port.get('port'), port.get('protocol')))
                if previous:
                    port['nodePort'] = previous


def init_ip_families(svc, old=None):
    """initIPFamilyFields (alloc.go) for a single-stack IPv4 cluster: `ipFamilyPolicy` defaults to
    the old one, RequireDualStack for a headless Service without selector, else SingleStack;
    `ipFamilies` are inferred from the cluster IPs, else the cluster's family (a headless,
    selectorless Service that is not SingleStack gets both). Returns the field errors."""
    spec = svc.setdefault('spec', {})
    if spec.get('type') == 'ExternalName':
        return []
    old_spec = (old or {}).get('spec') or {}
    if spec.get('ipFamilyPolicy') is None:
        if old is not None and old_spec.get('ipFamilyPolicy'):
            spec['ipFamilyPolicy'] = old_spec['ipFamilyPolicy']
        elif spec.get('clusterIP') == 'None' and not spec.get('selector'):
            spec['ipFamilyPolicy'] = 'RequireDualStack'
        else:
            spec['ipFamilyPolicy'] = 'SingleStack'
    causes = cluster_ip_causes(spec)
    if causes:
        return causes
    policy = spec['ipFamilyPolicy']
    families = spec.setdefault('ipFamilies', []) if isinstance(spec.get('ipFamilies'), list) or \
        spec.get('ipFamilies') is None else spec['ipFamilies']
    if policy == 'SingleStack':
        if len(spec.get('clusterIPs') or []) == 2:
            causes.append(('spec.ipFamilyPolicy', 'FieldValueInvalid', f'Invalid value: "{policy}": must be '
                           "'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
        if len(families) == 2:
            causes.append(('spec.ipFamilyPolicy', 'FieldValueInvalid', f'Invalid value: "{policy}": must be '
                           "'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
    for i, ip in enumerate(spec.get('clusterIPs') or []):
        if ip == 'None':
            break
        family = family_of(ip)
        if i >= len(families):
            if family != DEFAULT_FAMILY:
                causes.append((f'spec.clusterIPs[{i}]', 'FieldValueInvalid',
                               f'Invalid value: {go_strings(spec["clusterIPs"])}: {family} is not configured '
                               'on this cluster'))
            else:
                families.append(family)
    if causes:
        return causes
    if spec.get('clusterIP') == 'None' and not spec.get('selector'):
        if not families:
            families.append(DEFAULT_FAMILY)
        if len(families) < 2 and policy != 'SingleStack':
            families.append('IPv6' if families[0] == 'IPv4' else 'IPv4')
        return []
    if policy == 'RequireDualStack':
        causes.append(('spec.ipFamilyPolicy', 'FieldValueInvalid',
                       f'Invalid value: "{policy}": this cluster is not configured for dual-stack services'))
    for i, family in enumerate(families):
        if family != DEFAULT_FAMILY:
            causes.append((f'spec.ipFamilies[{i}]', 'FieldValueInvalid',
                           f'Invalid value: {go_repr(family)}: not configured on this cluster'))
    if causes:
        return causes
    if not families:
        families.append(DEFAULT_FAMILY)
    return []


def cluster_ip_causes(spec):
    """ValidateServiceClusterIPsRelatedFields, the parts a single-stack cluster meets."""
    causes = []
    cluster_ip, cluster_ips = spec.get('clusterIP') or '', spec.get('clusterIPs') or []
    if cluster_ip:
        if not cluster_ips:
            causes.append(('spec.clusterIPs', 'FieldValueRequired', 'Required value'))
        elif cluster_ips[0] != cluster_ip:
            causes.append(('spec.clusterIPs', 'FieldValueInvalid',
                           f'Invalid value: {go_strings(cluster_ips)}: first value must match `clusterIP`'))
    elif cluster_ips:
        causes.append(('spec.clusterIPs', 'FieldValueInvalid', f'Invalid value: {go_strings(cluster_ips)}: '
                       'must be empty when `clusterIP` is not specified'))
    seen = set()
    for i, family in enumerate(spec.get('ipFamilies') or []):
        if family not in IP_FAMILIES:
            choices = ', '.join(f'"{f}"' for f in IP_FAMILIES)
            causes.append((f'spec.ipFamilies[{i}]', 'FieldValueNotSupported',
                           f'Unsupported value: {go_repr(family)}: supported values: {choices}'))
        if family in seen:
            causes.append((f'spec.ipFamilies[{i}]', 'FieldValueDuplicate',
                           f'Duplicate value: {go_repr(family)}'))
        seen.add(family)
    policy = spec.get('ipFamilyPolicy')
    if policy is not None and policy not in IP_FAMILY_POLICIES:
        choices = ', '.join(f'"{p}"' for p in IP_FAMILY_POLICIES)
        causes.append(('spec.ipFamilyPolicy', 'FieldValueNotSupported',
                       f'Unsupported value: {go_repr(policy)}: supported values: {choices}'))
    for i, ip in enumerate(cluster_ips):
        if i == 0 and ip == 'None':
            if len(cluster_ips) > 1:
                listed = go_strings(cluster_ips)
                causes.append(('spec.clusterIPs', 'FieldValueInvalid',
                               f"Invalid value: {listed}: 'None' must be the first and only value"))
            continue
        if family_of(ip) is None:
            causes.append((f'spec.clusterIPs[{i}]', 'FieldValueInvalid',
                           f'Invalid value: {go_repr(ip)}: {IP_MSG}'))
    return causes


def default_service(obj, old=None):
    """The Service's defaults at decoding, and on updates the first steps of the registry's
    BeginUpdate: carry the allocated values forward, keep `clusterIP`/`clusterIPs` in step (on
    creates the allocator's admission step does the registry's work, after the field manager, as
    BeginCreate runs after the create handler's field manager: what it sets is no manager's)."""
    spec = obj.setdefault('spec', {})
    if not isinstance(spec, dict):
        return
    set_defaults(spec)
    if old is not None:
        old_spec = old.get('spec') or {}
        patch_allocated_values(spec, old_spec)
        normalize_cluster_ips(spec, old_spec)


# ---- validation ----------------------------------------------------------------------------------
def port_name_errors(name):
    """validation.IsValidPortName (an IANA_SVC_NAME)."""
    out = []
    if len(name) > 15:
        out.append('must be no more than 15 characters')
    if not re.match(r'^[-a-z0-9]+$', name):
        out.append('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)')
    if not re.search(r'[a-z]', name):
        out.append('must contain at least one letter (a-z)')
    if name.startswith('-') or name.endswith('-'):
        out.append('must not begin or end with a hyphen')
    if '--' in name:
        out.append('must not contain consecutive hyphens')
    return out


def _go_service_port(port):
    """core.ServicePort{Protocol, Port} as Go's %#v prints it (the duplicate-port error's value)."""
    return (f'core.ServicePort{{Name:"", Protocol:{go_repr(port.get("protocol", ""))}, '
            f'AppProtocol:(*string)(nil), Port:{port.get("port", 0)}, '
            'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}')


def _validate_port(errs, port, path, require_name, names):
    name = port.get('name') or ''
    if require_name and not name:
        errs.required(f'{path}.name')
    elif name:
        if len(name) > 63 or not DNS1123_LABEL.match(name):
            errs.invalid(f'{path}.name', name, LABEL_MSG)
        if name in names:
            errs.duplicate(f'{path}.name', name)
        names.add(name)
    number = port.get('port', 0)
    if not isinstance(number, int) or not 1 <= number <= 65535:
        errs.invalid(f'{path}.port', number, PORT_NUM_MSG)
    protocol = port.get('protocol') or ''
    if not protocol:
        errs.required(f'{path}.protocol')
    elif protocol not in PROTOCOLS:
        errs.unsupported(f'{path}.protocol', protocol, PROTOCOLS)
    target = port.get('targetPort')
    if isinstance(target, int) and not isinstance(target, bool):
        if not 1 <= target <= 65535:
            errs.invalid(f'{path}.targetPort', target, PORT_NUM_MSG)
    elif isinstance(target, str):
        for msg in port_name_errors(target):
            errs.invalid(f'{path}.targetPort', target, msg)


def validate_service(obj, old, errs):
    """ValidateService (and ValidateServiceUpdate's clusterIP rule), in the Go function's order."""
    meta = obj.get('metadata') or {}
    name = meta.get('name') or ''
    if name and len(name) <= 253 and _SUBDOMAIN.match(name):
        # The generic check passed; a Service name is a DNS-1035 label (ValidateServiceName).
        if len(name) > 63:
            errs.invalid('metadata.name', name, 'must be no more than 63 characters')
        if not DNS1035_LABEL.match(name):
            errs.invalid('metadata.name', name, DNS1035_MSG)
    spec = obj.get('spec') or {}
    if old is not None:
        _validate_update(errs, spec, old.get('spec') or {})
    headless = is_headless(obj)
    ports = [p if isinstance(p, dict) else {} for p in spec.get('ports') or []]
    if not ports and not headless and spec.get('type') != 'ExternalName':
        errs.required('spec.ports')
    if spec.get('type') in ('LoadBalancer', 'NodePort') and headless:
        errs.invalid('spec.clusterIPs[0]', 'None',
                     f"may not be set to 'None' for {spec['type']} services")
    elif spec.get('type') == 'ExternalName':
        if spec.get('clusterIPs'):
            errs.forbidden('spec.clusterIPs', 'may not be set for ExternalName services')
        if spec.get('ipFamilies'):
            errs.forbidden('spec.ipFamilies', 'may not be set for ExternalName services')
        if spec.get('ipFamilyPolicy') is not None:
            errs.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services')
        if not (spec.get('externalName') or '').rstrip('.'):
            errs.required('spec.externalName')
    names = set()
    for i, port in enumerate(ports):
        _validate_port(errs, port, f'spec.ports[{i}]', len(ports) > 1, names)
    if spec.get('selector') is not None:
        validate_labels(errs, spec['selector'], 'spec.selector')
    affinity = spec.get('sessionAffinity') or ''
    if not affinity:
        errs.required('spec.sessionAffinity')
    elif affinity not in AFFINITIES:
        errs.unsupported('spec.sessionAffinity', affinity, AFFINITIES)
    if old is not None:
        # BeginUpdate's initIPFamilyFields fills in the IP family fields and checks them (with
        # ValidateServiceClusterIPsRelatedFields) before validation proper; on creates the
        # allocator does (ipallocator.py).
        errs.causes.extend(init_ip_families(obj, old))
    for i, ip in enumerate(spec.get('externalIPs') or []):
        if family_of(ip) is None:
            errs.invalid(f'spec.externalIPs[{i}]', ip, IP_MSG)
    stype = spec.get('type') or ''
    if not stype:
        errs.required('spec.type')
    elif stype not in SERVICE_TYPES:
        errs.unsupported('spec.type', stype, SERVICE_TYPES)
    if stype == 'ClusterIP':
        for i, port in enumerate(ports):
            if port.get('nodePort'):
                errs.forbidden(f'spec.ports[{i}].nodePort', "may not be used when `type` is 'ClusterIP'")
    seen = set()
    for i, port in enumerate(ports):
        key = (port.get('protocol'), port.get('port'))
        if key in seen:
            errs.causes.append((f'spec.ports[{i}]', 'FieldValueDuplicate',
                                f'Duplicate value: {_go_service_port(port)}'))
        seen.add(key)
    policy = spec.get('internalTrafficPolicy')
    if policy is None and stype in ('NodePort', 'LoadBalancer', 'ClusterIP'):
        errs.required('spec.internalTrafficPolicy')
    elif policy is not None and policy not in TRAFFIC_POLICIES:
        errs.unsupported('spec.internalTrafficPolicy', policy, TRAFFIC_POLICIES)
    external = spec.get('externalTrafficPolicy') or ''
    if not externally_accessible(spec):
        if external:
            errs.invalid('spec.externalTrafficPolicy', external,
                         'may only be set for externally-accessible services')
    elif external not in TRAFFIC_POLICIES:
        errs.unsupported('spec.externalTrafficPolicy', external, TRAFFIC_POLICIES)


def _validate_update(errs, spec, old_spec):
    """validateUpgradeDowngradeClusterIPs and validateUpgradeDowngradeIPFamilies for a
    single-stack cluster: the cluster IP and family may not change once set."""
    if spec.get('type') == 'ExternalName' or old_spec.get('type') == 'ExternalName':
        return
    if old_spec.get('clusterIP') == 'None' and spec.get('clusterIP') == 'None':
        return
    old_ips, new_ips = old_spec.get('clusterIPs') or [], spec.get('clusterIPs') or []
    if len(old_ips) == len(new_ips):
        for i, ip in enumerate(old_ips):
            if ip != new_ips[i]:
                errs.causes.append((f'spec.clusterIPs[{i}]', 'FieldValueInvalid',
                                    f'Invalid value: {go_strings(new_ips)}: may not change once set'))
    elif len(old_ips) > len(new_ips) and not new_ips:
        errs.causes.append(('spec.clusterIPs[0]', 'FieldValueInvalid',
                            f'Invalid value: {go_strings(new_ips)}: primary clusterIP can not be unset'))
    old_families, new_families = old_spec.get('ipFamilies') or [], spec.get('ipFamilies') or []
    if old_families and new_families and old_families[0] != new_families[0]:
        listed = '[]core.IPFamily{' + ', '.join(go_repr(f) for f in new_families) + '}'
        errs.causes.append(('spec.ipFamilies[0]', 'FieldValueInvalid',
                            f'Invalid value: {listed}: may not change once set'))
