"""The checks of a CRD version's `openAPIV3Schema` when the CRD is written: structurality
(apiextensions-apiserver `pkg/apiserver/schema/validation.go`) and the OpenAPI checks of the CRD
validation (`pkg/apis/apiextensions/validation/validation.go`,
ValidateCustomResourceDefinitionOpenAPISchema), defaults included (pruned and validated against
their schema). The schema's use on custom resources is schema.py."""

import re

from .schema import OPENAPI_TYPES, _json_copy, _prune, embedded, preserves
from .validation import field_value, items, validate


class SchemaErrors:
    """Field errors about a schema: (field, reason, message) as `Errors.causes` holds them."""

    def __init__(self):
        self.causes = []

    def required(self, field, detail=''):
        self.causes.append(
            (field, 'FieldValueRequired', f'Required value: {detail}' if detail else 'Required value')
        )

    def forbidden(self, field, detail):
        self.causes.append((field, 'FieldValueForbidden', f'Forbidden: {detail}'))

    def invalid(self, field, value, detail):
        self.causes.append((field, 'FieldValueInvalid', f'Invalid value: {field_value(value)}: {detail}'))

    def unsupported(self, field, value, supported):
        choices = ', '.join(f'"{s}"' for s in supported)
        self.causes.append(
            (
                field,
                'FieldValueNotSupported',
                f'Unsupported value: {field_value(value)}: supported values: {choices}',
            )
        )


def _key(path, name):
    return f'{path}[{name}]'


_NESTED = ('allOf', 'anyOf', 'oneOf')


def validate_schema(schema, path, status_enabled=False):
    """The errors of a version's `openAPIV3Schema`, at ``path``
    (`spec.versions[0].schema.openAPIV3Schema`): the OpenAPI checks of the CRD validation
    (`specStandardValidatorV3`, the list and map type extensions), then structurality, sorted as
    the API server sorts them."""
    causes = []
    if status_enabled and schema.get('type') not in (None, '', 'object'):
        causes.append(
            (
                path + '.type',
                'FieldValueInvalid',
                f'Invalid value: "{schema["type"]}": only '
                '"object" is allowed as the type at the root of the schema if the status subresource '
                'is enabled',
            )
        )
    if schema.get('nullable'):
        causes.append(
            (path + '.nullable', 'FieldValueForbidden', 'Forbidden: nullable cannot be true at the root')
        )
    structural = SchemaErrors()
    _structural(schema, path, 'root', structural)
    structural.causes.sort(key=lambda c: f'{c[0]}: {c[2]}')
    causes.extend(structural.causes)
    if not structural.causes:
        causes.extend(_defaults(schema, path))
    openapi = SchemaErrors()
    _openapi(schema, path, openapi, False)
    return causes + openapi.causes


def _openapi(s, path, errs, inside_meta):
    if not isinstance(s, dict):
        return
    typ = s.get('type')
    if typ and typ not in OPENAPI_TYPES:
        if typ == 'null':
            errs.forbidden(path + '.type', 'type cannot be set to null, use nullable as an alternative')
        else:
            errs.unsupported(path + '.type', typ, OPENAPI_TYPES)
    for name, detail in (
        ('id', 'id is not supported'),
        ('additionalItems', 'additionalItems is not supported'),
        ('patternProperties', 'patternProperties is not supported'),
        ('definitions', 'definitions is not supported'),
        ('dependencies', 'dependencies is not supported'),
        ('$ref', '$ref is not supported'),
    ):
        if s.get(name):
            errs.forbidden(f'{path}.{name}', detail)
    if isinstance(s.get('items'), list):
        errs.forbidden(path + '.items', 'items must be a schema object and not an array')
    if s.get('uniqueItems'):
        errs.forbidden(
            path + '.uniqueItems',
            'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
        )
    if (
        s.get('properties')
        and isinstance(s.get('additionalProperties'), dict)
        or (s.get('properties') and s.get('additionalProperties') is True)
    ):
        errs.forbidden(
            path + '.additionalProperties', 'additionalProperties and properties are mutual exclusive'
        )
    if s.get('x-kubernetes-preserve-unknown-fields') is False:
        errs.invalid(path + '.x-kubernetes-preserve-unknown-fields', False, 'must be true or undefined')
    map_type = s.get('x-kubernetes-map-type')
    if map_type is not None:
        if typ != 'object':
            if not typ:
                errs.required(path + '.type', 'must be object if x-kubernetes-map-type is specified')
            else:
                errs.invalid(path + '.type', typ, 'must be object if x-kubernetes-map-type is specified')
        if map_type not in ('atomic', 'granular'):
            errs.unsupported(path + '.x-kubernetes-map-type', map_type, ('atomic', 'granular'))
    list_type = s.get('x-kubernetes-list-type')
    keys = s.get('x-kubernetes-list-map-keys') or []
    if list_type is not None:
        if typ != 'array':
            if not typ:
                errs.required(path + '.type', 'must be array if x-kubernetes-list-type is specified')
            else:
                errs.invalid(path + '.type', typ, 'must be array if x-kubernetes-list-type is specified')
        if list_type not in ('atomic', 'set', 'map'):
            errs.unsupported(path + '.x-kubernetes-list-type', list_type, ('atomic', 'set', 'map'))
    if keys and list_type != 'map':
        if list_type is None:
            errs.required(
                path + '.x-kubernetes-list-type', 'must be map if x-kubernetes-list-map-keys is non-empty'
            )
        else:
            errs.invalid(
                path + '.x-kubernetes-list-type',
                list_type,
                'must be map if x-kubernetes-list-map-keys is non-empty',
            )
    if list_type == 'map':
        item = items(s)
        if not keys:
            errs.required(
                path + '.x-kubernetes-list-map-keys', 'must not be empty if x-kubernetes-list-type is map'
            )
        if item is None:
            errs.required(path + '.items', 'must have a schema if x-kubernetes-list-type is map')
        elif item.get('type') != 'object':
            errs.invalid(
                path + '.items.type',
                item.get('type', ''),
                "must be object if parent array's x-kubernetes-list-type is map",
            )
        elif keys:
            props = item.get('properties') or {}
            if any(k not in props for k in keys):
                errs.invalid(
                    path + '.x-kubernetes-list-map-keys', keys, 'entries must all be names of item properties'
                )
            elif len(set(keys)) != len(keys):
                errs.invalid(path + '.x-kubernetes-list-map-keys', keys, 'must not contain duplicate entries')
            else:
                for k in keys:
                    if (props[k] or {}).get('type') not in ('string', 'integer', 'number', 'boolean'):
                        errs.invalid(
                            f'{path}.items.properties[{k}].type',
                            (props[k] or {}).get('type', ''),
                            "must be a scalar type if parent array's x-kubernetes-list-type is map",
                        )
                    elif 'default' not in props[k] and k not in (item.get('required') or []):
                        errs.required(
                            f'{path}.items.properties[{k}].default',
                            'this property is in '
                            'x-kubernetes-list-map-keys, so it must have a default or be a required '
                            'property',
                        )
    for i, rule in enumerate(s.get('x-kubernetes-validations') or []):
        if not (rule or {}).get('rule'):
            errs.required(f'{path}.x-kubernetes-validations[{i}].rule', 'rule is not specified')
    for name, sub in (s.get('properties') or {}).items():
        _openapi(sub, _key(path + '.properties', name), errs, inside_meta or name == 'metadata')
    if isinstance(s.get('items'), dict):
        _openapi(s['items'], path + '.items', errs, inside_meta)
    if isinstance(s.get('additionalProperties'), dict):
        _openapi(s['additionalProperties'], path + '.additionalProperties', errs, inside_meta)
    for name in _NESTED:
        for i, sub in enumerate(s.get(name) or []):
            _openapi(sub, f'{path}.{name}[{i}]', errs, inside_meta)
    if isinstance(s.get('not'), dict):
        _openapi(s['not'], path + '.not', errs, inside_meta)


def _int_or_string_pattern(options):
    return [o.get('type') for o in options or []] == ['integer', 'string'] and all(
        set(o) == {'type'} for o in options
    )


def _structural(s, path, level, errs):
    if not isinstance(s, dict):
        return
    typ = s.get('type', '')
    if typ == 'array' and not isinstance(s.get('items'), dict):
        errs.required(path + '.items', 'must be specified')
    if isinstance(s.get('items'), dict):
        _structural(s['items'], path + '.items', 'item', errs)
    for name, sub in (s.get('properties') or {}).items():
        _structural(sub, _key(path + '.properties', name), 'field', errs)
    extra = s.get('additionalProperties')
    if extra is not None and extra is not False:
        if level == 'root':
            errs.forbidden(path + '.additionalProperties', 'must not be used at the root')
        if isinstance(extra, dict):
            _structural(extra, path + '.additionalProperties', 'field', errs)
    if s.get('x-kubernetes-int-or-string') and s.get('x-kubernetes-preserve-unknown-fields'):
        errs.invalid(
            path + '.x-kubernetes-preserve-unknown-fields',
            True,
            'must be false if x-kubernetes-int-or-string is true',
        )
    if s.get('x-kubernetes-int-or-string') and s.get('x-kubernetes-embedded-resource'):
        errs.invalid(
            path + '.x-kubernetes-embedded-resource',
            True,
            'must be false if x-kubernetes-int-or-string is true',
        )
    skip_any = _int_or_string_pattern(s.get('anyOf'))
    all_of = s.get('allOf') or []
    skip_first_all = bool(all_of) and _int_or_string_pattern((all_of[0] or {}).get('anyOf'))
    for name in _NESTED:
        if name == 'anyOf' and skip_any:
            continue
        for i, sub in enumerate(s.get(name) or []):
            _nested(
                sub, f'{path}.{name}[{i}]', errs, skip_any_of=name == 'allOf' and i == 0 and skip_first_all
            )
    if isinstance(s.get('not'), dict):
        _nested(s['not'], path + '.not', errs)
    if s.get('pattern'):
        try:
            re.compile(s['pattern'])
        except re.error as err:
            errs.invalid(
                path + '.pattern', s['pattern'], f"must be a valid regular expression, but isn't: {err}"
            )
    check_meta = level == 'root' or embedded(s)
    if embedded(s) and typ != 'object':
        if not typ:
            errs.required(path + '.type', 'must be object if x-kubernetes-embedded-resource is true')
        else:
            errs.invalid(path + '.type', typ, 'must be object if x-kubernetes-embedded-resource is true')
    elif not typ and not s.get('x-kubernetes-int-or-string') and not preserves(s):
        detail = {
            'root': 'must not be empty at the root',
            'item': 'must not be empty for specified array items',
            'field': 'must not be empty for specified object fields',
        }[level]
        errs.required(path + '.type', detail)
    if embedded(s) and isinstance(extra, dict):
        errs.forbidden(
            path + '.additionalProperties', 'must not be used if x-kubernetes-embedded-resource is set'
        )
    if level == 'root' and typ and typ != 'object':
        errs.invalid(path + '.type', typ, 'must be object at the root')
    props = s.get('properties') or {}
    for name in ('kind', 'apiVersion'):
        if name in props and check_meta and (props[name] or {}).get('type') != 'string':
            errs.invalid(
                f'{path}.properties[{name}].type', (props[name] or {}).get('type', ''), 'must be string'
            )
    if 'metadata' in props:
        meta = props['metadata'] or {}
        if check_meta and meta.get('type') != 'object':
            errs.invalid(path + '.properties[metadata].type', meta.get('type', ''), 'must be object')
        if level == 'root':
            rest = {k: v for k, v in meta.items() if k not in ('type', 'default')}
            inner = set(rest.pop('properties', {}) or {})
            if rest or inner - {'name', 'generateName'}:
                errs.forbidden(
                    path + '.properties[metadata]',
                    'must not specify anything other than name and '
                    'generateName, but metadata is implicitly specified',
                )
    if embedded(s) and not preserves(s) and not props:
        errs.required(
            path + '.properties',
            'must not be empty if x-kubernetes-embedded-resource is true without '
            'x-kubernetes-preserve-unknown-fields',
        )


def _nested(v, path, errs, skip_any_of=False):
    if not isinstance(v, dict):
        return
    for name in _NESTED:
        if name == 'anyOf' and skip_any_of:
            continue
        for i, sub in enumerate(v.get(name) or []):
            _nested(sub, f'{path}.{name}[{i}]', errs)
    if isinstance(v.get('not'), dict):
        _nested(v['not'], path + '.not', errs)
    if isinstance(v.get('items'), dict):
        _nested(v['items'], path + '.items', errs)
    for name, sub in (v.get('properties') or {}).items():
        _nested(sub, _key(path + '.properties', name), errs)
    if v.get('type'):
        errs.forbidden(path + '.type', 'must be empty to be structural')
    if v.get('additionalProperties') not in (None, False):
        errs.forbidden(path + '.additionalProperties', 'must be undefined to be structural')
    if v.get('default') is not None:
        errs.forbidden(path + '.default', 'must be undefined to be structural')
    for name in ('title', 'description'):
        if v.get(name):
            errs.forbidden(f'{path}.{name}', 'must be empty to be structural')
    if v.get('nullable'):
        errs.forbidden(path + '.nullable', 'must be false to be structural')
    for name in (
        'x-kubernetes-preserve-unknown-fields',
        'x-kubernetes-embedded-resource',
        'x-kubernetes-int-or-string',
    ):
        if v.get(name):
            errs.forbidden(f'{path}.{name}', 'must be false to be structural')
    if v.get('x-kubernetes-list-map-keys'):
        errs.forbidden(path + '.x-kubernetes-list-map-keys', 'must be empty to be structural')
    for name in ('x-kubernetes-list-type', 'x-kubernetes-map-type'):
        if v.get(name) is not None:
            errs.forbidden(f'{path}.{name}', 'must be undefined to be structural')
    if v.get('x-kubernetes-validations'):
        errs.forbidden(path + '.x-kubernetes-validations', 'must be empty to be structural')
    if 'metadata' in (v.get('properties') or {}):
        errs.forbidden(path + '.properties[metadata]', 'must not be specified in a nested context')


def _defaults(schema, path):
    """defaulting/validation.go: every default validates against its own schema."""

    out = []

    def walk(s, where, in_meta):
        if not isinstance(s, dict):
            return
        if 'default' in s and s['default'] is not None and not in_meta:
            value = s['default']
            pruned = _json_copy(value)
            if isinstance(pruned, (dict, list)):
                _prune(pruned, s, '', [])
            if pruned != value:

                out.append(
                    (
                        where + '.default',
                        'FieldValueInvalid',
                        f'Invalid value: {field_value(value)}: must not have unknown fields',
                    )
                )
            else:
                out.extend(validate(value, s, prefix=where + '.default'))
        for name, sub in (s.get('properties') or {}).items():
            walk(sub, _key(where + '.properties', name), in_meta or (where == path and name == 'metadata'))
        if isinstance(s.get('items'), dict):
            walk(s['items'], where + '.items', in_meta)
        if isinstance(s.get('additionalProperties'), dict):
            walk(s['additionalProperties'], where + '.additionalProperties', in_meta)

    walk(schema, path, False)
    return out
