"""The certificates.k8s.io/v1 CertificateSigningRequest strategies
(pkg/registry/certificates/certificates/strategy.go) and the main rules of their validation
(pkg/apis/certificates/validation/validation.go).

- create: the status is reset and `spec.username`, `uid` and `groups` are the requesting user's,
  whatever the client sent; the request must be a PEM `CERTIFICATE REQUEST` block holding a
  certificate request, `signerName` a domain-prefixed path, `usages` known key usages (at least
  one), `expirationSeconds` at least 600;
- update: the spec and status are kept (only metadata changes);
- `status`: the spec and the Approved/Denied conditions are kept;
- `approval`: only the Approved/Denied conditions change (`kubectl certificate approve/deny`);
  Approved and Denied exclude each other and neither may be removed once set.
Condition timestamps the client leaves unset are filled (populateConditionTimestamps).
"""

import base64
import copy
import re

from ..authentication import REQUEST_USER
from .validation import Errors

KEY = 'certificates.k8s.io/certificatesigningrequests'
APPROVAL_TYPES = ('Approved', 'Denied')
USAGES = ('any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign',
          'data encipherment', 'decipher only', 'digital signature', 'email protection', 'encipher only',
          'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment',
          'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping')
_PEM = re.compile(rb'-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)-----END \1-----', re.S)
_SIGNER = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+'
                     r'/[A-Za-z0-9._~%!$&\'()*+,;=:@/-]+$')
SIGNER_MSG = 'must be a fully qualified domain and path of the form \'example.com/signer-name\''


def _go_bytes(data):
    """A []byte as Go's %#v prints it."""
    return '[]byte{' + ', '.join(f'0x{b:x}' for b in data) + '}'


def parse_request(data):
    """certificates.ParseCSR: the PEM block's DER, or the error Go reports."""
    found = _PEM.search(data)
    if found is None or found.group(1) != b'CERTIFICATE REQUEST':
        return 'PEM block type must be CERTIFICATE REQUEST'
    body = b''.join(line for line in found.group(2).splitlines() if b':' not in line)
    try:
        der = base64.b64decode(body, validate=True)
    except ValueError:
        return 'PEM block type must be CERTIFICATE REQUEST'
    from cryptography import x509  # only when a request is validated: not at start

    try:
        x509.load_der_x509_csr(der)
    except ValueError:
        return 'x509: malformed certificate request'
    return None


def _request_bytes(spec):
    raw = spec.get('request') or ''
    try:
        return base64.b64decode(raw) if isinstance(raw, str) else bytes(raw)
    except ValueError:
        return b''


def prepare(obj, old):
    """PrepareForCreate (the requester recorded) and PrepareForUpdate (spec kept)."""
    spec = obj.setdefault('spec', {})
    if old is not None:
        obj['spec'] = copy.deepcopy(old.get('spec') or {})
        return
    user = REQUEST_USER.get()
    for key in ('username', 'uid', 'groups', 'extra'):
        spec.pop(key, None)
    if user is not None:
        if user.name:
            spec['username'] = user.name
        if user.uid:
            spec['uid'] = user.uid
        if user.groups:
            spec['groups'] = list(user.groups)


def initial_status(obj):
    return {}


def validate(obj, old, errs):
    spec = obj.get('spec') or {}
    if old is None:
        problem = parse_request(_request_bytes(spec))
        if problem:
            errs.causes.append(('spec.request', 'FieldValueInvalid',
                                f'Invalid value: {_go_bytes(_request_bytes(spec))}: {problem}'))
    signer = spec.get('signerName') or ''
    if not signer:
        errs.required('spec.signerName')
    elif not _SIGNER.match(signer):
        errs.invalid('spec.signerName', signer, SIGNER_MSG)
    usages = spec.get('usages') or []
    if not usages:
        errs.required('spec.usages')
    for i, usage in enumerate(usages):
        if usage not in USAGES:
            errs.unsupported(f'spec.usages[{i}]', usage, USAGES)
    seconds = spec.get('expirationSeconds')
    if seconds is not None and seconds < 600:
        errs.invalid('spec.expirationSeconds', seconds, 'may not specify a duration less than 600 seconds '
                                                         '(10 minutes)')
    _validate_conditions(errs, obj, old)


def _validate_conditions(errs, obj, old):
    conditions = (obj.get('status') or {}).get('conditions') or []
    seen = set()
    for i, condition in enumerate(conditions):
        kind = (condition or {}).get('type') or ''
        if not kind:
            errs.required(f'status.conditions[{i}].type')
        if kind in seen:
            errs.duplicate(f'status.conditions[{i}].type', kind)
        seen.add(kind)
        if kind in APPROVAL_TYPES + ('Failed',) and condition.get('status') != 'True':
            errs.unsupported(f'status.conditions[{i}].status', condition.get('status') or '', ('True',))
    if 'Approved' in seen and 'Denied' in seen:
        errs.causes.append(('status.conditions', 'FieldValueInvalid',
                            'Invalid value: "Approved": Approved and Denied conditions are mutually '
                            'exclusive'))
    before = {c.get('type') for c in ((old or {}).get('status') or {}).get('conditions') or []}
    for kind in APPROVAL_TYPES:
        if kind in before and kind not in seen:
            errs.forbidden('status.conditions', f'updates may not remove a condition of type "{kind}"')


def _stamp(conditions, old_conditions, now):
    """populateConditionTimestamps: lastUpdateTime now when unset; lastTransitionTime the old
    condition's when its status did not change, else now."""
    for condition in conditions:
        if not condition.get('lastUpdateTime'):
            condition['lastUpdateTime'] = now
        if not condition.get('lastTransitionTime'):
            before = next((c for c in old_conditions if c.get('type') == condition.get('type')), None)
            if before is not None and before.get('status') == condition.get('status') \
                    and before.get('lastTransitionTime'):
                condition['lastTransitionTime'] = before['lastTransitionTime']
            else:
                condition['lastTransitionTime'] = now


def update_subresource(subresource, obj, old, row, now):
    """The status and approval strategies' PrepareForUpdate and ValidateUpdate: the object to
    store (or a 422)."""
    new = copy.deepcopy(old)
    new['metadata'] = copy.deepcopy(obj.get('metadata') or old['metadata'])
    for key in ('uid', 'creationTimestamp', 'generation', 'deletionTimestamp', 'ownerReferences'):
        if key in old['metadata']:
            new['metadata'][key] = copy.deepcopy(old['metadata'][key])
    old_status = old.get('status') or {}
    old_conditions = old_status.get('conditions') or []
    sent = copy.deepcopy((obj.get('status') or {}).get('conditions') or [])
    if subresource == 'approval':
        kept = [c for c in old_conditions if c.get('type') not in APPROVAL_TYPES]
        changed = [c for c in sent if c.get('type') in APPROVAL_TYPES]
        status = dict(copy.deepcopy(old_status))
    else:
        kept = [c for c in old_conditions if c.get('type') in APPROVAL_TYPES]
        changed = [c for c in sent if c.get('type') not in APPROVAL_TYPES]
        status = copy.deepcopy(obj.get('status') or {})
    _stamp(changed, old_conditions, now)
    conditions = kept + changed if subresource == 'status' else changed + kept
    if conditions:
        status['conditions'] = conditions
    else:
        status.pop('conditions', None)
    new['status'] = status
    errs = Errors()
    _validate_conditions(errs, new, old)
    if subresource == 'status' and status.get('certificate'):
        try:
            data = base64.b64decode(status['certificate'])
        except ValueError:
            data = b''
        if b'-----BEGIN CERTIFICATE-----' not in data:
            errs.invalid('status.certificate', '<certificate data>',
                         'must contain at least one CERTIFICATE PEM block')
    if errs.causes:
        errs.raise_if_any(row, new)
    return new

