"""Structural schemas (apiextensions-apiserver `pkg/apiserver/schema`): a CRD version's
`openAPIV3Schema` (a JSONSchemaProps as JSON) checked for structurality when the CRD is written,
and used on every custom resource to prune unknown fields (`pruning/algorithm.go`), drop nulls
(`defaulting/prunenulls.go`), apply defaults (`defaulting/algorithm.go`) and coerce the
ObjectMeta of embedded resources (`objectmeta/coerce.go`).

Schema nodes are the JSON dicts of the CRD (`properties`, `items`, `additionalProperties`, the
`x-kubernetes-*` extensions); a missing node (None) is "no schema": everything below it is pruned.
"""

from ...machinery import gotypes
from .validation import field_value, items

META_FIELDS = ('apiVersion', 'kind', 'metadata')
OPENAPI_TYPES = ('array', 'boolean', 'integer', 'number', 'object', 'string')


# ---- navigating a schema ---------------------------------------------------------------------
def prop(schema, key):
    """The schema of ``key`` in an object node: its property, else additionalProperties' schema
    (None when neither)."""
    if not isinstance(schema, dict):
        return None
    props = schema.get('properties') or {}
    if key in props:
        return props[key]
    extra = schema.get('additionalProperties')
    return extra if isinstance(extra, dict) else None


def preserves(schema):
    return bool((schema or {}).get('x-kubernetes-preserve-unknown-fields'))


def embedded(schema):
    return bool((schema or {}).get('x-kubernetes-embedded-resource'))


def has_default(schema):
    return isinstance(schema, dict) and 'default' in schema


# ---- the unknown-field path bookkeeping (schema/options.go) ------------------------------------
def _join(path, key):
    return f'{path}.{key}' if path else key


# ---- pruning (pruning/algorithm.go) -----------------------------------------------------------------
def prune(obj, schema, root=True):
    """Remove from ``obj`` (in place) every field ``schema`` does not specify; apiVersion, kind and
    metadata of the resource (and of embedded resources) stay. Returns the pruned paths, sorted."""
    found = []
    if root:
        schema = dict(schema or {}, **{'x-kubernetes-embedded-resource': True})
    _prune(obj, schema, '', found)
    found.sort()
    return found


def _prune(value, schema, path, found):
    if schema is not None and preserves(schema):
        _skip_prune(value, schema, path, found)
        return
    if isinstance(value, dict):
        if schema is None:
            for key in list(value):
                found.append(_join(path, key))
                del value[key]
            return
        props = schema.get('properties') or {}
        extra = schema.get('additionalProperties')
        for key in list(value):
            if embedded(schema) and key in META_FIELDS:
                continue
            if key in props:
                _prune(value[key], props[key], _join(path, key), found)
            elif extra is not None and extra is not False:
                _prune(
                    value[key],
                    extra if isinstance(extra, dict) else {'x-kubernetes-preserve-unknown-fields': True},
                    _join(path, key),
                    found,
                )
            else:
                if key not in META_FIELDS or path:
                    found.append(_join(path, key))
                del value[key]
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _prune(item, items(schema) if schema is not None else None, f'{path}[{index}]', found)


def _skip_prune(value, schema, path, found):
    if isinstance(value, dict):
        props = schema.get('properties') or {}
        extra = schema.get('additionalProperties')
        for key in list(value):
            if embedded(schema) and key in META_FIELDS:
                continue
            if key in props:
                _prune(value[key], props[key], _join(path, key), found)
            elif isinstance(extra, dict):
                _prune(value[key], extra, _join(path, key), found)
    elif isinstance(value, list):
        sub = items(schema)
        if sub is not None:
            for index, item in enumerate(value):
                _skip_prune(item, sub, f'{path}[{index}]', found)


# ---- nulls and defaults (defaulting/prunenulls.go, algorithm.go) ------------------------------------
def prune_nulls(value, schema):
    """Drop the nulls of fields that are neither nullable nor defaulted."""
    if isinstance(value, dict):
        for key in list(value):
            sub = prop(schema, key)
            if value[key] is None and sub is not None and not sub.get('nullable') and 'default' not in sub:
                del value[key]
            else:
                prune_nulls(value[key], sub)
    elif isinstance(value, list):
        sub = items(schema)
        for item in value:
            prune_nulls(item, sub)


def _json_copy(value):
    if isinstance(value, dict):
        return {k: _json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_copy(v) for v in value]
    return value


def _non_nullable_null(value, schema):
    return value is None and schema is not None and not schema.get('nullable')


def default(value, schema):
    """Apply the schema's defaults to ``value`` in place: a missing property (or a null one that
    is not nullable) gets its default, then defaults apply inside every object that exists,
    defaults just set included."""
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        props = schema.get('properties') or {}
        for key, sub in props.items():
            if not isinstance(sub, dict) or 'default' not in sub or sub['default'] is None:
                continue
            if key not in value or _non_nullable_null(value[key], sub):
                value[key] = _json_copy(sub['default'])
        extra = schema.get('additionalProperties')
        for key in list(value):
            if key in props:
                default(value[key], props[key])
            elif isinstance(extra, dict):
                if _non_nullable_null(value[key], extra) and extra.get('default') is not None:
                    value[key] = _json_copy(extra['default'])
                default(value[key], extra)
    elif isinstance(value, list):
        sub = items(schema)
        for index, item in enumerate(value):
            if _non_nullable_null(item, sub) and (sub or {}).get('default') is not None:
                value[index] = _json_copy(sub['default'])
            default(value[index], sub)


# ---- embedded resources' ObjectMeta (objectmeta/coerce.go) ------------------------------------------
def coerce_embedded(value, schema, path=''):
    """The metadata of embedded resources decoded as an ObjectMeta (unknown fields dropped, paths
    returned); raises gotypes.DecodeError for a metadata that does not decode."""
    unknown = []
    _coerce(value, schema, path, unknown, True)
    return unknown


def _coerce(value, schema, path, unknown, root):
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        if embedded(schema) and not root and isinstance(value.get('metadata'), dict):
            meta, found = gotypes.decode('meta.v1.ObjectMeta', value['metadata'])
            meta.pop('creationTimestamp', None) if meta.get('creationTimestamp') is None else None
            value['metadata'] = meta
            unknown.extend(f'{_join(path, "metadata")}.{u}' for u in found)
        for key, item in value.items():
            if root and key in META_FIELDS:
                continue
            sub = prop(schema, key)
            if sub is not None:
                _coerce(item, sub, _join(path, key), unknown, False)
    elif isinstance(value, list):
        sub = items(schema)
        for index, item in enumerate(value):
            _coerce(item, sub, f'{path}[{index}]', unknown, False)


# ---- x-kubernetes-list-type map and set (listtype/validation.go) -------------------------------------
def list_duplicates(value, schema, path=''):
    """Duplicate items of `set` lists and duplicate keys of `map` lists: (field, reason, message)."""
    out = []
    _list_walk(value, schema, path, out)
    return out


def _list_walk(value, schema, path, out):

    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        for key, item in value.items():
            sub = prop(schema, key)
            if sub is not None:
                _list_walk(item, sub, _join(path, key), out)
    elif isinstance(value, list):
        kind = schema.get('x-kubernetes-list-type')
        seen = []
        for index, item in enumerate(value):
            if kind == 'set':
                if item in seen:
                    out.append(
                        (f'{path}[{index}]', 'FieldValueDuplicate', f'Duplicate value: {field_value(item)}')
                    )
                seen.append(item)
            elif kind == 'map' and isinstance(item, dict):
                keys = {k: item[k] for k in schema.get('x-kubernetes-list-map-keys') or [] if k in item}
                if keys in seen:
                    out.append(
                        (f'{path}[{index}]', 'FieldValueDuplicate', f'Duplicate value: {field_value(keys)}')
                    )
                seen.append(keys)
        sub = items(schema)
        for index, item in enumerate(value):
            _list_walk(item, sub, f'{path}[{index}]', out)
