"""The protobuf wire format, generically: varints, tags, length-delimited fields, fixed 64-bit
values. Messages are written as bytes from (field number, value) pieces and read back as a list of
(field number, wire type, value); what the fields mean is the caller's table (gotypes_table.py for
Kubernetes objects, apiserver/openapi_v2.py for the OpenAPI v2 document).
"""

import struct

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


class WireError(ValueError):
    """Bytes that are not a well-formed protobuf message."""


def varint(value):
    """A varint; negative values as their 64-bit two's complement (ten bytes), as Go writes int32
    and int64 fields."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def key(number, wire_type):
    return varint(number << 3 | wire_type)


def field_varint(number, value):
    return key(number, VARINT) + varint(int(value))


def field_bytes(number, data):
    if isinstance(data, str):
        data = data.encode()
    return key(number, BYTES) + varint(len(data)) + data


def field_double(number, value):
    return key(number, FIXED64) + struct.pack('<d', value)


def read_varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise WireError('truncated varint')
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError('varint too long')


def signed(value, bits=64):
    """A varint read back as the signed integer Go wrote (int32 and int64 fields)."""
    if value >= 1 << (bits - 1):
        value -= 1 << 64 if bits == 64 else 1 << bits
    return value


def fields(data):
    """[(field number, wire type, value)] of one message: an int for varints and fixed values,
    bytes for length-delimited ones (a nested message, a string, packed scalars)."""
    out, pos = [], 0
    while pos < len(data):
        tag, pos = read_varint(data, pos)
        number, wire_type = tag >> 3, tag & 7
        if number == 0:
            raise WireError('field number 0')
        if wire_type == VARINT:
            value, pos = read_varint(data, pos)
        elif wire_type == BYTES:
            length, pos = read_varint(data, pos)
            if pos + length > len(data):
                raise WireError('truncated length-delimited field')
            value, pos = bytes(data[pos:pos + length]), pos + length
        elif wire_type == FIXED64:
            if pos + 8 > len(data):
                raise WireError('truncated fixed64 field')
            value, pos = int.from_bytes(data[pos:pos + 8], 'little'), pos + 8
        elif wire_type == FIXED32:
            if pos + 4 > len(data):
                raise WireError('truncated fixed32 field')
            value, pos = int.from_bytes(data[pos:pos + 4], 'little'), pos + 4
        else:
            raise WireError(f'unsupported wire type {wire_type}')
        out.append((number, wire_type, value))
    return out


def packed_varints(data):
    """The values of a packed repeated varint field."""
    out, pos = [], 0
    while pos < len(data):
        value, pos = read_varint(data, pos)
        out.append(value)
    return out
