"""The CustomResourceDefinition strategy (apiextensions-apiserver
`pkg/registry/customresourcedefinition/strategy.go`, etcd.go), its defaults
(`pkg/apis/apiextensions/v1/defaults.go`), its validation
(`pkg/apis/apiextensions/validation/validation.go`, the common mistakes in the API server's words)
and `kubectl get crd`'s columns (`customresourcedefinition/tableconvertor`): the hooks of the
CRD's resource row."""

import re

from ...machinery.clock import now_rfc3339
from ...machinery.errors import ApiError
from .. import fieldmanager
from . import schema_checks
from . import types

GROUP = 'apiextensions.k8s.io'
KEY = 'apiextensions.k8s.io/customresourcedefinitions'
CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io'
# The metadata a `status` write cannot change (metav1.ResetObjectMetaForStatus).
STATUS_KEEPS = ('labels', 'annotations', 'finalizers', 'ownerReferences')
# The field manager walks a CRD as deduced JSON (objects granular, lists atomic).
FIELD_TYPE = fieldmanager.SchemaType(
    {'type': 'object', 'x-kubernetes-preserve-unknown-fields': True}, resource=True
)

_DNS1035 = re.compile(r'^[a-z]([-a-z0-9]*[a-z0-9])?$')
_DNS1123_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
_DNS1123_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
    "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
COLUMN_TYPES = ('boolean', 'date', 'integer', 'number', 'string')
COLUMN_FORMATS = ('byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password')


def decode(obj):
    return types.decode(obj)


def encode(obj):
    return types.encode(obj)


# ---- helpers (pkg/apihelpers) -----------------------------------------------------------------------
def condition(crd, kind):
    for cond in (crd.get('status') or {}).get('conditions') or []:
        if cond.get('type') == kind:
            return cond
    return None


def condition_true(crd, kind):
    found = condition(crd, kind)
    return found is not None and found.get('status') == 'True'


def set_condition(crd, kind, status, reason, message):
    """SetCRDCondition: a new transition time only when the status changes."""
    conditions = crd.setdefault('status', {}).get('conditions') or []
    crd['status']['conditions'] = conditions
    found = condition(crd, kind)
    if found is None:
        conditions.append(
            {
                'type': kind,
                'status': status,
                'lastTransitionTime': now_rfc3339(),
                'reason': reason,
                'message': message,
            }
        )
        return
    if found.get('status') != status or not found.get('lastTransitionTime'):
        found['lastTransitionTime'] = now_rfc3339()
    found.update(status=status, reason=reason, message=message)


def storage_version(crd):
    for version in (crd.get('spec') or {}).get('versions') or []:
        if version.get('storage'):
            return version.get('name')
    return None


def subresources(crd, version_name):
    for version in (crd.get('spec') or {}).get('versions') or []:
        if version.get('name') == version_name:
            return version.get('subresources') or {}
    return {}


# ---- defaults and PrepareForCreate/Update -------------------------------------------------------------
def default(obj, old):
    """SetDefaults_CustomResourceDefinition, and on updates the storage version added to
    `status.storedVersions` (PrepareForUpdate; the status itself is the stored one)."""
    spec = obj.get('spec')
    if not isinstance(spec, dict):
        return
    names = spec.get('names')
    if isinstance(names, dict):
        if not names.get('singular') and names.get('kind'):
            names['singular'] = names['kind'].lower()
        if not names.get('listKind') and names.get('kind'):
            names['listKind'] = names['kind'] + 'List'
    if not spec.get('conversion'):
        spec['conversion'] = {'strategy': 'None'}
    service = (((spec.get('conversion') or {}).get('webhook') or {}).get('clientConfig') or {}).get('service')
    if isinstance(service, dict) and service.get('port') is None:
        service['port'] = 443
    if old is not None:
        stored = storage_version(obj)
        status = obj.setdefault('status', {})
        versions = status.get('storedVersions') or []
        if stored and stored not in versions:
            status['storedVersions'] = versions + [stored]


def initial_status(obj):
    """PrepareForCreate: an empty status but for the storage version in `storedVersions`."""
    stored = storage_version(obj)
    return {
        'acceptedNames': {'plural': '', 'kind': ''},
        'storedVersions': [stored] if stored else None,
        'conditions': None,
    }


# ---- validation --------------------------------------------------------------------------------------
class _Errs(schema_checks.SchemaErrors):
    """The schema checks' field errors, appended to the CRD's own ``errs``."""

    def __init__(self, errs):
        self.causes = errs.causes


def _dns1035(errs, field, value):
    if value and (len(value) > 63 or not _DNS1035.match(value)):
        detail = DNS1035_MSG if len(value) <= 63 else 'must be no more than 63 characters'
        errs.invalid(field, value, detail)


def _names(errs, names, path):
    _dns1035(errs, f'{path}.plural', names.get('plural', ''))
    _dns1035(errs, f'{path}.singular', names.get('singular', ''))
    for name in ('kind', 'listKind'):
        value = names.get(name, '')
        if value and not _DNS1035.match(value.lower()):
            errs.invalid(
                f'{path}.{name}', value, 'may have mixed case, but should otherwise match: ' + DNS1035_MSG
            )
    for i, short in enumerate(names.get('shortNames') or []):
        _dns1035(errs, f'{path}.shortNames[{i}]', short)
    if names.get('kind') and names.get('kind') == names.get('listKind'):
        errs.invalid(f'{path}.listKind', names['listKind'], 'kind and listKind may not be the same')
    for i, category in enumerate(names.get('categories') or []):
        _dns1035(errs, f'{path}.categories[{i}]', category)


def _simple_path(errs, field, text):
    if not text:
        errs.invalid(field, text, 'must not be empty')
        return False
    if text[0] != '.':
        errs.invalid(field, text, 'must be a simple json path starting with .')
        return False
    return True


def _subresources(errs, subs, path):
    scale = (subs or {}).get('scale')
    if not isinstance(scale, dict):
        return
    spec_path = scale.get('specReplicasPath', '')
    if not spec_path:
        errs.required(f'{path}.scale.specReplicasPath')
    elif _simple_path(errs, f'{path}.scale.specReplicasPath', spec_path) and not spec_path.startswith(
        '.spec.'
    ):
        errs.invalid(f'{path}.scale.specReplicasPath', spec_path, 'should be a json path under .spec')
    status_path = scale.get('statusReplicasPath', '')
    if not status_path:
        errs.required(f'{path}.scale.statusReplicasPath')
    elif _simple_path(errs, f'{path}.scale.statusReplicasPath', status_path) and not status_path.startswith(
        '.status.'
    ):
        errs.invalid(f'{path}.scale.statusReplicasPath', status_path, 'should be a json path under .status')
    selector = scale.get('labelSelectorPath')
    if (
        selector
        and _simple_path(errs, f'{path}.scale.labelSelectorPath', selector)
        and not selector.startswith(('.spec.', '.status.'))
    ):
        errs.invalid(
            f'{path}.scale.labelSelectorPath', selector, 'should be a json path under either .spec or .status'
        )


def _column(errs, col, path):
    if not col.get('name'):
        errs.required(f'{path}.name')
    if not col.get('type'):
        errs.required(f'{path}.type', 'must be one of ' + ','.join(COLUMN_TYPES))
    elif col['type'] not in COLUMN_TYPES:
        errs.invalid(f'{path}.type', col['type'], 'must be one of ' + ','.join(COLUMN_TYPES))
    if col.get('format') and col['format'] not in COLUMN_FORMATS:
        errs.invalid(f'{path}.format', col['format'], 'must be one of ' + ','.join(COLUMN_FORMATS))
    if not col.get('jsonPath'):
        errs.required(f'{path}.JSONPath')


def _version(errs, version, path):
    if version.get('deprecationWarning') is not None and not version.get('deprecated'):
        errs.invalid(
            f'{path}.deprecationWarning',
            version['deprecationWarning'],
            'can only be set for deprecated versions',
        )
    subs = version.get('subresources') or {}
    schema = (version.get('schema') or {}).get('openAPIV3Schema')
    if isinstance(schema, dict):
        errs.causes.extend(
            schema_checks.validate_schema(
                schema, f'{path}.schema.openAPIV3Schema', status_enabled='status' in subs
            )
        )
    _subresources(errs, subs, f'{path}.subresources')
    for i, col in enumerate(version.get('additionalPrinterColumns') or []):
        _column(errs, col, f'{path}.additionalPrinterColumns[{i}]')
    for i, selectable in enumerate(version.get('selectableFields') or []):
        where = f'{path}.selectableFields[{i}].jsonPath'
        text = selectable.get('jsonPath', '')
        if not text:
            errs.required(where)
        elif text.startswith('.metadata'):
            errs.invalid(where, text, 'must not point to fields in metadata')


def _spec(errs, spec, path):
    group = spec.get('group', '')
    if not group:
        errs.required(f'{path}.group')
    elif len(group) > 253 or not _DNS1123_SUBDOMAIN.match(group):
        errs.invalid(f'{path}.group', group, SUBDOMAIN_MSG)
    elif len(group.split('.')) < 2:
        errs.invalid(f'{path}.group', group, 'should be a domain with at least one dot')
    scope = spec.get('scope', '')
    if not scope:
        errs.required(f'{path}.scope')
    elif scope not in ('Cluster', 'Namespaced'):
        errs.unsupported(f'{path}.scope', scope, ('Cluster', 'Namespaced'))
    versions = spec.get('versions') or []
    if spec.get('preserveUnknownFields'):
        errs.invalid(
            f'{path}.preserveUnknownFields',
            True,
            'cannot set to true, set x-kubernetes-preserve-unknown-'
            'fields to true in spec.versions[*].schema instead',
        )
    for i, version in enumerate(versions):
        schema = (version.get('schema') or {}).get('openAPIV3Schema')
        if schema is None:
            errs.required(f'{path}.versions[{i}].schema.openAPIV3Schema')
    names_seen, unique, storage = set(), True, 0
    for i, version in enumerate(versions):
        storage += 1 if version.get('storage') else 0
        if version.get('name') in names_seen:
            unique = False
        names_seen.add(version.get('name'))
        name = version.get('name', '')
        if not name or len(name) > 63 or not _DNS1035.match(name):
            errs.invalid(f'{path}.versions[{i}].name', name, DNS1035_MSG)
        _version(errs, version, f'{path}.versions[{i}]')
    if not unique:
        errs.invalid(f'{path}.versions', versions, 'must contain unique version names')
    if storage != 1:
        errs.invalid(f'{path}.versions', versions, 'must have exactly one version marked as storage version')
    names = spec.get('names') or {}
    for name in ('plural', 'singular', 'kind', 'listKind'):
        if not names.get(name):
            errs.required(f'{path}.names.{name}')
    _names(errs, names, f'{path}.names')
    conversion = spec.get('conversion') or {}
    strategy = conversion.get('strategy', '')
    if not strategy:
        errs.required(f'{path}.conversion.strategy')
    elif strategy not in ('None', 'Webhook'):
        errs.unsupported(f'{path}.conversion.strategy', strategy, ('None', 'Webhook'))
    elif strategy == 'Webhook':
        webhook = conversion.get('webhook') or {}
        config = webhook.get('clientConfig')
        if not config:
            errs.required(
                f'{path}.conversion.webhook.clientConfig', 'required when strategy is set to Webhook'
            )
        elif bool(config.get('url')) == bool(config.get('service')):
            errs.required(
                f'{path}.conversion.webhook.clientConfig', 'exactly one of url or service is required'
            )
        if not webhook.get('conversionReviewVersions'):
            errs.required(f'{path}.conversion.webhook.conversionReviewVersions')
    elif conversion.get('webhook') is not None:
        if (conversion['webhook'] or {}).get('clientConfig'):
            errs.forbidden(
                f'{path}.conversion.webhook.clientConfig',
                'should not be set when strategy is not set to Webhook',
            )


def _stored_versions(errs, obj):
    stored = (obj.get('status') or {}).get('storedVersions') or []
    versions = (obj.get('spec') or {}).get('versions') or []
    path = 'status.storedVersions'
    if not stored:
        errs.invalid(path, stored or None, 'must have at least one stored version')
        return
    remaining = {v: i for i, v in enumerate(stored)}
    for version in versions:
        if version.get('storage') and version.get('name') not in remaining:
            errs.invalid(path, stored, 'must have the storage version ' + version.get('name', ''))
        remaining.pop(version.get('name'), None)
    for version, index in remaining.items():
        errs.invalid(
            f'{path}[{index}]',
            version,
            f'missing from spec.versions; {version} was previously a storage '
            f'version, and must remain in spec.versions until a storage migration ensures no data remains '
            f'persisted in {version} and removes {version} from status.storedVersions',
        )


def validate(obj, old, errs):
    """ValidateCustomResourceDefinition, or ...Update with the immutable fields."""
    out = _Errs(errs)
    spec = obj.get('spec') or {}
    names = spec.get('names') or {}
    name = (obj.get('metadata') or {}).get('name', '')
    if old is None and name != f'{names.get("plural", "")}.{spec.get("group", "")}':
        out.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group')
    _spec(out, spec, 'spec')
    _names(out, (obj.get('status') or {}).get('acceptedNames') or {}, 'status.acceptedNames')
    _stored_versions(out, obj)
    if old is not None:
        old_spec = old.get('spec') or {}
        changes = [
            ('spec.group', spec.get('group'), old_spec.get('group')),
            ('spec.names.plural', names.get('plural'), (old_spec.get('names') or {}).get('plural')),
        ]
        if condition_true(old, 'Established'):
            changes[:0] = [
                ('spec.scope', spec.get('scope'), old_spec.get('scope')),
                ('spec.names.kind', names.get('kind'), (old_spec.get('names') or {}).get('kind')),
            ]
        for field, new, was in changes:
            if new != was:
                out.invalid(field, new, 'field is immutable')


# ---- DELETE (etcd.go REST.Delete) ---------------------------------------------------------------------
def delete(store, key, obj, dry_run):
    """The first DELETE of a CRD: `deletionTimestamp`, the cleanup finalizer and the Terminating
    condition; the finalizer controller then deletes the custom resources and the CRD."""
    new = dict(obj, metadata=dict(obj['metadata']), status=dict(obj.get('status') or {}))
    new['status']['conditions'] = [dict(c) for c in new['status'].get('conditions') or []]
    meta = new['metadata']
    meta.setdefault('deletionTimestamp', now_rfc3339())
    if CLEANUP_FINALIZER not in (meta.get('finalizers') or []):
        meta['finalizers'] = list(meta.get('finalizers') or []) + [CLEANUP_FINALIZER]
    set_condition(
        new,
        'Terminating',
        'True',
        'InstanceDeletionPending',
        'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    )
    if dry_run:
        return new
    return store.replace(KEY, new, obj)


def forbid_create_while_terminating(resource, name):
    """forbidCreateAdmission of the custom resource handler."""
    return ApiError.forbidden_because(
        resource, name, 'create not allowed while custom resource definition is terminating'
    )


# ---- kubectl get crd ------------------------------------------------------------------------------------
def _versions_cell(crd):
    labels = []
    for version in (crd.get('spec') or {}).get('versions') or []:
        if version.get('served'):
            labels.append(version.get('name', '') + ('(storage)' if version.get('storage') else ''))
    return ','.join(sorted(labels))


_NAME_DOC = (
    'Name must be unique within a namespace. Is required when creating resources, although some '
    'resources may allow a client to request the generation of an appropriate name automatically. Name '
    'is primarily intended for creation idempotence and configuration definition. Cannot be updated. '
    'More info: '
    'https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names'
)
_CREATED_DOC = (
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not '
    'guaranteed to be set in happens-before order across separate operations. Clients may not set this '
    'value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null '
    'for lists. More info: '
    'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata'
)

COLUMNS = (
    ('Name', 'string', 0, lambda o: o['metadata']['name'], {'format': 'name', 'description': _NAME_DOC}),
    (
        'Scope',
        'string',
        0,
        lambda o: (o.get('spec') or {}).get('scope', ''),
        {'description': 'Cluster/Namespaced'},
    ),
    ('Versions', 'string', 0, _versions_cell, {'description': 'Served versions'}),
    (
        'Created At',
        'date',
        0,
        lambda o: o['metadata'].get('creationTimestamp', ''),
        {'description': _CREATED_DOC},
    ),
    ('Group', 'string', 1, lambda o: (o.get('spec') or {}).get('group', ''), {'description': 'API group'}),
    (
        'Kind',
        'string',
        1,
        lambda o: ((o.get('spec') or {}).get('names') or {}).get('kind', ''),
        {'description': 'CustomResource kind'},
    ),
    (
        'ShortNames',
        'string',
        1,
        lambda o: ','.join(((o.get('spec') or {}).get('names') or {}).get('shortNames') or []),
        {'description': 'Short names'},
    ),
    (
        'Established',
        'boolean',
        1,
        lambda o: condition_true(o, 'Established'),
        {'description': 'Established status'},
    ),
)
