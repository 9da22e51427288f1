"""Serving custom resources (apiextensions-apiserver `pkg/apiserver/customresource_handler.go`):
the resource rows a CustomResourceDefinition adds to its store's registry, one per served version,
and the custom resources' strategy (`pkg/registry/customresource/strategy.go`,
status_strategy.go, validator.go, tableconvertor/tableconvertor.go, etcd.go's scale).

A custom resource's store key is `<group>/<plural>` like a built-in kind's; objects are stored in
the storage version. A request body is decoded in the request's version as the handler's
schema-coercing decoder does: metadata decoded as an ObjectMeta, unknown fields pruned (reported
for `fieldValidation`), nulls of non-nullable fields dropped, embedded resources' metadata
coerced, defaults applied; it is then converted to the storage version (`conversion.strategy:
None`: only `apiVersion` changes, the storage schema prunes). Reading converts back and applies
the storage version's defaults (as decoding from etcd does)."""

import copy
import datetime
import math

from ...machinery import gotypes, jsonpath
from ...machinery.patch import APPLY_PATCH, JSON_PATCH, MERGE_PATCH
from .. import fieldmanager, tables
from . import schema as structural
from . import strategy as crd_strategy
from .validation import MISSING, validate

PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)
_NAME_DOC = crd_strategy._NAME_DOC
_AGE_DOC = crd_strategy._CREATED_DOC


def _canonical(value):
    """Numbers as the API server keeps them: a whole float (`2.0`) is printed by Go without a
    fraction, so it reads back as the integer."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, float):
        return go_float_value(value)
    return value


def go_sorted(value):
    """An unstructured object as Go's encoder prints a map[string]interface{}: keys sorted at every
    level (a managedFields tree is already in order)."""
    if isinstance(value, fieldmanager.FieldsTree):
        return value
    if isinstance(value, dict):
        return {k: go_sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [go_sorted(v) for v in value]
    return value


def go_float_value(value):
    if value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


def _path_parts(path):
    return [p for p in path.lstrip('.').split('.') if p]


def _nested(obj, path):
    value = obj
    for part in _path_parts(path):
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def _set_nested(obj, path, value):
    parts = _path_parts(path)
    node = obj
    for part in parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[parts[-1]] = value


class CustomResource:
    """One version of a CRD as it is served (or, for an unserved storage version, stored): the
    hooks of its resource row."""

    def __init__(self, crd, version, storage):
        spec = crd['spec']
        names = (crd.get('status') or {}).get('acceptedNames') or spec['names']
        self.crd_name = crd['metadata']['name']
        self.group = spec['group']
        self.version = version['name']
        self.storage_version = storage['name']
        self.kind = names.get('kind') or spec['names']['kind']
        self.list_kind = names.get('listKind') or self.kind + 'List'
        self.plural = names.get('plural') or spec['names']['plural']
        self.singular = names.get('singular') or self.kind.lower()
        self.short_names = tuple(names.get('shortNames') or ())
        self.categories = tuple(names.get('categories') or ())
        self.namespaced = spec.get('scope') == 'Namespaced'
        self.schema = copy.deepcopy((version.get('schema') or {}).get('openAPIV3Schema') or {})
        self.storage_schema = copy.deepcopy((storage.get('schema') or {}).get('openAPIV3Schema') or {})
        subresources = version.get('subresources') or {}
        self.status = subresources.get('status') is not None
        self.scale = subresources.get('scale')
        self.columns = version.get('additionalPrinterColumns') or []
        self.selectable = [f.get('jsonPath', '') for f in version.get('selectableFields') or []]
        self.terminating = bool(crd['metadata'].get('deletionTimestamp')) or crd_strategy.condition_true(
            crd, 'Terminating'
        )
        self.field_type = fieldmanager.SchemaType(self.storage_schema, resource=True)

    @property
    def key(self):
        return f'{self.group}/{self.plural}'

    def api_version(self, version=None):
        return f'{self.group}/{version or self.version}'

    # ---- decoding, conversion, reading -----------------------------------------------------------
    def _coerce(self, obj, schema):
        """unstructuredSchemaCoercer.apply: (obj, unknown paths)."""
        obj = _canonical(obj)
        unknown = []
        if isinstance(obj.get('metadata'), dict):
            meta, found = gotypes.decode('meta.v1.ObjectMeta', obj['metadata'])
            if meta.get('creationTimestamp') is None:
                meta.pop('creationTimestamp', None)
            obj['metadata'] = meta
            unknown.extend(f'metadata.{path}' for path in found)
        unknown.extend(structural.prune(obj, schema))
        structural.prune_nulls(obj, schema)
        unknown.extend(structural.coerce_embedded(obj, schema))
        return obj, unknown

    def decode(self, obj):
        """A request body in this version: (the object, the unknown field paths)."""
        obj, unknown = self._coerce(obj, self.schema)
        structural.default(obj, self.schema)
        return obj, unknown

    def stored(self, obj):
        obj = dict(obj, apiVersion=self.api_version(self.storage_version))
        if self.version != self.storage_version:
            obj = copy.deepcopy(obj)
            structural.prune(obj, self.storage_schema)
        return obj

    def shown(self, obj):
        obj = copy.deepcopy(obj)
        structural.default(obj, self.storage_schema)
        if obj.get('apiVersion') != self.api_version():
            obj['apiVersion'] = self.api_version()
            structural.prune(obj, self.schema)
        return go_sorted(obj)

    def encode(self, obj):
        """What the store keeps (every write, the controllers' too): coerced and defaulted with the
        storage schema."""
        try:
            obj, _unknown = self._coerce(copy.deepcopy(obj), self.storage_schema)
        except gotypes.DecodeError:
            return obj
        structural.default(obj, self.storage_schema)
        return go_sorted(obj)

    def known_only(self, config):
        """An apply configuration without the fields the schema does not declare."""
        config = copy.deepcopy(config)
        structural.prune(config, self.schema)
        return config

    # ---- the strategy ------------------------------------------------------------------------------
    def defaulter(self, obj, old):
        """PrepareForCreate (status dropped with the status subresource) and the terminating
        CRD's refusal of creates."""
        if old is None:
            if self.terminating:
                raise crd_strategy.forbid_create_while_terminating(self.key, obj['metadata'].get('name', ''))
            if self.status:
                obj.pop('status', None)

    def validator(self, obj, old, errs):
        """customResourceValidator.Validate/ValidateUpdate: the schema (ratcheting updates), the
        scale paths' values, list-map and set uniqueness."""
        errs.causes.extend(validate(obj, self.storage_schema, old=old if old is not None else MISSING))
        if self.scale:
            self._scale_errors(obj, errs)
        if old is None or not structural.list_duplicates(old, self.storage_schema):
            errs.causes.extend(structural.list_duplicates(obj, self.storage_schema))

    def _scale_errors(self, obj, errs):
        for path in (self.scale.get('specReplicasPath'), self.scale.get('statusReplicasPath')):
            if not path:
                continue
            value = _nested(obj, path)
            if value is MISSING:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                kind = {
                    str: 'string',
                    float: 'float64',
                    bool: 'bool',
                    dict: 'map[string]interface {}',
                    list: '[]interface {}',
                }.get(type(value), 'interface {}')
                errs.causes.append(
                    (
                        path,
                        'FieldValueInvalid',
                        f'Invalid value: 0: {path} accessor error: '
                        f'{go_text(value)} is of the type {kind}, expected int64',
                    )
                )
            elif value < 0:
                errs.causes.append(
                    (path, 'FieldValueInvalid', f'Invalid value: {value}: should be a non-negative integer')
                )
            elif value > 2**31 - 1:
                errs.causes.append(
                    (
                        path,
                        'FieldValueInvalid',
                        f'Invalid value: {value}: should be less than or equal to {2**31 - 1}',
                    )
                )

    # ---- scale (etcd.go scaleFromCustomResource) --------------------------------------------------------
    def to_scale(self, obj):
        meta = obj['metadata']
        replicas = _nested(obj, self.scale.get('specReplicasPath', ''))
        current = _nested(obj, self.scale.get('statusReplicasPath', ''))
        selector = (
            _nested(obj, self.scale.get('labelSelectorPath') or '')
            if self.scale.get('labelSelectorPath')
            else MISSING
        )
        status = {'replicas': current if isinstance(current, int) else 0}
        if isinstance(selector, str) and selector:
            status['selector'] = selector
        spec = {'replicas': replicas} if isinstance(replicas, int) and replicas else {}
        return {
            'kind': 'Scale',
            'apiVersion': 'autoscaling/v1',
            'metadata': {
                k: meta[k]
                for k in ('name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp')
                if k in meta
            },
            'spec': spec,
            'status': status,
        }

    def replicas_path(self):
        return tuple(_path_parts(self.scale.get('specReplicasPath', '')))

    def set_replicas(self, obj, replicas):
        _set_nested(obj, self.scale.get('specReplicasPath', ''), replicas)

    # ---- printing (tableconvertor.go) -----------------------------------------------------------------
    def table_columns(self):
        columns = [
            (
                'Name',
                'string',
                0,
                lambda o: o['metadata']['name'],
                {'format': 'name', 'description': _NAME_DOC},
            )
        ]
        definitions = self.columns or [
            {
                'name': 'Age',
                'type': 'date',
                'jsonPath': '.metadata.creationTimestamp',
                'description': _AGE_DOC,
            }
        ]
        for col in definitions:
            try:
                steps = jsonpath.parse(col.get('jsonPath', ''))
            except jsonpath.JSONPathError:
                steps = None
            description = (
                col.get('description')
                or f'Custom resource definition column (in JSONPath format): {col.get("jsonPath", "")}'
            )
            columns.append(
                (
                    col.get('name', ''),
                    col.get('type', ''),
                    col.get('priority', 0),
                    _cell(steps, col.get('type', '')),
                    {'format': col.get('format', ''), 'description': description},
                )
            )
        return tuple(columns)


def go_text(value):
    return jsonpath.go_text(value)


def _cell(steps, typ):
    def cell(obj):
        if steps is None:
            return None
        found = jsonpath.find(steps, obj)
        if not found:
            return None
        value = found[0]
        if typ == 'string':
            return jsonpath.print_result(value)
        if value is None:
            return None
        if typ == 'integer':
            if isinstance(value, bool):
                return None
            if isinstance(value, int):
                return value
            if isinstance(value, float) and math.isfinite(value):
                return int(value)
            return None
        if typ == 'number':
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return None
            return float(value)
        if typ == 'boolean':
            return value if isinstance(value, bool) else None
        if typ == 'date':
            if not isinstance(value, str):
                return None
            try:
                moment = datetime.datetime.strptime(value, '%Y-%m-%dT%H:%M:%SZ').replace(
                    tzinfo=datetime.timezone.utc
                )
            except ValueError:
                return '<invalid>'
            seconds = (datetime.datetime.now(datetime.timezone.utc) - moment).total_seconds()
            return tables.human_duration(seconds)
        return None

    return cell


# ---- the rows -----------------------------------------------------------------------------------------
def rows_for(crd):
    """The resource rows of a CRD: one per served version, plus the storage version's when it is
    not served (it keys the store)."""
    from ..registry.resources import ALL_VERBS, Resource

    versions = (crd.get('spec') or {}).get('versions') or []
    storage = next((v for v in versions if v.get('storage')), None)
    if storage is None:
        return []
    rows = []
    for version in versions:
        is_storage = version is storage
        if not version.get('served') and not is_storage:
            continue
        info = CustomResource(crd, version, storage)
        subresources = tuple(
            s for s, on in (('status', info.status), ('scale', info.scale is not None)) if on
        )
        rows.append(
            Resource(
                info.group,
                info.version,
                info.plural,
                info.kind,
                namespaced=info.namespaced,
                short_names=info.short_names,
                categories=info.categories,
                subresources=subresources,
                verbs=ALL_VERBS,
                generation=True,
                defaulter=info.defaulter,
                validator=info.validator,
                columns=info.table_columns(),
                field_labels=tuple(p.lstrip('.') for p in info.selectable) or None,
                singular_name=info.singular,
                decoder=info.decode,
                encoder=info.encode if is_storage else None,
                field_type=info.field_type,
                patch_types=PATCH_TYPES,
                status_admission=True,
                served=bool(version.get('served')),
                custom=info,
                to_version=None if is_storage else info.shown,
                from_version=None if is_storage else info.stored,
            )
        )
    return rows


def serving(crd):
    """Whether the API server serves a CRD's resources: its names are accepted (or it was
    established)."""
    return crd_strategy.condition_true(crd, 'NamesAccepted') or crd_strategy.condition_true(
        crd, 'Established'
    )


def serve(registry, crd):
    """Add (or replace, or remove) the rows of ``crd`` in ``registry``."""
    name = crd['metadata']['name']
    if serving(crd):
        registry.serve(name, rows_for(crd))
    else:
        registry.unserve(name)
