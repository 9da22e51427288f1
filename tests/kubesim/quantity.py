"""Resource quantities ("500m", "2", "128Mi", "1G"): parsing, summing and printing them back.

Values are exact `Fraction`s. `format_quantity` prints a value the way resource.Quantity.String()
does for the usual cases: binary suffixes (Ki..Ei) for memory given in binary units, otherwise the
largest decimal suffix that keeps the number whole ("1", "500m", "2k", "1G").
"""

import re
from fractions import Fraction

_BINARY = {'Ki': 2 ** 10, 'Mi': 2 ** 20, 'Gi': 2 ** 30, 'Ti': 2 ** 40, 'Pi': 2 ** 50, 'Ei': 2 ** 60}
_DECIMAL = {'n': Fraction(1, 10 ** 9), 'u': Fraction(1, 10 ** 6), 'm': Fraction(1, 1000), '': 1,
            'k': 10 ** 3, 'M': 10 ** 6, 'G': 10 ** 9, 'T': 10 ** 12, 'P': 10 ** 15, 'E': 10 ** 18}
_QUANTITY = re.compile(r'^([+-]?[0-9.]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$')


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
    """A `Quantity` from a string or number; ValueError when it is not one."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return Quantity(Fraction(str(text)))
    match = _QUANTITY.match(str(text).strip())
    if not match:
        raise ValueError('quantities must match the regular expression '
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    number, exponent, suffix = match.groups()
    value = Fraction(number)
    if exponent:
        return Quantity(value * Fraction(10) ** int(exponent[1:]))
    if suffix in _BINARY:
        return Quantity(value * _BINARY[suffix], binary=True)
    return Quantity(value * _DECIMAL[suffix or ''])


def format_quantity(value, binary=False):
    value = Fraction(value)
    if binary and value.denominator == 1 and value:
        for suffix, size in sorted(_BINARY.items(), key=lambda kv: -kv[1]):
            if value % size == 0:
                return f'{value // size}{suffix}'
    for suffix, size in sorted(_DECIMAL.items(), key=lambda kv: -Fraction(kv[1])):
        scaled = value / Fraction(size)
        if scaled.denominator == 1 and (value == 0 or abs(scaled) >= 1):
            if value == 0:
                return '0'
            return f'{scaled.numerator}{suffix}'
    return str(float(value))
