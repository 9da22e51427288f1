"""Kubernetes objects in protobuf (`application/vnd.kubernetes.protobuf`), as the API server's
protobuf serializer (apimachinery runtime/serializer/protobuf) reads and writes them.

A body is the magic `k8s\\x00` and a `runtime.Unknown` envelope: `typeMeta` (1: apiVersion 1,
kind 2), `raw` (2: the object's message), `contentEncoding` (3), `contentType` (4). The object's
message has the fields of its Go struct under their `protobuf:"..."` numbers (gotypes_table.py),
written as gogo-protobuf generates it for k8s.io/api: scalars as varints (int32 as the 64-bit two's
complement when negative), strings and `[]byte` length-delimited, a `float64` as fixed64, structs
as nested messages (an embedded struct too, although JSON inlines its fields), lists as repeated
fields (packed varints read as well), maps as repeated entries (key 1, value 2) in key order.
The special types: `metav1.Time`/`MicroTime` (seconds 1, nanos 2), `Duration` (1: nanoseconds),
`resource.Quantity` (1: its string), `intstr.IntOrString` (type 1, intVal 2, strVal 3),
`runtime.RawExtension` and `FieldsV1` (1: raw JSON bytes).

`decode` gives the object in the JSON form the rest of kubesim works on; `encode` the reverse.

Watch streams (`watch_frame`, `read_watch_stream`) are framed as the protobuf serializer's stream
form: each event a 4-byte big-endian length (apimachinery `util/framer`, the
`LengthDelimitedFramer`) and a `metav1.WatchEvent` message written by the raw serializer, so with
no magic and no envelope: `type` 1 (a string), `object` 2 (a `runtime.RawExtension`, whose `raw` 1
holds the object as the embedded encoder writes it: magic, envelope, message).
"""

import base64
import datetime
import functools
import json
import struct

from . import protowire as pw
from .clock import rfc3339
from .gotypes_table import TYPES

CONTENT_TYPE = 'application/vnd.kubernetes.protobuf'
STREAM_CONTENT_TYPE = CONTENT_TYPE + ';stream=watch'  # a watch's answer (apiserver handlers/watch.go)
MAGIC = b'k8s\x00'
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_ZERO_TIME_SECONDS = -62135596800  # Go's zero time.Time as Unix seconds
_SIGNED = ('int32', 'int64')
_VARINTS = ('int32', 'int64', 'uint32', 'uint64', 'bool')


class ProtobufError(ValueError):
    """A body that is not a Kubernetes protobuf object of the expected type."""


# ---- the envelope -------------------------------------------------------------------------------
def unwrap(data):
    """(apiVersion, kind, raw message) of an enveloped body."""
    if not data.startswith(MAGIC):
        raise ProtobufError('provided value is not a valid protobuf object: the magic prefix is missing')
    api_version = kind = ''
    raw = b''
    try:
        for number, _wire, value in pw.fields(data[len(MAGIC):]):
            if number == 1:
                for sub, _w, text in pw.fields(value):
                    if sub == 1:
                        api_version = text.decode()
                    elif sub == 2:
                        kind = text.decode()
            elif number == 2:
                raw = value
    except (pw.WireError, UnicodeDecodeError) as err:
        raise ProtobufError(f'the envelope does not decode: {err}') from None
    return api_version, kind, raw


def wrap(api_version, kind, raw):
    type_meta = pw.field_bytes(1, api_version) + pw.field_bytes(2, kind)
    return MAGIC + pw.field_bytes(1, type_meta) + pw.field_bytes(2, raw) + pw.field_bytes(3, '') + \
        pw.field_bytes(4, '')


def type_of(api_version, kind):
    """The Go type of an apiVersion/kind the table knows, else None."""
    from .gotypes import type_for

    if kind == 'Status':
        return 'meta.v1.Status'
    group, _, version = api_version.rpartition('/')
    return type_for(group, version, kind)


# ---- fields -------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _by_number(type_name):
    """{field number: (json name, type, inline)} of a struct."""
    out = {}
    for name, typ, number, flags, *_patch in TYPES[type_name]:
        if number is not None:
            out[number] = (name, typ, 'i' in flags)
    return out


def _time_text(seconds, nanos, micro):
    if seconds <= _ZERO_TIME_SECONDS:
        return None
    moment = _EPOCH + datetime.timedelta(seconds=seconds, microseconds=nanos // 1000)
    return rfc3339(moment, micro)


def _duration_text(nanos):
    """Go's time.Duration String() for whole and fractional seconds."""
    if nanos == 0:
        return '0s'
    sign = '-' if nanos < 0 else ''
    nanos = abs(nanos)
    hours, rest = divmod(nanos, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    seconds = rest / 10**9
    text = f'{seconds:.9f}'.rstrip('0').rstrip('.') + 's'
    if hours:
        return f'{sign}{hours}h{minutes}m{text}'
    if minutes:
        return f'{sign}{minutes}m{text}'
    return sign + text


def _scalar(typ, wire, value):
    if typ in _SIGNED:
        return pw.signed(value, 64)
    if typ == 'bool':
        return bool(value)
    if typ in ('uint32', 'uint64'):
        return value
    if typ == 'float64':
        return struct.unpack('<d', value.to_bytes(8, 'little'))[0]
    if typ == 'string':
        return value.decode()
    if typ == 'bytes':
        return base64.b64encode(value).decode()
    if typ in ('Time', 'MicroTime') and not value:
        return None  # Time.Unmarshal: an empty message is the zero time (a zero time is sent empty)
    parts = {number: v for number, _w, v in pw.fields(value)}
    if typ in ('Time', 'MicroTime'):
        return _time_text(pw.signed(parts.get(1, 0)), parts.get(2, 0), typ == 'MicroTime')
    if typ == 'Duration':
        return _duration_text(pw.signed(parts.get(1, 0)))
    if typ == 'Quantity':
        return parts.get(1, b'').decode() or '0'
    if typ == 'IntOrString':
        if parts.get(1, 0) == 1:
            return parts.get(3, b'').decode()
        return pw.signed(parts.get(2, 0))
    if typ in ('RawExtension', 'FieldsV1'):
        raw = parts.get(1, b'')
        return json.loads(raw) if raw else None
    raise ProtobufError(f'unknown type {typ}')


def _element(typ, wire, value):
    if typ[0] == '*':
        typ = typ[1:]
    if typ in TYPES:
        return decode_message(typ, value)
    return _scalar(typ, wire, value)


def decode_message(type_name, data):
    """One message of a Go struct as its JSON form (fields it does not know are skipped, as
    gogo-protobuf's generated Unmarshal does)."""
    fields = _by_number(type_name)
    out = {}
    try:
        pieces = pw.fields(data)
    except pw.WireError as err:
        raise ProtobufError(f'{type_name.rsplit(".", 1)[1]}: {err}') from None
    for number, wire, value in pieces:
        known = fields.get(number)
        if known is None:
            continue
        name, typ, inline = known
        if inline:
            out.update(decode_message(typ.lstrip('*'), value))
        elif typ.startswith('[]'):
            item = typ[2:]
            items = out.setdefault(name, [])
            if wire == pw.BYTES and item in _VARINTS:
                items.extend(_scalar(item, pw.VARINT, v) for v in pw.packed_varints(value))
            else:
                items.append(_element(item, wire, value))
        elif typ.startswith('map['):
            item = typ[4:-1]
            entry = {n: (w, v) for n, w, v in pw.fields(value)}
            key = entry.get(1, (pw.BYTES, b''))[1].decode()
            wire_v, raw_v = entry.get(2, (pw.BYTES, b''))
            out.setdefault(name, {})[key] = _element(item, wire_v, raw_v)
        else:
            out[name] = _element(typ, wire, value)
    return out


def decode(data, expected_type=None):
    """(apiVersion, kind, object in JSON form) of an enveloped body; ``expected_type`` is the Go
    type to read it as (else the envelope's apiVersion/kind decide)."""
    api_version, kind, raw = unwrap(data)
    type_name = expected_type or type_of(api_version, kind)
    if type_name is None:
        raise ProtobufError(f'no kind "{kind}" is registered for version "{api_version}"')
    obj = decode_message(type_name, raw)
    if api_version:
        obj['apiVersion'] = api_version
    if kind:
        obj['kind'] = kind
    return obj


# ---- writing ------------------------------------------------------------------------------------
def _time_message(text, micro):
    if text is None:
        return b''
    moment = datetime.datetime.fromisoformat(text.replace('Z', '+00:00'))
    delta = moment - _EPOCH
    seconds = delta.days * 86400 + delta.seconds
    return pw.field_varint(1, seconds) + pw.field_varint(2, delta.microseconds * 1000)


def _duration_nanos(text):
    import re

    total, sign = 0.0, 1
    if text.startswith('-'):
        sign, text = -1, text[1:]
    units = {'h': 3600, 'm': 60, 's': 1, 'ms': 1e-3, 'us': 1e-6, 'µs': 1e-6, 'ns': 1e-9}
    for number, unit in re.findall(r'([0-9.]+)(h|ms|us|µs|ns|m|s)', text):
        total += float(number) * units[unit]
    return sign * round(total * 10**9)


def _encode_value(number, typ, value):
    if typ[0] == '*':
        typ = typ[1:]
    if typ in TYPES:
        return pw.field_bytes(number, encode_message(typ, value or {}))
    if typ in _VARINTS:
        return pw.field_varint(number, int(value))
    if typ == 'float64':
        return pw.field_double(number, float(value))
    if typ == 'string':
        return pw.field_bytes(number, value)
    if typ == 'bytes':
        return pw.field_bytes(number, base64.b64decode(value))
    if typ in ('Time', 'MicroTime'):
        return pw.field_bytes(number, _time_message(value, typ == 'MicroTime'))
    if typ == 'Duration':
        return pw.field_bytes(number, pw.field_varint(1, _duration_nanos(value)))
    if typ == 'Quantity':
        return pw.field_bytes(number, pw.field_bytes(1, str(value)))
    if typ == 'IntOrString':
        if isinstance(value, str):
            inner = pw.field_varint(1, 1) + pw.field_varint(2, 0) + pw.field_bytes(3, value)
        else:
            inner = pw.field_varint(1, 0) + pw.field_varint(2, int(value)) + pw.field_bytes(3, '')
        return pw.field_bytes(number, inner)
    if typ in ('RawExtension', 'FieldsV1'):
        raw = b'' if value is None else json.dumps(value, separators=(',', ':')).encode()
        return pw.field_bytes(number, pw.field_bytes(1, raw))
    raise ProtobufError(f'unknown type {typ}')


def encode_message(type_name, obj):
    """A Go struct's JSON form as its protobuf message."""
    out = b''
    for name, typ, number, flags, *_patch in sorted(
            (f for f in TYPES[type_name] if f[2] is not None), key=lambda f: f[2]):
        if 'i' in flags:
            out += pw.field_bytes(number, encode_message(typ.lstrip('*'), obj))
            continue
        value = obj.get(name)
        if value is None:
            continue
        if typ.startswith('[]'):
            for item in value:
                out += _encode_value(number, typ[2:], item)
        elif typ.startswith('map['):
            for key in sorted(value):
                entry = pw.field_bytes(1, key) + _encode_value(2, typ[4:-1], value[key])
                out += pw.field_bytes(number, entry)
        else:
            out += _encode_value(number, typ, value)
    return out


def encode(obj):
    """An object (or list, or Status) with its apiVersion and kind as an enveloped body, or None
    when the table does not know its type."""
    api_version, kind = obj.get('apiVersion', ''), obj.get('kind', '')
    type_name = type_of(api_version, kind)
    if type_name is None:
        return None
    return wrap(api_version, kind, encode_message(type_name, obj))


# ---- watch streams ------------------------------------------------------------------------------
def watch_frame(event_type, obj):
    """One event of a protobuf watch stream: the length-prefixed `metav1.WatchEvent`."""
    embedded = encode(obj)
    if embedded is None:
        raise ProtobufError(f'no protobuf type for {obj.get("apiVersion")}/{obj.get("kind")}')
    message = pw.field_bytes(1, event_type) + pw.field_bytes(2, pw.field_bytes(1, embedded))
    return struct.pack('>I', len(message)) + message


def read_watch_stream(data):
    """([(type, object in JSON form)], the bytes of an incomplete last frame) of a protobuf
    watch stream's bytes."""
    events, pos = [], 0
    while len(data) - pos >= 4:
        (length,) = struct.unpack('>I', data[pos:pos + 4])
        if len(data) - pos - 4 < length:
            break
        message = data[pos + 4:pos + 4 + length]
        pos += 4 + length
        event_type, raw = '', b''
        for number, _wire, value in pw.fields(message):
            if number == 1:
                event_type = value.decode()
            elif number == 2:
                raw = b''.join(v for n, _w, v in pw.fields(value) if n == 1)
        events.append((event_type, decode(raw)))
    return events, data[pos:]
