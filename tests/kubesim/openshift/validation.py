"""What openshift-apiserver does to a Route it is asked to store, after the schema's checks:

- defaults (library-go `pkg/route/defaulting/defaults.go`): an empty `wildcardPolicy` is `None`, a
  backend's empty `kind` is `Service` and a missing `weight` 100, a `tls` without `termination` is
  `edge` (its capitalised spellings lowered);
- the host (openshift-apiserver `registry/route/strategy.go` and library-go
  `route/hostassignment`): a new route with neither `host` nor `subdomain` gets
  `<name>-<namespace>.<domain>` (dots of the name turned into dashes); an update that leaves
  `host` empty keeps the stored one;
- validation (library-go `pkg/route/validation/validation.go`, its messages): the host's DNS
  form, `path` beginning with `/` (and none with passthrough), `to.name` required, `kind` Service,
  weights between 0 and 256, at most 3 alternate backends, `port.targetPort` set, the TLS
  termination and insecure policy, the wildcard policy (immutable on update). A status write is
  not validated beyond its metadata (ValidateRouteStatusUpdate).

`admission(inner)` wraps the store's admission hook: the CRD's own checks first, then these.
"""

import re

from ..apiserver.strategies.validation import Errors
from ..machinery.errors import ApiError
from .crd import GROUP, KIND, PLURAL

ROUTES = f'{GROUP}/{PLURAL}'
QUALIFIED_KIND = f'{KIND}.{GROUP}'
# The router's domain: the DNS suffix of generated hosts (an ingress controller's `apps.<base>`).
DOMAIN = 'apps.kubesim.local'
WEIGHT_BOUNDS = (0, 256)
MAX_ALTERNATE_BACKENDS = 3
TERMINATIONS = ('edge', 'passthrough', 'reencrypt')
INSECURE_POLICIES = ('Allow', 'None', 'Redirect')
WILDCARD_POLICIES = ('None', 'Subdomain')
_DNS_LABEL = r'[a-z0-9]([-a-z0-9]*[a-z0-9])?'
_DNS_SUBDOMAIN = re.compile(rf'^{_DNS_LABEL}(\.{_DNS_LABEL})*$')


def backends(spec):
    """`to` and every alternate backend, with their field paths."""
    out = [('spec.to', spec.get('to') or {})]
    for i, ref in enumerate(spec.get('alternateBackends') or []):
        out.append((f'spec.alternateBackends[{i}]', ref if isinstance(ref, dict) else {}))
    return out


def default(obj, old):
    meta, spec = obj.get('metadata') or {}, obj.setdefault('spec', {})
    if not spec.get('wildcardPolicy'):
        spec['wildcardPolicy'] = 'None'
    spec.setdefault('to', {})
    for _path, ref in backends(spec):
        if not ref.get('kind'):
            ref['kind'] = 'Service'
        if ref.get('weight') is None:
            ref['weight'] = 100
    tls = spec.get('tls')
    if isinstance(tls, dict):
        if not tls.get('termination') and not tls.get('destinationCACertificate'):
            tls['termination'] = 'edge'
        lowered = (tls.get('termination') or '').lower()
        if lowered in TERMINATIONS:
            tls['termination'] = lowered
    if old is not None:
        if not spec.get('host'):
            spec['host'] = (old.get('spec') or {}).get('host', '')
            if not spec['host']:
                spec.pop('host')
    elif not spec.get('host') and not spec.get('subdomain') and meta.get('name') and meta.get('namespace'):
        spec['host'] = f'{meta["name"].replace(".", "-")}-{meta["namespace"]}.{DOMAIN}'


def _weight_ok(weight):
    return isinstance(weight, int) and not isinstance(weight, bool) and (
        WEIGHT_BOUNDS[0] <= weight <= WEIGHT_BOUNDS[1])


def validate(obj, old, errs):
    spec = obj.get('spec') or {}
    host = spec.get('host') or ''
    if host and (len(host) > 253 or not _DNS_SUBDOMAIN.match(host)):
        errs.invalid('spec.host', host, 'host must conform to DNS 952 subdomain conventions')
    policy = spec.get('wildcardPolicy') or ''
    if policy and policy not in WILDCARD_POLICIES:
        errs.unsupported('spec.wildcardPolicy', policy, WILDCARD_POLICIES)
    elif policy == 'Subdomain' and not host:
        errs.invalid('spec.wildcardPolicy', policy, 'host name not specified for wildcard policy')
    tls = spec.get('tls') if isinstance(spec.get('tls'), dict) else None
    path = spec.get('path') or ''
    if path and not path.startswith('/'):
        errs.invalid('spec.path', path, 'path must begin with /')
    if path and tls is not None and tls.get('termination') == 'passthrough':
        errs.invalid('spec.path', path, 'passthrough termination does not support paths')
    for i, (field, ref) in enumerate(backends(spec)):
        # to's errors, then the count of alternate backends, then each (validation.go's order)
        if i == 1 and len(spec['alternateBackends']) > MAX_ALTERNATE_BACKENDS:
            errs.required('spec.alternateBackends',
                          f'cannot specify more than {MAX_ALTERNATE_BACKENDS} alternate backends')
        if not ref.get('name'):
            errs.required(f'{field}.name')
        if ref.get('kind') != 'Service':
            errs.invalid(f'{field}.kind', ref.get('kind'), 'must reference a Service')
        if ref.get('weight') is not None and not _weight_ok(ref['weight']):
            errs.invalid(f'{field}.weight', ref['weight'], 'weight must be an integer between 0 and 256')
    port = spec.get('port')
    if isinstance(port, dict) and port.get('targetPort') in (None, 0, ''):
        errs.required('spec.port.targetPort')
    if tls is not None:
        _validate_tls(tls, errs)
    if old is not None:
        before = (old.get('spec') or {}).get('wildcardPolicy')
        if before is not None and policy != before:
            errs.invalid('spec.wildcardPolicy', policy, 'field is immutable')


def _validate_tls(tls, errs):
    termination = tls.get('termination') or ''
    if termination == 'passthrough':
        for key, shown in (('certificate', 'redacted certificate data'), ('key', 'redacted key data'),
                           ('caCertificate', 'redacted ca certificate data'),
                           ('destinationCACertificate', 'redacted destination ca certificate data')):
            if tls.get(key):
                errs.invalid(f'spec.tls.{key}', shown,
                             'passthrough termination does not support certificates')
    elif termination == 'edge':
        if tls.get('destinationCACertificate'):
            errs.invalid('spec.tls.destinationCACertificate', 'redacted destination ca certificate data',
                         'edge termination does not support destination certificates')
    elif termination != 'reencrypt':
        errs.unsupported('spec.tls.termination', termination, TERMINATIONS)
    insecure = tls.get('insecureEdgeTerminationPolicy') or ''
    if insecure and insecure not in INSECURE_POLICIES:
        errs.unsupported('spec.tls.insecureEdgeTerminationPolicy', insecure, INSECURE_POLICIES)


def admission(inner):
    """The store's admission hook with the Route's defaults and validation after ``inner``."""

    def admit(resource, obj, old):
        if inner is not None:
            inner(resource, obj, old)
        if resource != ROUTES:
            return
        if old is not None and obj.get('spec') == old.get('spec'):
            return  # a status or metadata write: nothing of the spec to judge
        default(obj, old)
        errs = Errors()
        validate(obj, old, errs)
        if errs.causes:
            name = (obj.get('metadata') or {}).get('name', '')
            raise ApiError.invalid(ROUTES, name, errs.causes, kind=QUALIFIED_KIND)

    return admit
