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

Quantities are printed as the API server prints them (`Quantity.String()` of what it parsed: "0.5"
as "500m"), those of a ResourceList first rounded up to milli units, as its defaulting does.
"""

import base64
import copy
import datetime
import functools
import re

from .clock import rfc3339
from .gotypes_table import TYPES
from .quantity import go_parse_quantity, go_quantity_string, go_round_up

# (API group, version, kind) -> the Go type of the top-level object.
_PACKAGES = {'': 'core', 'apps': 'apps', 'autoscaling': 'autoscaling', 'coordination.k8s.io': 'coordination',
             'batch': 'batch', 'discovery.k8s.io': 'discovery'}
_PACKAGES.update({'rbac.authorization.k8s.io': 'rbac', 'authorization.k8s.io': 'authorization'})
_PACKAGES.update({'storage.k8s.io': 'storage', 'apiregistration.k8s.io': 'apiregistration'})
_PACKAGES.update({'policy': 'policy', 'networking.k8s.io': 'networking',
                  'certificates.k8s.io': 'certificates', 'metrics.k8s.io': 'metrics'})
_INT_RANGES = {'int32': (-2 ** 31, 2 ** 31 - 1), 'int64': (-2 ** 63, 2 ** 63 - 1),
               'uint32': (0, 2 ** 32 - 1), 'uint64': (0, 2 ** 64 - 1)}
_SPECIAL_GO_NAMES = {'Time': 'v1.Time', 'MicroTime': 'v1.MicroTime', 'Duration': 'v1.Duration',
                     'Quantity': 'resource.Quantity', 'IntOrString': 'intstr.IntOrString',
                     'RawExtension': 'runtime.RawExtension', 'FieldsV1': 'v1.FieldsV1', 'bytes': '[]uint8'}
_TIME = re.compile(r'^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$')
_BASE64 = re.compile(r'[A-Za-z0-9+/]')
_SIMPLE = ('string', 'bool', 'float64', 'int32', 'int64', 'uint32', 'uint64')


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
    for name, typ, _number, flags, *_patch in TYPES[type_name]:
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
    return rfc3339(moment, micro)


def _go_quote(value):
    text = value if isinstance(value, str) else str(value)
    return '"' + text.replace('\\', '\\\\').replace('"', '\\"') + '"'


def _number_text(value):
    return str(value) if isinstance(value, int) else repr(value)


class _Context:
    """One decode: whether numbers convert as the unstructured converter does, and the unknown
    field paths found."""

    __slots__ = ('unstructured', 'unknown')

    def __init__(self, unstructured):
        self.unstructured = unstructured
        self.unknown = []


def _display(path):
    """A path as strict decoding names unknown fields: `spec.containers[0].extra`."""
    out = ''
    for segment in path:
        if isinstance(segment, int):
            out += f'[{segment}]'
        else:
            out = f'{out}.{segment}' if out else segment
    return out


def _fail(ctx, value, typ, struct, path, given=None):
    if ctx.unstructured:
        raise DecodeError(_restore_error(value, typ.lstrip('*')))
    given = given or _json_kind(value)
    if struct is None:
        raise DecodeError(f'json: cannot unmarshal {given} into Go value of type {go_type_name(typ)}')
    # Go's error context: the innermost struct and the field names from the top (no indexes).
    fields = '.'.join(s for s in path if isinstance(s, str))
    raise DecodeError(f'json: cannot unmarshal {given} into Go struct field {struct}.{fields} of type '
                      f'{go_type_name(typ)}')


def _restore_error(value, typ):
    """The unstructured converter's error for a value that does not fit `typ` (fromUnstructured in
    apimachinery runtime/converter.go): a map, slice or struct is "restored" from a JSON map or list,
    a simple type converted as Go's reflection converts (numbers to numbers, an integer to a string)."""
    kinds = {bool: 'bool', str: 'string', int: 'int64', float: 'float64', list: 'slice'}
    kind = kinds.get(type(value), 'map')
    if typ.startswith(('[]', 'map[')) or typ == 'bytes':
        return f'cannot restore {"map" if typ.startswith("map[") else "slice"} from {kind}'
    if typ in TYPES:
        return f'cannot restore struct from: {kind}'
    if typ not in _SIMPLE:  # Quantity, Time, IntOrString, Duration: read by their own unmarshalling
        return f'cannot convert {kind} to {go_type_name(typ)}'
    numeric = typ not in ('string', 'bool')
    if kind in ('int64', 'float64') and (numeric or kind == 'int64' and typ == 'string'):
        return f'cannot convert {kind} to {typ}'  # reflect converts them, JSON does not
    return f'unrecognized type: {typ}'  # reflect cannot convert them either


def _none(value):
    return None if value is NIL else value


@functools.lru_cache(maxsize=None)
def _decoder(typ):
    """A function (value, ctx, path, struct) -> the decoded value (NIL for nil) for a type."""
    if typ[0] == '*':
        inner = _decoder(typ[1:])

        def pointer(value, ctx, path, struct):
            return NIL if value is None else inner(value, ctx, path, struct)
        return pointer
    if typ.startswith('[]'):
        inner = _decoder(typ[2:])

        def slice_(value, ctx, path, struct):
            if value is None:
                return NIL
            if not isinstance(value, list):
                _fail(ctx, value, typ, struct, path)
            return [_none(inner(v, ctx, path + (i,), struct)) for i, v in enumerate(value)]
        return slice_
    if typ.startswith('map['):
        # every map of quantities in these APIs is a core/v1 ResourceList
        inner = functools.partial(_quantity, 'Quantity', milli=True) if typ == 'map[Quantity]' else \
            _decoder(typ[4:-1])

        def map_(value, ctx, path, struct):
            if value is None:
                return NIL
            if not isinstance(value, dict):
                _fail(ctx, value, typ, struct, path)
            return {k: _none(inner(v, ctx, path, struct)) for k, v in value.items()}
        return map_
    if typ in TYPES:
        return _struct_decoder(typ)
    return functools.partial(_SCALARS[typ], typ)


def _string(typ, value, ctx, path, struct):
    if value is None:
        return ''
    if not isinstance(value, str):
        _fail(ctx, value, typ, struct, path)
    return value


def _bool(typ, value, ctx, path, struct):
    if value is None:
        return False
    if not isinstance(value, bool):
        _fail(ctx, value, typ, struct, path)
    return value


def _integer(typ, value, ctx, path, struct):
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(ctx, value, typ, struct, path)
    low, high = _INT_RANGES[typ]
    if ctx.unstructured:
        if isinstance(value, float):
            if value != int(value):
                _fail(ctx, value, typ, struct, path)
            value = int(value)
        return (value - low) % (high - low + 1) + low  # a Go conversion wraps around
    if isinstance(value, float) or not low <= value <= high:
        _fail(ctx, value, typ, struct, path, given=f'number {_number_text(value)}')
    return value


def _float(typ, value, ctx, path, struct):
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(ctx, value, typ, struct, path)
    return value


def _bytes(typ, value, ctx, path, struct):
    if value is None:
        return NIL
    if not isinstance(value, str):
        _fail(ctx, value, typ, struct, path)
    return canonical_base64(value)


def _time(typ, value, ctx, path, struct):
    if value is None:
        return NIL
    if not isinstance(value, str):
        _fail(ctx, value, typ, struct, path)
    return _parse_time(value, typ == 'MicroTime')


def _quantity(typ, value, ctx, path, struct, milli=False):
    """A quantity as the API server stores and prints it: parsed as resource.ParseQuantity does,
    rounded up to milli units in a ResourceList (`SetDefaults_ResourceList`, every write), and
    written back as `Quantity.String()` ("0.5" is "500m", "1.5Gi" "1536Mi", "100m" stays)."""
    if value is None:
        return '0'
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        _fail(ctx, value, typ, struct, path)
    try:
        quantity = go_parse_quantity(value)
    except ValueError as err:
        raise DecodeError(str(err)) from None
    if milli:
        quantity = go_round_up(quantity, -3)
    return go_quantity_string(quantity)


def _int_or_string(typ, value, ctx, path, struct):
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        _fail(ctx, value, typ, struct, path)
    if isinstance(value, float):
        if value != int(value) or not ctx.unstructured:
            raise DecodeError(f'json: cannot unmarshal number {_number_text(value)} into Go value of '
                              'type int32')
        value = int(value)
    return value


def _duration(typ, value, ctx, path, struct):
    if value is None:
        return '0s'
    if not isinstance(value, str):
        _fail(ctx, value, typ, struct, path)
    return value


def _raw(typ, value, ctx, path, struct):
    return NIL if value is None else value  # RawExtension, FieldsV1: kept as given


_SCALARS = {'string': _string, 'bool': _bool, 'int32': _integer, 'int64': _integer, 'uint32': _integer,
            'uint64': _integer, 'float64': _float, 'bytes': _bytes, 'Time': _time, 'MicroTime': _time,
            'Quantity': _quantity, 'IntOrString': _int_or_string, 'Duration': _duration,
            'RawExtension': _raw, 'FieldsV1': _raw}
# How a field is printed: dropped when nil (a pointer with omitempty), when empty (omitempty on a
# scalar, slice or map), when zero (omitzero), or always.
_NIL_OMITS, _EMPTY_OMITS, _ZERO_OMITS, _ALWAYS = range(4)


def _mode(typ, flags):
    if 'z' in flags:
        return _ZERO_OMITS
    if 'o' in flags:
        if typ[0] == '*':
            return _NIL_OMITS
        if _printable(typ):
            return _EMPTY_OMITS
    return _ALWAYS


class _StructPlan:
    """A struct's fields compiled once: their decoders, print modes and Go order."""

    def __init__(self, typ):
        self.typ = typ
        self.name = typ.rsplit('.', 1)[1]
        self.fields = {}
        self.order = {}
        self.always = []
        for index, (key, (field_type, flags)) in enumerate(json_fields(typ).items()):
            mode = _mode(field_type, flags)
            self.fields[key] = (_decoder(field_type), mode, field_type)
            self.order[key] = index
            if mode == _ALWAYS:
                self.always.append((key, field_type))

    def emit(self, decoded):
        for key, field_type in self.always:
            if key not in decoded:
                decoded[key] = zero(field_type)
        out = {}
        for key in sorted(decoded, key=self.order.__getitem__):
            value = decoded[key]
            mode = self.fields[key][1]
            if mode == _NIL_OMITS:
                if value is NIL:
                    continue
            elif mode == _EMPTY_OMITS:
                if value is NIL or value == '' or value is False or value == [] or value == {} or (
                        value == 0 and not isinstance(value, (str, dict, list))):
                    continue
            elif mode == _ZERO_OMITS:
                if value is NIL or value == zero(self.fields[key][2]):
                    continue
            out[key] = None if value is NIL else value
        return out


@functools.lru_cache(maxsize=None)
def _plan(typ):
    return _StructPlan(typ)


@functools.lru_cache(maxsize=None)
def _struct_decoder(typ):
    def struct_(value, ctx, path, parent):
        plan = _plan(typ)
        if value is None:
            return zero(typ)
        if not isinstance(value, dict):
            _fail(ctx, value, typ, parent, path)
        fields = plan.fields
        decoded = {}
        for key, item in value.items():
            entry = fields.get(key)
            if entry is None:
                ctx.unknown.append(_display(path + (key,)))
                continue
            decoded[key] = entry[0](item, ctx, path + (key,), plan.name)
        return plan.emit(decoded)
    return struct_


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
    return _plan(typ).emit({})


def _printable(typ):
    """Whether `omitempty` can drop a value of this type (Go never omits a struct)."""
    return typ[0] == '*' or typ.startswith(('[]', 'map[')) or typ in (
        'string', 'bool', 'float64', 'bytes') or typ in _INT_RANGES


def encode_struct(typ, decoded):
    """A struct as Go's encoder prints it, from its decoded fields (absent ones are zero)."""
    return _plan(typ).emit(dict(decoded))


def _run(type_name, value, unstructured):
    ctx = _Context(unstructured)
    if not isinstance(value, dict):
        _fail(ctx, value, type_name, None, ())
    return _struct_decoder(type_name)(value, ctx, (), None), ctx.unknown


def decode(type_name, value):
    """(the value as the API server would hold and print it, unknown field paths); DecodeError
    when its JSON decoder refuses the value."""
    return _run(type_name, value, False)


def convert(type_name, value):
    """As `decode`, with the unstructured converter's number conversions (strategic merge patch)."""
    return _run(type_name, value, True)


def known_only(type_name, value):
    """``value`` with only the fields the Go types declare, otherwise as given (no zero values
    filled in, nothing normalised): an apply configuration keeps what its author wrote."""
    return _known(value, type_name)


def _known(value, typ):
    typ = typ.lstrip('*')
    if typ.startswith('[]') and isinstance(value, list):
        return [_known(v, typ[2:]) for v in value]
    if typ.startswith('map[') and isinstance(value, dict):
        return {k: _known(v, typ[4:-1]) for k, v in value.items()}
    if typ in TYPES and isinstance(value, dict):
        fields = json_fields(typ)
        return {k: _known(v, fields[k][0]) for k, v in value.items() if k in fields}
    return value


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
