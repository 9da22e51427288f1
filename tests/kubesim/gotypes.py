"""Objects as the API server's Go types hold them: decode a JSON value into a Go struct and encode
it back, with the facts of gotypes_table.py (field names, types, omitempty/omitzero, inlining).

`decode(type_name, value)` does what `encoding/json` (sigs.k8s.io/json, case-sensitive) and the
Go encoder together do to a request body, and returns `(value, unknown)`:

- a field no struct declares is dropped, its path (with list indexes) appended to `unknown`;
- a value of the wrong JSON type, an integer beyond its Go type (`int32` for `replicas`,
  `partition`, ...), a fraction for an integer, or illegal base64 for `[]byte` raises
  `DecodeError` with Go's message (`json: cannot unmarshal number 3000000000 into Go struct field
  DeploymentSpec.spec.replicas of type int32`);
- on the way out, as Go's encoder prints: `omitempty` drops nil, `""`, 0, false, `[]` and `{}`
  (but never a struct: an empty `status` is `{}`, a zero `metav1.Time` is `null`); `omitzero`
  drops zero values; a field without either is always printed, with its zero value (`replicas: 0`
  in a StatefulSet status, `null` for a nil slice or pointer); fields come in Go's declaration
  order; times are RFC 3339 in UTC, `[]byte` canonical base64; `kind` and `apiVersion` first.

`convert(type_name, value)` is the same with the conversions of apimachinery's unstructured
converter, which the API server uses for strategic merge patches (`FromUnstructured`): an integer
that does not fit wraps around as a Go conversion does, a whole float converts, a fraction for an
integer is `cannot convert float64 to int32`.

Quantities are kept as given (a number becomes its string); the API server would also print them
in canonical form ("0.5" as "500m"), which kubesim does not.
"""

import base64
import copy
import datetime
import functools
import re

from .gotypes_table import TYPES

# (API group, version, kind) -> the Go type of the top-level object.
_PACKAGES = {'': 'core', 'apps': 'apps', 'autoscaling': 'autoscaling', 'coordination.k8s.io': 'coordination'}
_INT_RANGES = {'int32': (-2 ** 31, 2 ** 31 - 1), 'int64': (-2 ** 63, 2 ** 63 - 1),
               'uint32': (0, 2 ** 32 - 1), 'uint64': (0, 2 ** 64 - 1)}
_SPECIAL_GO_NAMES = {'Time': 'v1.Time', 'MicroTime': 'v1.MicroTime', 'Duration': 'v1.Duration',
                     'Quantity': 'resource.Quantity', 'IntOrString': 'intstr.IntOrString',
                     'RawExtension': 'runtime.RawExtension', 'FieldsV1': 'v1.FieldsV1', 'bytes': '[]uint8'}
_TIME = re.compile(r'^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$')
_BASE64 = re.compile(r'[A-Za-z0-9+/]')


class _Nil:
    """A nil pointer, slice or map (or a zero time): printed as null unless omitted."""

    def __repr__(self):
        return 'NIL'


NIL = _Nil()


class DecodeError(ValueError):
    """A body the Go decoder refuses; ``str()`` is Go's message."""


def type_for(group, version, kind):
    """The Go type name of a served kind, or None when the table does not have it."""
    name = f'{_PACKAGES.get(group, group)}.{version}.{kind}'
    return name if name in TYPES else None


@functools.lru_cache(maxsize=None)
def json_fields(type_name):
    """{json name: (type, flags)} of a struct in Go order, embedded inline structs flattened."""
    out = {}
    for name, typ, _number, flags in TYPES[type_name]:
        if 'i' in flags:
            if typ == 'meta.v1.TypeMeta':
                out['kind'] = ('string', 'o')
                out['apiVersion'] = ('string', 'o')
            else:
                out.update(json_fields(typ))
            continue
        out[name] = (typ, flags)
    return out


def go_type_name(typ):
    """How Go's reflection prints a type in decode errors: int32, []v1.Container, v1.Time."""
    if typ.startswith('*'):
        return go_type_name(typ[1:])
    if typ.startswith('[]'):
        return '[]' + go_type_name(typ[2:])
    if typ.startswith('map['):
        return 'map[string]' + go_type_name(typ[4:-1])
    if typ in _SPECIAL_GO_NAMES:
        return _SPECIAL_GO_NAMES[typ]
    if typ in TYPES:
        _package, version, name = typ.split('.')
        return f'{version}.{name}'
    return typ


def _json_kind(value):
    if isinstance(value, bool):
        return 'bool'
    if isinstance(value, str):
        return 'string'
    if isinstance(value, (int, float)):
        return 'number'
    if isinstance(value, list):
        return 'array'
    return 'object'


def go_base64_error(text):
    """None when ``text`` is what Go's `base64.StdEncoding` decodes (padded; CR and LF skipped),
    else the offset of its `illegal base64 data at input byte N`: an illegal character's, a
    misplaced `=`'s, trailing input after the padding's, or the start of an incomplete last
    quantum (the length when a second `=` is missing)."""
    i, n = 0, len(text)
    while True:
        for j in range(4):
            while i < n and text[i] in '\r\n':
                i += 1
            if i == n:
                return None if j == 0 else i - j
            c = text[i]
            i += 1
            if c == '=':
                if j < 2:
                    return i - 1
                if j == 2:
                    while i < n and text[i] in '\r\n':
                        i += 1
                    if i == n:
                        return n
                    if text[i] != '=':
                        return i - 1
                    i += 1
                while i < n and text[i] in '\r\n':
                    i += 1
                return i if i < n else None
            if not _BASE64.match(c):
                return i - 1


def canonical_base64(text):
    """``text`` decoded and encoded again (DecodeError when Go would not decode it)."""
    bad = go_base64_error(text)
    if bad is not None:
        raise DecodeError(f'illegal base64 data at input byte {bad}')
    return base64.b64encode(base64.b64decode(text.replace('\r', '').replace('\n', ''))).decode()


def _parse_time(text, micro):
    match = _TIME.match(text) if isinstance(text, str) else None
    if not match:
        layout = '2006-01-02T15:04:05.000000Z07:00' if micro else '2006-01-02T15:04:05Z07:00'
        raise DecodeError(f'parsing time {_go_quote(text)} as "{layout}": cannot parse {_go_quote(text)} '
                          'as "2006"')
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        offset = datetime.timedelta(0) if zone in ('Z', 'z') else (
            (1 if zone[0] == '+' else -1) * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
        moment = datetime.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second),
                                   int((fraction or '.0')[1:7].ljust(6, '0')),
                                   tzinfo=datetime.timezone(offset))
    except ValueError as err:
        raise DecodeError(f'parsing time {_go_quote(text)}: {err}') from None
    moment = moment.astimezone(datetime.timezone.utc)
    if micro:
        return moment.strftime('%Y-%m-%dT%H:%M:%S.%fZ')
    return moment.strftime('%Y-%m-%dT%H:%M:%SZ')


def _go_quote(value):
    text = value if isinstance(value, str) else str(value)
    return '"' + text.replace('\\', '\\\\').replace('"', '\\"') + '"'


def _number_text(value):
    return str(value) if isinstance(value, int) else repr(value)


class _Walker:
    """One decode (or unstructured conversion) of one value."""

    def __init__(self, unstructured):
        self.unstructured = unstructured
        self.unknown = []

    def fail(self, value, typ, struct, fields, given=None):
        if self.unstructured:
            source = {bool: 'bool', str: 'string', int: 'int64', float: 'float64'}.get(type(value), 'map')
            raise DecodeError(f'cannot convert {source} to {go_type_name(typ)}')
        given = given or _json_kind(value)
        if struct is None:
            raise DecodeError(f'json: cannot unmarshal {given} into Go value of type {go_type_name(typ)}')
        raise DecodeError(f'json: cannot unmarshal {given} into Go struct field {struct}.'
                          f'{".".join(fields)} of type {go_type_name(typ)}')

    def value(self, value, typ, path, struct, fields):
        """The decoded value; NIL for nil (pointer, slice, map, zero time)."""
        if typ[0] == '*':
            return NIL if value is None else self.value(value, typ[1:], path, struct, fields)
        if value is None:
            return zero(typ)
        if typ.startswith('[]'):
            if not isinstance(value, list):
                self.fail(value, typ, struct, fields)
            item = typ[2:]
            return [self.value(v, item, f'{path}[{i}]', struct, fields) for i, v in enumerate(value)]
        if typ.startswith('map['):
            if not isinstance(value, dict):
                self.fail(value, typ, struct, fields)
            item = typ[4:-1]
            return {k: self.value(v, item, f'{path}.{k}' if path else k, struct, fields)
                    for k, v in value.items()}
        if typ in TYPES:
            if not isinstance(value, dict):
                self.fail(value, typ, struct, fields)
            return self.struct(value, typ, path, fields)
        return self.scalar(value, typ, struct, fields)

    def scalar(self, value, typ, struct, fields):
        if typ == 'string':
            if not isinstance(value, str):
                self.fail(value, typ, struct, fields)
            return value
        if typ == 'bool':
            if not isinstance(value, bool):
                self.fail(value, typ, struct, fields)
            return value
        if typ in _INT_RANGES:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.fail(value, typ, struct, fields)
            low, high = _INT_RANGES[typ]
            if self.unstructured:
                if isinstance(value, float):
                    if value != int(value):
                        self.fail(value, typ, struct, fields)
                    value = int(value)
                span = high - low + 1
                return (value - low) % span + low  # a Go conversion wraps around
            if isinstance(value, float) or not low <= value <= high:
                self.fail(value, typ, struct, fields, given=f'number {_number_text(value)}')
            return value
        if typ == 'float64':
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.fail(value, typ, struct, fields)
            return value
        if typ == 'bytes':
            if not isinstance(value, str):
                self.fail(value, typ, struct, fields)
            return canonical_base64(value)
        if typ in ('Time', 'MicroTime'):
            if not isinstance(value, str):
                self.fail(value, typ, struct, fields)
            return _parse_time(value, typ == 'MicroTime')
        if typ == 'Quantity':
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                self.fail(value, typ, struct, fields)
            if isinstance(value, str):
                from .quantity import parse_quantity

                try:
                    parse_quantity(value)
                except ValueError as err:
                    raise DecodeError(str(err)) from None
                return value
            return _number_text(value)
        if typ == 'IntOrString':
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                self.fail(value, typ, struct, fields)
            if isinstance(value, float):
                if value != int(value) or not self.unstructured:
                    raise DecodeError(f'json: cannot unmarshal number {_number_text(value)} into Go value '
                                      'of type int32')
                value = int(value)
            return value
        if typ == 'Duration':
            if not isinstance(value, str):
                self.fail(value, typ, struct, fields)
            return value
        return value  # RawExtension, FieldsV1: kept as given

    def struct(self, value, typ, path, fields):
        known = json_fields(typ)
        struct = typ.rsplit('.', 1)[1]
        out = {}
        for key, item in value.items():
            if key not in known:
                self.unknown.append(f'{path}.{key}' if path else key)
                continue
            field_type, _flags = known[key]
            out[key] = self.value(item, field_type, f'{path}.{key}' if path else key, struct, fields + [key])
        return encode_struct(typ, out)


def zero(typ):
    """The zero value of a Go type, as decoded (NIL for nil and the zero time)."""
    if typ in TYPES:
        return copy.deepcopy(_zero_struct(typ))
    if typ[0] == '*' or typ.startswith(('[]', 'map[')) or typ in ('bytes', 'RawExtension', 'FieldsV1',
                                                                   'Time', 'MicroTime'):
        return NIL
    if typ == 'string':
        return ''
    if typ == 'bool':
        return False
    if typ in _INT_RANGES or typ in ('float64', 'IntOrString'):
        return 0
    if typ == 'Quantity':
        return '0'
    return '0s'  # Duration


@functools.lru_cache(maxsize=None)
def _zero_struct(typ):
    return encode_struct(typ, {})


def _is_empty(value):
    return value is NIL or value in ('', 0, False) and not isinstance(value, dict) or value in ([], {})


def _printable(typ):
    """Whether `omitempty` can drop a value of this type (Go never omits a struct)."""
    return typ[0] == '*' or typ.startswith(('[]', 'map[')) or typ in (
        'string', 'bool', 'float64', 'bytes') or typ in _INT_RANGES


def encode_struct(typ, decoded):
    """A struct as Go's encoder prints it, from its decoded fields (absent ones are zero)."""
    out = {}
    for key, (field_type, flags) in json_fields(typ).items():
        value = decoded[key] if key in decoded else zero(field_type)
        if 'z' in flags and (value is NIL or value == zero(field_type)):
            continue
        if 'o' in flags and (value is NIL if field_type[0] == '*' else
                             _printable(field_type) and _is_empty(value)):
            continue
        out[key] = None if value is NIL else value
    return out


def _strip_nil(value):
    if value is NIL:
        return None
    if isinstance(value, dict):
        return {k: _strip_nil(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_nil(v) for v in value]
    return value


def decode(type_name, value):
    """(the value as the API server would hold and print it, unknown field paths); DecodeError
    when its JSON decoder refuses the value."""
    walker = _Walker(unstructured=False)
    if not isinstance(value, dict):
        walker.fail(value, type_name, None, [])
    return _strip_nil(walker.struct(value, type_name, '', [])), walker.unknown


def convert(type_name, value):
    """As `decode`, with the unstructured converter's number conversions (strategic merge patch)."""
    walker = _Walker(unstructured=True)
    if not isinstance(value, dict):
        walker.fail(value, type_name, None, [])
    return _strip_nil(walker.struct(value, type_name, '', [])), walker.unknown


def go_map_text(value):
    """A JSON value as Go's %+v prints the map[string]interface{} holding it (keys sorted):
    `map[spec:map[replicas:3]]`."""
    if isinstance(value, dict):
        return 'map[' + ' '.join(f'{k}:{go_map_text(value[k])}' for k in sorted(value)) + ']'
    if isinstance(value, list):
        return '[' + ' '.join(go_map_text(v) for v in value) + ']'
    if value is None:
        return '<nil>'
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return _number_text(value) if isinstance(value, (int, float)) else str(value)
