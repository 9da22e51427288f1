"""A pod template as the controllers print it before hashing it.

`controller.ComputeHash` (and the DaemonSet controller's `snapshot`) hash a template with
`hashutil.DeepHashObject`: FNV-1a over `dump.ForHash(template)`, which is go-spew's `%#v` with
DisableMethods, SortKeys and SpewKeys (k8s.io/utils/dump). That text is the Go value, field by
field, so kubesim prints the same text from the JSON it stores and the Go types in spew_table.py.

How go-spew's formatter writes a value (github.com/davecgh/go-spew/spew/format.go), in short:
- a value is preceded by its type in parentheses, `(v1.PodSpec)`, except where spew says it needs
  none: the elements of a slice, the keys and values of a map, the value a pointer points to;
- a struct is `{Name:value Name:value}`, every field in declaration order, exported or not;
- a pointer is `(*T)` and the value it points to, or `(*T)<nil>` (where no type is shown, `<*>` and
  the value, or `<nil>`);
- a slice is `[a b]`, a map `map[k:v k:v]` with its keys sorted, both `<nil>` when nil;
- strings are written bare, numbers in decimal, booleans `true`/`false`.

What the controller holds is the object as it read it from the API server, which kube-controller-
manager reads as protobuf: an empty list or map arrives as nil, a pointer to an empty struct stays
a pointer. Quantities arrive as the API server stored them (defaulting rounds every ResourceList
up to milli units, then `String()` of that) and are parsed again (quantity.go_parse_quantity).

Not reproduced: a non-zero time inside a template (Go prints its location, which depends on the
controller's time zone; kubesim prints it as UTC without a location).
"""

import datetime
import functools

from .gojson import go_json
from .quantity import go_parse_quantity, go_quantity_string, go_round_up
from .spew_table import NAMED, STRUCTS

_INTEGERS = frozenset({'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32',
                       'uint64'})
_SECONDS_TO_GO_EPOCH = 62135596800  # from year 1 to 1970, the offset of time.Time's `ext`


class _Go(dict):
    """A value already in the shape of its Go struct: keyed by Go field name, not JSON name."""


def _underlying(type_name):
    while type_name in NAMED:
        type_name = NAMED[type_name]
    return type_name


def _map_types(type_name):
    """(key type, value type) of a `map[K]V` spelling."""
    depth, index = 0, 4
    for index in range(4, len(type_name)):
        char = type_name[index]
        if char == '[':
            depth += 1
        elif char == ']':
            if depth == 0:
                break
            depth -= 1
    return type_name[4:index], type_name[index + 1:]


def _quantity(value, milli=False):
    if value is None:
        return None
    parsed = go_parse_quantity(value)
    if milli:
        parsed = go_round_up(parsed, -3)
    parsed = go_parse_quantity(go_quantity_string(parsed))
    if parsed.d is None:
        amount, dec = _Go(value=parsed.i[0], scale=parsed.i[1]), None
    else:
        unscaled, scale = parsed.d
        words = []
        magnitude = abs(unscaled)
        while magnitude:
            words.append(magnitude & 0xFFFFFFFFFFFFFFFF)
            magnitude >>= 64
        dec = _Go(unscaled=_Go(neg=unscaled < 0, abs=words), scale=scale)
        amount = _Go(value=0, scale=0)
    return _Go(i=amount, d=_Go(Dec=dec), s=parsed.s, Format=parsed.format)


def _time(value):
    if not value:
        return _Go(Time=_Go(wall=0, ext=0, loc=None))
    moment = datetime.datetime.fromisoformat(str(value).replace('Z', '+00:00'))
    seconds = int(moment.timestamp())
    return _Go(Time=_Go(wall=moment.microsecond * 1000, ext=seconds + _SECONDS_TO_GO_EPOCH, loc=None))


def _int_or_string(value):
    if isinstance(value, str):
        return _Go(Type=1, IntVal=0, StrVal=value)
    return _Go(Type=0, IntVal=int(value or 0), StrVal='')


def _fields_v1(value):
    if value is None:
        return _Go(Raw=None)
    return _Go(Raw=list(go_json(value)))


_CONVERT = {'resource.Quantity': _quantity, 'v1.Time': _time, 'intstr.IntOrString': _int_or_string,
            'v1.FieldsV1': _fields_v1}


@functools.lru_cache(maxsize=None)
def fields(type_name):
    """The fields of a Go struct of spew_table.STRUCTS as `(Go name, Go type, JSON name)`, the JSON
    name spelled out where the table leaves it implied (the Go name with its first letter lowered)."""
    return tuple((facts[0], facts[1], facts[2] if len(facts) > 2 else facts[0][0].lower() + facts[0][1:])
                 for facts in STRUCTS[type_name])


def _write(out, type_name, value, show_type):
    if type_name.startswith('*'):
        target = type_name[1:]
        if value is None:
            out.append(f'({type_name})<nil>' if show_type else '<nil>')
            return
        out.append(f'({type_name})' if show_type else '<*>')
        _write(out, target, value, False)
        return
    if show_type:
        out.append(f'({type_name})')
    if type_name in _CONVERT and not isinstance(value, _Go):
        value = _CONVERT[type_name](value)
    if type_name in STRUCTS:
        _write_struct(out, type_name, value)
        return
    kind = _underlying(type_name)
    if kind.startswith('[]'):
        if not value:
            out.append('<nil>')
            return
        out.append('[')
        for index, item in enumerate(value):
            if index:
                out.append(' ')
            _write(out, kind[2:], item, False)
        out.append(']')
    elif kind.startswith('map['):
        if not value:
            out.append('<nil>')
            return
        key_type, value_type = _map_types(kind)
        out.append('map[')
        for index, key in enumerate(sorted(value, key=lambda k: k.encode())):
            if index:
                out.append(' ')
            _write(out, key_type, key, False)
            out.append(':')
            item = value[key]
            if type_name == 'v1.ResourceList':  # rounded up to milli units by the API server's defaulting
                item = _quantity(item, milli=True)
            _write(out, value_type, item, False)
        out.append(']')
    elif kind == 'string':
        out.append('' if value is None else str(value))
    elif kind == 'bool':
        out.append('true' if value else 'false')
    elif kind in _INTEGERS:
        out.append(str(int(value or 0)))
    else:
        raise ValueError(f'spew: no printing for Go type {type_name}')


def _write_struct(out, type_name, value):
    value = value if isinstance(value, dict) else {}
    out.append('{')
    for index, (go_name, field_type, json_name) in enumerate(fields(type_name)):
        if index:
            out.append(' ')
        out.append(go_name)
        out.append(':')
        if isinstance(value, _Go):
            field = value.get(go_name)
        elif json_name:
            field = value.get(json_name)
        else:
            field = value  # an embedded struct, its fields inlined in the same JSON object
        _write(out, field_type, field, True)
    out.append('}')


def printed(type_name, value):
    """The text `dump.ForHash` writes for the Go value of `type_name` that `value` (JSON) decodes to."""
    out = []
    _write(out, type_name, value, True)
    return ''.join(out)


def pod_template(template):
    """The text the controllers hash for a pod template (a PodTemplateSpec's JSON)."""
    return printed('v1.PodTemplateSpec', template or {})
