"""Resource quantities ("500m", "2", "128Mi", "1G"): parsing, summing and printing them back.

`go_parse_quantity`, `go_quantity_string` and `go_round_up` are resource.Quantity's ParseQuantity,
String() and RoundUp: the Go value the API server and the controllers hold, field for field.
`Quantity` is the arithmetic view of it the quota, scheduler and HPA code sums: an exact `Fraction`
and whether it was given in binary units; it prints as String() prints the sum.
"""

import json
import math
from fractions import Fraction


class Quantity:
    __slots__ = ('value', 'binary')

    def __init__(self, value, binary=False):
        self.value = Fraction(value)
        self.binary = binary

    def __add__(self, other):
        return Quantity(self.value + other.value, self.binary or other.binary)

    def __str__(self):
        return format_quantity(self.value, self.binary)


def parse_quantity(text):
    """A `Quantity` from a string or number, as ParseQuantity reads it; ValueError when it is not one."""
    parsed = go_parse_quantity(text)
    return Quantity(parsed.value, parsed.format == 'BinarySI')


def format_quantity(value, binary=False):
    """A value as Quantity.String() prints it (BinarySI when `binary`, else DecimalSI), rounded up to
    nano units as a Quantity holds it."""
    value = Fraction(value)
    nanos = _round_away(value.numerator * 10 ** 9, value.denominator)
    return go_quantity_string(GoQuantity(d=(nanos, 9), format='BinarySI' if binary else 'DecimalSI'))


# ---- the Go value ----------------------------------------------------------------------------
# resource.Quantity as apimachinery holds it (pkg/api/resource/quantity.go, amount.go, suffix.go):
# a fast form `i` (an int64 `value` times 10**`scale`) or, for what does not fit, an inf.Dec `d`
# (an `unscaled` big integer over 10**`scale`); `s`, the text it was parsed from when that text is
# already canonical; and the `Format` (DecimalSI, BinarySI, DecimalExponent). The controllers hash
# this value field by field, so its exact shape is a fact kubesim must reproduce.
INT64_MAX = 2 ** 63 - 1
_BINARY = {'Ki': 10, 'Mi': 20, 'Gi': 30, 'Ti': 40, 'Pi': 50, 'Ei': 60}
_DECIMAL = {'n': -9, 'u': -6, 'm': -3, '': 0, 'k': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15, 'E': 18}
_DECIMAL_SUFFIX = {exp: suffix for suffix, exp in _DECIMAL.items()}
_BINARY_SUFFIX = {exp: suffix for suffix, exp in _BINARY.items()}
_NANO = -9
_MAX_INT64_DIGITS = 18


class GoQuantity:
    """One resource.Quantity: `i` is `(value, scale)` or None when `d` (`(unscaled, scale)` of an
    inf.Dec, value = unscaled / 10**scale) holds it; `s` the cached text; `format`."""
    __slots__ = ('i', 'd', 's', 'format')

    def __init__(self, i=None, d=None, s='', format='DecimalSI'):
        self.i, self.d, self.s, self.format = i, d, s, format

    @property
    def value(self):
        if self.d is not None:
            unscaled, scale = self.d
            return Fraction(unscaled, 10 ** scale) if scale >= 0 else Fraction(unscaled * 10 ** -scale)
        value, scale = self.i or (0, 0)
        return Fraction(value * 10 ** scale) if scale >= 0 else Fraction(value, 10 ** -scale)

    def __repr__(self):
        return f'GoQuantity(i={self.i!r}, d={self.d!r}, s={self.s!r}, format={self.format!r})'


def _split_quantity(text):
    """The parts of a quantity's text, scanned as parseQuantityString does: sign, the number as
    written (`value`), its whole digits without leading zeros (`num`), its fraction digits
    (`denom`) and the suffix. ValueError when the text has a stray character."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in '+-':
        positive = text[0] != '-'
        pos += 1
    while pos < end and text[pos] == '0':
        pos += 1
    if pos >= end:
        return positive, '0', '0', '', ''
    start = pos
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    num = text[start:pos] or '0'
    if pos >= end:
        return positive, text, num, '', ''
    denom = ''
    if text[pos] == '.':
        pos += 1
        start = pos
        while pos < end and text[pos].isdigit() and text[pos].isascii():
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ''
    value, suffix_start = text[:pos], pos
    while pos < end and text[pos] in 'eEinumkKMGTP':
        pos += 1
    if pos < end and text[pos] in '+-':
        pos += 1
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    if pos < end:
        raise ValueError('quantities must match the regular expression '
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    return positive, value, num, denom, text[suffix_start:]


def _interpret_suffix(suffix):
    """(base, exponent, format) of a suffix; ValueError for an unknown one."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], 'DecimalSI'
    if suffix in _BINARY:
        return 2, _BINARY[suffix], 'BinarySI'
    if len(suffix) > 1 and suffix[0] in 'eE':
        try:
            exponent = int(suffix[1:], 10)
        except ValueError:
            exponent = None
        if exponent is not None and -2 ** 63 <= exponent < 2 ** 63 and '_' not in suffix:
            return 10, (exponent + 2 ** 31) % 2 ** 32 - 2 ** 31, 'DecimalExponent'
    raise ValueError('unable to parse quantity\'s suffix')


def _round_away(numerator, denominator):
    """numerator / denominator rounded away from zero to an integer."""
    quotient = abs(numerator) // denominator
    if abs(numerator) % denominator:
        quotient += 1
    return quotient if numerator >= 0 else -quotient


def go_parse_quantity(text):
    """The Quantity resource.ParseQuantity makes of `text` (ValueError as its errors)."""
    if isinstance(text, bool):
        raise ValueError('quantities must be strings or numbers')
    if isinstance(text, (int, float)):
        text = json.dumps(text)
    text = text.strip()
    if not text:
        raise ValueError('quantities must match the regular expression '
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    if text == '0':
        return GoQuantity(i=(0, 0), s='0', format='DecimalSI')
    positive, value, num, denom, suffix = _split_quantity(text)
    base, exponent, fmt = _interpret_suffix(suffix)
    precision, scale, mantissa = 0, 0, 1
    if fmt in ('DecimalExponent', 'DecimalSI'):
        scale = exponent
        precision = _MAX_INT64_DIGITS - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        # the float32 product of the Go source, truncated: 3 digits per 10 binary places
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            shifted = num + denom
            number = int(shifted)
            if number > INT64_MAX:
                raise ValueError("unable to parse quantity's numeric value")
            result = number * mantissa
            if result <= INT64_MAX:
                result = result if positive else -result
                cached = ''
                if fmt == 'BinarySI':
                    if exponent % 10 == 0 and number & 0x07:
                        cached = text
                elif scale % 3 == 0 and not shifted.endswith('000') and shifted[0] != '0':
                    cached = text
                return GoQuantity(i=(result, scale), s=cached, format=fmt)
    # the slow path: an inf.Dec, rounded up to nano units
    digits = value.lstrip('+-')
    whole, _, fraction = digits.partition('.')
    if not (whole + fraction).isdigit():
        raise ValueError("unable to parse quantity's numeric value")
    unscaled = int(whole + fraction) * (-1 if value.startswith('-') else 1)
    dec_scale = len(fraction)
    if base == 10:
        dec_scale -= exponent
    else:
        unscaled <<= exponent
    negative = unscaled < 0
    unscaled = abs(unscaled)
    if unscaled:
        # inf.Dec.Round(x, 9, RoundUp): the result has scale 9, rounded away from zero
        if dec_scale > -_NANO:
            unscaled = _round_away(unscaled, 10 ** (dec_scale + _NANO))
        else:
            unscaled *= 10 ** (-_NANO - dec_scale)
        dec_scale = -_NANO
    if fmt == 'BinarySI' and Fraction(unscaled, 10 ** dec_scale) > INT64_MAX:
        unscaled, dec_scale = INT64_MAX, 0
    if fmt == 'BinarySI' and 0 < Fraction(unscaled, 10 ** dec_scale) < 1:
        fmt = 'DecimalSI'
    return GoQuantity(d=(-unscaled if negative else unscaled, dec_scale), format=fmt)


def _decimal_parts(value):
    """(mantissa, exponent) with value == mantissa * 10**exponent, the exponent a multiple of 3
    and the mantissa holding no other factor of ten (CanonicalizeBytes' decimal form)."""
    exponent = 0
    numerator, denominator = value.numerator, value.denominator
    while denominator != 1:
        numerator *= 10
        exponent -= 1
        if numerator % denominator == 0:
            numerator //= denominator
            denominator = 1
        else:
            common = math.gcd(numerator, denominator)
            numerator, denominator = numerator // common, denominator // common
    while numerator and numerator % 10 == 0:
        numerator //= 10
        exponent += 1
    shift = exponent % 3
    return numerator * 10 ** shift, exponent - shift


def go_quantity_string(quantity):
    """Quantity.String(): the cached text, or the canonical form of the value and format."""
    if quantity.s:
        return quantity.s
    value = quantity.value
    if value == 0:
        return '0'
    fmt = quantity.format
    if fmt not in ('DecimalExponent', 'DecimalSI', 'BinarySI'):
        fmt = 'DecimalExponent'
    if fmt == 'BinarySI' and (-1024 < value < 1024 or value.denominator != 1):
        fmt = 'DecimalSI'
    if fmt == 'BinarySI':
        number, times = int(value), 0
        while abs(number) >= 1024 and number % 1024 == 0:
            number //= 1024
            times += 1
        return f'{number}{_BINARY_SUFFIX.get(times * 10, "")}'
    mantissa, exponent = _decimal_parts(value)
    if fmt == 'DecimalSI':
        return f'{mantissa}{_DECIMAL_SUFFIX.get(exponent, "")}'
    return f'{mantissa}e{exponent}' if exponent else str(mantissa)


def go_round_up(quantity, scale):
    """Quantity.RoundUp(scale): rounded away from zero to units of 10**scale (the API server's
    defaulting does it to milli units, -3, for every ResourceList)."""
    if quantity.d is not None:
        unscaled, dec_scale = quantity.d
        if dec_scale > -scale:
            unscaled = _round_away(unscaled, 10 ** (dec_scale + scale))
        else:
            unscaled *= 10 ** (-scale - dec_scale)
        return GoQuantity(d=(unscaled, -scale), format=quantity.format)
    value, own_scale = quantity.i
    if own_scale >= scale:
        return quantity
    return GoQuantity(i=(_round_away(value, 10 ** (scale - own_scale)), scale), format=quantity.format)
