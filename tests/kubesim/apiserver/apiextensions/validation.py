"""A custom resource validated against its structural schema: the checks of kube-openapi's
validator (`k8s.io/kube-openapi/pkg/validation/validate`: type, format int32/int64, enum,
maxLength/minLength/pattern, maximum/minimum (exclusive too), multipleOf, maxItems/minItems,
required, minProperties/maxProperties, additionalProperties, allOf/anyOf/oneOf/not), with its
messages (`validation/errors/schema.go`: `spec.replicas in body should be less than or equal to
3`), turned into field errors as apiextensions-apiserver does
(`pkg/apiserver/validation/validation.go`, `kubeOpenAPIResultToFieldErrors`): Required, NotSupported
for enums, TooLong, TooMany, TypeInvalid, Invalid for the rest.

Updates ratchet (`CRDValidationRatcheting`, on by default): a value that is unchanged from the
stored object (correlated by field name, and by key in `x-kubernetes-list-type: map` lists)
is not validated again, so an object made invalid by a stricter schema can still be updated
elsewhere.

Not evaluated: `x-kubernetes-validations` (CEL) and string `format`s (`date-time`, `email`, ...).
"""

import json
import re
from decimal import Decimal

_MISSING = object()
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


def items(schema):
    """A schema's `items` when it is one schema (not a list of them)."""
    found = (schema or {}).get('items')
    return found if isinstance(found, dict) else None


# ---- Go's rendering of values ------------------------------------------------------------------
def go_quote(text):
    """strconv.Quote / %q."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == '\\':
            out.append('\\\\')
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\t':
            out.append('\\t')
        elif ch == '\r':
            out.append('\\r')
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f'\\x{ord(ch):02x}')
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def go_float(value):
    """A float64 as %v prints it (strconv 'g', shortest): 3, 2.5, 1e+06, 1e-05."""
    if value == 0:
        return '0'
    if value != value or value in (float('inf'), float('-inf')):
        return {'nan': 'NaN', 'inf': '+Inf', '-inf': '-Inf'}[repr(value)]
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    text = ''.join(map(str, digits))
    point = len(digits) + exponent
    exp = point - 1
    prefix = '-' if sign else ''
    if exp < -4 or exp >= 6:
        mantissa = text[0] + ('.' + text[1:] if len(text) > 1 else '')
        return f'{prefix}{mantissa}e{"-" if exp < 0 else "+"}{abs(exp):02d}'
    if point <= 0:
        return f'{prefix}0.{"0" * -point}{text}'
    if point >= len(text):
        return prefix + text + '0' * (point - len(text))
    return f'{prefix}{text[:point]}.{text[point:]}'


def field_value(value):
    """A field error's bad value as apimachinery's `ErrorBody` prints it: simple types with %v,
    strings with %q, anything else as JSON."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return 'null'
    return json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=False)


# ---- the validator ---------------------------------------------------------------------------------
def _type_of(value):
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, str):
        return 'string'
    if isinstance(value, int):
        return 'integer'
    if isinstance(value, float):
        return 'number'
    if isinstance(value, list):
        return 'array'
    return 'object'


def _types(schema):
    if schema.get('x-kubernetes-int-or-string'):
        return ['integer', 'string']
    return [schema['type']] if schema.get('type') else []


class _Run:
    def __init__(self, prefix):
        self.prefix = prefix
        self.errors = []

    def field(self, name):
        name = name.lstrip('.')
        if self.prefix is None:
            return name or '<nil>'
        return f'{self.prefix}.{name}' if name else self.prefix

    def add(self, name, reason, message):
        self.errors.append((self.field(name), reason, message))

    def invalid(self, name, value, detail):
        self.add(name, 'FieldValueInvalid', f'Invalid value: {field_value(value)}: {detail}')


def _in(name):
    return f'{name} in body'


def _bound(value, bound):
    """The boundary as kube-openapi prints it: as an integer for an integer value (MaximumInt),
    as a float64 (%v) otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(int(bound))
    return go_float(float(bound))


def _number(run, name, value, schema):
    fmt = schema.get('format')
    if fmt in ('int32', 'int64') and 'integer' in _types(schema):
        low, high = _INT32 if fmt == 'int32' else _INT64
        if not low <= value <= high:
            run.errors.append(
                (
                    run.prefix or '<nil>',
                    'FieldValueInvalid',
                    f'Invalid value: "": Checked value must be of type integer with format {fmt} in {name}',
                )
            )
    if schema.get('multipleOf') is not None:
        factor = schema['multipleOf']
        if factor and (value / factor) != int(value / factor):
            run.invalid(name, value, f'{_in(name)} should be a multiple of {_bound(value, factor)}')
    if schema.get('maximum') is not None:
        top, exclusive = schema['maximum'], schema.get('exclusiveMaximum')
        if value > top or (exclusive and value >= top):
            word = 'less than' if exclusive else 'less than or equal to'
            run.invalid(name, value, f'{_in(name)} should be {word} {_bound(value, top)}')
    if schema.get('minimum') is not None:
        bottom, exclusive = schema['minimum'], schema.get('exclusiveMinimum')
        if value < bottom or (exclusive and value <= bottom):
            word = 'greater than' if exclusive else 'greater than or equal to'
            run.invalid(name, value, f'{_in(name)} should be {word} {_bound(value, bottom)}')


def _string(run, name, value, schema):
    length = len(value)
    if schema.get('maxLength') is not None and length > schema['maxLength']:
        limit = schema['maxLength']
        run.add(
            name,
            'FieldValueTooLong',
            f'Too long: may not be more than {limit} {"byte" if limit == 1 else "bytes"}',
        )
    if schema.get('minLength') is not None and length < schema['minLength']:
        run.invalid(name, value, f'{_in(name)} should be at least {schema["minLength"]} chars long')
    if schema.get('pattern'):
        try:
            matched = re.search(schema['pattern'], value)
        except re.error:
            matched = True
        if not matched:
            run.invalid(name, value, f"{_in(name)} should match '{schema['pattern']}'")


def _enum_values(enum):
    return [v if isinstance(v, str) else json.dumps(v, separators=(',', ':')) for v in enum]


def _same(a, b):
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    return a == b


def _validate(run, value, schema, name, old):
    if not isinstance(schema, dict):
        return
    if old is not _MISSING and _same(value, old):
        return  # ratcheting: an unchanged value is not validated again
    types = _types(schema)
    if value is None:
        if types and not schema.get('nullable'):
            run.add(
                name,
                'FieldValueTypeInvalid',
                f'Invalid value: "null": {_in(name)} must be of type {",".join(types)}: "null"',
            )
        return
    actual = _type_of(value)
    if types:
        ok = (
            actual in types
            or (actual == 'number' and 'integer' in types and float(value).is_integer())
            or (actual == 'integer' and 'number' in types)
        )
        if not ok:
            run.add(
                name,
                'FieldValueTypeInvalid',
                f'Invalid value: {go_quote(actual)}: {_in(name)} must be of type '
                f'{",".join(types)}: {go_quote(actual)}',
            )
            return
    for sub in schema.get('allOf') or []:
        _validate(run, value, sub, name, _MISSING)
    if schema.get('anyOf'):
        if not any(not _errors_of(value, sub) for sub in schema['anyOf']):
            run.invalid(name, '', f'{_in(name)} must validate at least one schema (anyOf)')
    if schema.get('oneOf'):
        passing = sum(1 for sub in schema['oneOf'] if not _errors_of(value, sub))
        if passing != 1:
            run.invalid(name, '', f'{_in(name)} must validate one and only one schema (oneOf)')
    if isinstance(schema.get('not'), dict) and not _errors_of(value, schema['not']):
        run.invalid(name, '', f'{_in(name)} must not validate the schema (not)')
    if actual == 'string':
        _string(run, name, value, schema)
    if actual in ('integer', 'number'):
        _number(run, name, value, schema)
    if schema.get('enum') is not None and not any(_same(value, e) for e in schema['enum']):
        supported = ', '.join(go_quote(v) for v in _enum_values(schema['enum']))
        run.add(
            name,
            'FieldValueNotSupported',
            f'Unsupported value: {field_value(value)}: supported values: {supported}',
        )
    if actual == 'array':
        _array(run, name, value, schema, old)
    if actual == 'object':
        _object(run, name, value, schema, old)


def _errors_of(value, schema):
    run = _Run(None)
    _validate(run, value, schema, '', _MISSING)
    return run.errors


def _correlate(old, item, schema):
    """The old list item ``item`` correlates with: by key in a map list, by value in a set."""
    if not isinstance(old, list):
        return _MISSING
    kind = schema.get('x-kubernetes-list-type')
    if kind == 'map' and isinstance(item, dict):
        keys = schema.get('x-kubernetes-list-map-keys') or []
        for candidate in old:
            if isinstance(candidate, dict) and all(candidate.get(k) == item.get(k) for k in keys):
                return candidate
    elif kind == 'set':
        for candidate in old:
            if _same(candidate, item):
                return candidate
    return _MISSING


def _array(run, name, value, schema, old):
    sub = items(schema)
    for index, item in enumerate(value):
        _validate(run, item, sub, f'{name}[{index}]', _correlate(old, item, schema) if sub else _MISSING)
    size = len(value)
    if schema.get('minItems') is not None and size < schema['minItems']:
        run.invalid(name, size, f'{_in(name)} should have at least {schema["minItems"]} items')
    if schema.get('maxItems') is not None and size > schema['maxItems']:
        limit = schema['maxItems']
        run.add(
            name,
            'FieldValueTooMany',
            f'Too many: {size}: must have at most {limit} {"item" if limit == 1 else "items"}',
        )


def _object(run, name, value, schema, old):
    size = len(value)
    if schema.get('minProperties') is not None and size < schema['minProperties']:
        run.invalid(name, size, f'{_in(name)} should have at least {schema["minProperties"]} properties')
    if schema.get('maxProperties') is not None and size > schema['maxProperties']:
        limit = schema['maxProperties']
        run.add(
            name,
            'FieldValueTooMany',
            f'Too many: {size}: must have at most {limit} {"item" if limit == 1 else "items"}',
        )
    props = schema.get('properties') or {}
    extra = schema.get('additionalProperties')
    old_map = old if isinstance(old, dict) else {}
    for key, item in value.items():
        if key not in props:
            if extra is False:
                run.add(
                    name, 'FieldValueForbidden', f'Forbidden: {name}.{key} in body is a forbidden property'
                )
            elif isinstance(extra, dict):
                _validate(run, item, extra, f'{name}.{key}', old_map.get(key, _MISSING))
    for key, sub in props.items():
        if key in value:
            _validate(run, value[key], sub, f'{name}.{key}' if name else key, old_map.get(key, _MISSING))
    for key in schema.get('required') or []:
        if key not in value:
            run.add(f'{name}.{key}', 'FieldValueRequired', 'Required value')


def validate(value, schema, prefix=None, old=_MISSING):
    """Field errors ``(field, reason, message)`` of ``value`` against ``schema``, paths under
    ``prefix`` (a field path, or None for a custom resource: the data paths themselves); with
    ``old``, unchanged values ratchet."""
    run = _Run(prefix)
    _validate(run, value, schema, '', old)
    return run.errors


MISSING = _MISSING
