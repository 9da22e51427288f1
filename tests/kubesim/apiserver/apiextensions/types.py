"""The CustomResourceDefinition's v1 types as the API server's JSON decoder and encoder treat them
(`pkg/apis/apiextensions/v1/types.go`, `types_jsonschema.go`, `marshal.go`): a CRD body is
decoded into the Go structs and written back, so

- a field no struct declares is dropped and reported (for `fieldValidation`), except below
  `items`, `additionalProperties`, `additionalItems` and `dependencies`, whose custom
  `UnmarshalJSON` decodes with the plain (non-strict) decoder: unknown fields there are dropped
  silently;
- a value of the wrong JSON type is refused with Go's message;
- fields come back in Go's order, `omitempty` ones dropped when empty, the others always printed
  (`status.conditions: null`, `acceptedNames.plural: ""`);
- `JSON` values (`default`, `example`, `enum` items) are kept as given; `float64` fields print as
  Go prints them (`maximum: 3.0` is `3`);
- `additionalProperties`/`additionalItems` take a schema or a boolean, `items` a schema or a list
  of schemas, `dependencies` values a schema or a list of strings.

The CRD is served as JSON only (kubesim has no protobuf messages for these types).
"""

from ...machinery.gotypes import DecodeError, _json_kind, _parse_time

# struct -> ((json name, type, flags)); flags: 'o' omitempty. Types: string, bool, int32, int64,
# float64, bytes, Time, JSON (raw), OrArray / OrBool / OrStringArray (the schema unions), a struct,
# '*T', '[]T', 'map[T]'.
STRUCTS = {
    'CustomResourceDefinition': (
        ('apiVersion', 'string', 'o'),
        ('kind', 'string', 'o'),
        ('metadata', 'ObjectMeta', 'o'),
        ('spec', 'CustomResourceDefinitionSpec', ''),
        ('status', 'CustomResourceDefinitionStatus', 'o'),
    ),
    'CustomResourceDefinitionSpec': (
        ('group', 'string', ''),
        ('names', 'CustomResourceDefinitionNames', ''),
        ('scope', 'string', ''),
        ('versions', '[]CustomResourceDefinitionVersion', ''),
        ('conversion', '*CustomResourceConversion', 'o'),
        ('preserveUnknownFields', 'bool', 'o'),
    ),
    'CustomResourceConversion': (('strategy', 'string', ''), ('webhook', '*WebhookConversion', 'o')),
    'WebhookConversion': (
        ('clientConfig', '*WebhookClientConfig', 'o'),
        ('conversionReviewVersions', '[]string', ''),
    ),
    'WebhookClientConfig': (
        ('url', '*string', 'o'),
        ('service', '*ServiceReference', 'o'),
        ('caBundle', 'bytes', 'o'),
    ),
    'ServiceReference': (
        ('namespace', 'string', ''),
        ('name', 'string', ''),
        ('path', '*string', 'o'),
        ('port', '*int32', 'o'),
    ),
    'CustomResourceDefinitionVersion': (
        ('name', 'string', ''),
        ('served', 'bool', ''),
        ('storage', 'bool', ''),
        ('deprecated', 'bool', 'o'),
        ('deprecationWarning', '*string', 'o'),
        ('schema', '*CustomResourceValidation', 'o'),
        ('subresources', '*CustomResourceSubresources', 'o'),
        ('additionalPrinterColumns', '[]CustomResourceColumnDefinition', 'o'),
        ('selectableFields', '[]SelectableField', 'o'),
    ),
    'SelectableField': (('jsonPath', 'string', ''),),
    'CustomResourceColumnDefinition': (
        ('name', 'string', ''),
        ('type', 'string', ''),
        ('format', 'string', 'o'),
        ('description', 'string', 'o'),
        ('priority', 'int32', 'o'),
        ('jsonPath', 'string', ''),
    ),
    'CustomResourceDefinitionNames': (
        ('plural', 'string', ''),
        ('singular', 'string', 'o'),
        ('shortNames', '[]string', 'o'),
        ('kind', 'string', ''),
        ('listKind', 'string', 'o'),
        ('categories', '[]string', 'o'),
    ),
    'CustomResourceDefinitionCondition': (
        ('type', 'string', ''),
        ('status', 'string', ''),
        ('lastTransitionTime', 'Time', 'o'),
        ('reason', 'string', 'o'),
        ('message', 'string', 'o'),
        ('observedGeneration', 'int64', 'o'),
    ),
    'CustomResourceDefinitionStatus': (
        ('conditions', '[]CustomResourceDefinitionCondition', ''),
        ('acceptedNames', 'CustomResourceDefinitionNames', ''),
        ('storedVersions', '[]string', ''),
        ('observedGeneration', 'int64', 'o'),
    ),
    'CustomResourceValidation': (('openAPIV3Schema', '*JSONSchemaProps', 'o'),),
    'CustomResourceSubresources': (
        ('status', '*CustomResourceSubresourceStatus', 'o'),
        ('scale', '*CustomResourceSubresourceScale', 'o'),
    ),
    'CustomResourceSubresourceStatus': (),
    'CustomResourceSubresourceScale': (
        ('specReplicasPath', 'string', ''),
        ('statusReplicasPath', 'string', ''),
        ('labelSelectorPath', '*string', 'o'),
    ),
    'JSONSchemaProps': (
        ('id', 'string', 'o'),
        ('$schema', 'string', 'o'),
        ('$ref', '*string', 'o'),
        ('description', 'string', 'o'),
        ('type', 'string', 'o'),
        ('format', 'string', 'o'),
        ('title', 'string', 'o'),
        ('default', '*JSON', 'o'),
        ('maximum', '*float64', 'o'),
        ('exclusiveMaximum', 'bool', 'o'),
        ('minimum', '*float64', 'o'),
        ('exclusiveMinimum', 'bool', 'o'),
        ('maxLength', '*int64', 'o'),
        ('minLength', '*int64', 'o'),
        ('pattern', 'string', 'o'),
        ('maxItems', '*int64', 'o'),
        ('minItems', '*int64', 'o'),
        ('uniqueItems', 'bool', 'o'),
        ('multipleOf', '*float64', 'o'),
        ('enum', '[]JSON', 'o'),
        ('maxProperties', '*int64', 'o'),
        ('minProperties', '*int64', 'o'),
        ('required', '[]string', 'o'),
        ('items', '*OrArray', 'o'),
        ('allOf', '[]JSONSchemaProps', 'o'),
        ('oneOf', '[]JSONSchemaProps', 'o'),
        ('anyOf', '[]JSONSchemaProps', 'o'),
        ('not', '*JSONSchemaProps', 'o'),
        ('properties', 'map[JSONSchemaProps]', 'o'),
        ('additionalProperties', '*OrBool', 'o'),
        ('patternProperties', 'map[JSONSchemaProps]', 'o'),
        ('dependencies', 'map[OrStringArray]', 'o'),
        ('additionalItems', '*OrBool', 'o'),
        ('definitions', 'map[JSONSchemaProps]', 'o'),
        ('externalDocs', '*ExternalDocumentation', 'o'),
        ('example', '*JSON', 'o'),
        ('nullable', 'bool', 'o'),
        ('x-kubernetes-preserve-unknown-fields', '*bool', 'o'),
        ('x-kubernetes-embedded-resource', 'bool', 'o'),
        ('x-kubernetes-int-or-string', 'bool', 'o'),
        ('x-kubernetes-list-map-keys', '[]string', 'o'),
        ('x-kubernetes-list-type', '*string', 'o'),
        ('x-kubernetes-map-type', '*string', 'o'),
        ('x-kubernetes-validations', '[]ValidationRule', 'o'),
    ),
    'ExternalDocumentation': (('description', 'string', 'o'), ('url', 'string', 'o')),
    'ValidationRule': (
        ('rule', 'string', ''),
        ('message', 'string', 'o'),
        ('messageExpression', 'string', 'o'),
        ('reason', '*string', 'o'),
        ('fieldPath', 'string', 'o'),
        ('optionalOldSelf', '*bool', 'o'),
    ),
}
_GO_NAMES = {
    'bytes': '[]uint8',
    'Time': 'v1.Time',
    'JSON': 'v1.JSON',
    'OrArray': 'v1.JSONSchemaPropsOrArray',
    'OrBool': 'v1.JSONSchemaPropsOrBool',
    'OrStringArray': 'v1.JSONSchemaPropsOrStringArray',
    'ObjectMeta': 'v1.ObjectMeta',
}
_INT_RANGES = {'int32': (-(2**31), 2**31 - 1), 'int64': (-(2**63), 2**63 - 1)}
_MISSING = object()


def _go_name(typ):
    typ = typ.lstrip('*')
    if typ.startswith('[]'):
        return '[]' + _go_name(typ[2:])
    if typ.startswith('map['):
        return 'map[string]' + _go_name(typ[4:-1])
    if typ in STRUCTS:
        return 'v1.' + typ
    return _GO_NAMES.get(typ, typ)


class _Decoding:
    def __init__(self):
        self.unknown = []

    def fail(self, value, typ, struct, path):
        fields = '.'.join(p for p in path if isinstance(p, str))
        given = _json_kind(value)
        if given == 'number':
            given = f'number {value}'
        raise DecodeError(
            f'json: cannot unmarshal {given} into Go struct field {struct}.{fields} of type {_go_name(typ)}'
        )


def _display(path):
    out = ''
    for segment in path:
        if isinstance(segment, int):
            out += f'[{segment}]'
        else:
            out = f'{out}.{segment}' if out else segment
    return out


def go_float(value):
    """A float64 as Go's encoder prints it: whole numbers without a fraction."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _decode(typ, value, ctx, path, struct, strict):
    """The decoded value (None for nil), or _MISSING for a null that leaves a field unset."""
    if typ.startswith('*'):
        if value is None:
            return _MISSING
        return _decode(typ[1:], value, ctx, path, struct, strict)
    if typ.startswith('[]'):
        if value is None:
            return None
        if typ == '[]JSON' or typ == 'bytes':
            pass
        if not isinstance(value, list):
            if typ == 'bytes' and isinstance(value, str):
                return value
            ctx.fail(value, typ, struct, path)
        item = typ[2:]
        out = []
        for index, entry in enumerate(value):
            decoded = _decode(item, entry, ctx, path + (index,), struct, strict)
            out.append(None if decoded is _MISSING else decoded)
        return out
    if typ.startswith('map['):
        if value is None:
            return None
        if not isinstance(value, dict):
            ctx.fail(value, typ, struct, path)
        item = typ[4:-1]
        out = {}
        for key, entry in value.items():
            decoded = _decode(item, entry, ctx, path + (key,), struct, strict)
            out[key] = None if decoded is _MISSING else decoded
        return out
    if typ == 'string':
        if value is None:
            return _MISSING
        if not isinstance(value, str):
            ctx.fail(value, typ, struct, path)
        return value
    if typ == 'bool':
        if value is None:
            return _MISSING
        if not isinstance(value, bool):
            ctx.fail(value, typ, struct, path)
        return value
    if typ in _INT_RANGES:
        if value is None:
            return _MISSING
        low, high = _INT_RANGES[typ]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            ctx.fail(value, typ, struct, path)
        if isinstance(value, float) or not low <= value <= high:
            fields = '.'.join(p for p in path if isinstance(p, str))
            raise DecodeError(
                f'json: cannot unmarshal number {value} into Go struct field {struct}.{fields} of type {typ}'
            )
        return value
    if typ == 'float64':
        if value is None:
            return _MISSING
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            ctx.fail(value, typ, struct, path)
        return go_float(value)
    if typ == 'bytes':
        if value is None:
            return None
        if not isinstance(value, str):
            ctx.fail(value, typ, struct, path)
        return value
    if typ == 'Time':
        if value is None:
            return _MISSING
        if not isinstance(value, str):
            ctx.fail(value, typ, struct, path)
        return _parse_time(value, False)
    if typ == 'JSON':
        return value
    if typ == 'ObjectMeta':
        if value is None:
            return _MISSING
        from ...machinery import gotypes

        try:
            meta, unknown = gotypes.decode('meta.v1.ObjectMeta', value)
        except DecodeError:
            raise
        if strict:
            ctx.unknown.extend(_display(path + tuple(u.split('.'))) for u in unknown)
        return meta
    if typ == 'OrBool':
        if isinstance(value, bool):
            return value
        if isinstance(value, dict):
            return _struct('JSONSchemaProps', value, ctx, path, False)
        raise DecodeError('boolean or JSON schema expected')
    if typ == 'OrArray':
        if isinstance(value, list):
            return [
                _struct('JSONSchemaProps', v, ctx, path + (i,), False)
                if isinstance(v, dict)
                else ctx.fail(v, 'JSONSchemaProps', 'JSONSchemaPropsOrArray', path)
                for i, v in enumerate(value)
            ]
        if isinstance(value, dict):
            return _struct('JSONSchemaProps', value, ctx, path, False)
        return None
    if typ == 'OrStringArray':
        if isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                raise DecodeError('json: cannot unmarshal into []string')
            return value or None
        if isinstance(value, dict):
            return _struct('JSONSchemaProps', value, ctx, path, False)
        return None
    if typ in STRUCTS:
        if value is None:
            return _MISSING
        return _struct(typ, value, ctx, path, strict)
    raise AssertionError(typ)


def _empty(value):
    return (
        value is None
        or value is False
        or value == ''
        or value == []
        or value == {}
        or (isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0)
    )


def _zero(typ):
    if typ.startswith(('*', '[]', 'map[')) or typ in ('JSON', 'bytes', 'Time'):
        return None
    if typ == 'string':
        return ''
    if typ == 'bool':
        return False
    if typ in _INT_RANGES or typ == 'float64':
        return 0
    if typ in STRUCTS:
        return _emit(typ, {})
    return None


def _emit(typ, decoded):
    out = {}
    for name, field_type, flags in STRUCTS[typ]:
        if name in decoded:
            value = decoded[name]
            if 'o' in flags:
                if field_type.startswith('*'):
                    if value is None:
                        continue
                elif _empty(value) and field_type not in STRUCTS:
                    continue
            out[name] = value
        elif 'o' not in flags or field_type in STRUCTS:
            out[name] = _zero(field_type)  # omitempty never omits a struct
        elif field_type == 'ObjectMeta':
            out[name] = {}
    return out


def _struct(typ, value, ctx, path, strict):
    if not isinstance(value, dict):
        ctx.fail(value, typ, typ, path)
    fields = {name: field_type for name, field_type, _flags in STRUCTS[typ]}
    decoded = {}
    for key, item in value.items():
        field_type = fields.get(key)
        if field_type is None:
            if strict:
                ctx.unknown.append(_display(path + (key,)))
            continue
        result = _decode(
            field_type,
            item,
            ctx,
            path + (key,),
            typ,
            strict and field_type not in ('*OrArray', '*OrBool', 'map[OrStringArray]'),
        )
        if result is not _MISSING:
            decoded[key] = result
    return _emit(typ, decoded)


def decode(obj):
    """(the CustomResourceDefinition as the API server holds and prints it, the unknown field
    paths); DecodeError when its decoder refuses the body."""
    ctx = _Decoding()
    if not isinstance(obj, dict):
        raise DecodeError('json: cannot unmarshal into Go value of type v1.CustomResourceDefinition')
    return _struct('CustomResourceDefinition', obj, ctx, (), True), ctx.unknown


def encode(obj):
    """A CRD the API server already holds, printed again (controllers' writes)."""
    try:
        return decode(obj)[0]
    except DecodeError:
        return obj


def schema_decode(schema):
    """A JSONSchemaProps as decoded (unknown fields dropped), or None."""
    if not isinstance(schema, dict):
        return None
    return _struct('JSONSchemaProps', schema, _Decoding(), (), False)
