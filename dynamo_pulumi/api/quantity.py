"""``resource.Quantity`` in canonical form, as Go serializes one it has parsed.

The conversion webhook parses alpha quantities (``resources``, ``sharedMemory.size``) into
``resource.Quantity`` values, so the stored v1beta1 object holds their canonical spelling:
``1000m`` becomes ``1``, ``0.5Gi`` becomes ``512Mi``, ``1.5`` becomes ``1500m``. The rules follow
``Quantity.CanonicalizeBytes``: the input's format (binary suffix, decimal exponent, decimal SI)
is kept where it can be exact; binary values below 1024 or with a fraction fall back to decimal
SI; decimal mantissas carry no trailing zeros and exponents are multiples of three.
"""

from __future__ import annotations

import re
from decimal import ROUND_UP, Decimal
from typing import Literal

from kubernetes.utils import parse_quantity

QuantityFormat = Literal["BinarySI", "DecimalExponent", "DecimalSI"]

_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIXES = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_NANO = Decimal(10) ** 9
_BINARY_BASE = 1024


def quantity_format(text: str) -> QuantityFormat:
    """The format Go infers from a quantity's suffix."""
    if re.search(r"[KMGTPE]i$", text):
        return "BinarySI"
    if re.search(r"[eE][+-]?[0-9]+$", text):
        return "DecimalExponent"
    return "DecimalSI"


def _round_to_nano(value: Decimal) -> Decimal:
    """Go keeps at most nano precision, rounding away from zero."""
    scaled = value * _NANO
    integral = scaled.to_integral_value(rounding=ROUND_UP)
    return value if scaled == integral else integral / _NANO


def _binary(value: Decimal) -> str:
    amount, exponent = int(value), 0
    while amount % _BINARY_BASE == 0 and exponent < len(_BINARY_SUFFIXES) - 1:
        amount //= _BINARY_BASE
        exponent += 1
    return f"{amount}{_BINARY_SUFFIXES[exponent]}"


def _decimal(value: Decimal, fmt: QuantityFormat) -> str:
    amount, exponent = int(value * _NANO), -9
    while amount % 10 == 0:
        amount //= 10
        exponent += 1
    shift = exponent % 3  # Python's modulo keeps this in 0..2 for negative exponents too
    amount *= 10**shift
    exponent -= shift
    if fmt == "DecimalExponent":
        return f"{amount}e{exponent}" if exponent else str(amount)
    suffix = _DECIMAL_SUFFIXES.get(exponent)
    return f"{amount}{suffix}" if suffix is not None else f"{amount}e{exponent}"


def canonical_quantity(quantity: str | int) -> str:
    """The canonical string of a quantity; raises ValueError when it does not parse."""
    text = str(quantity).strip()
    value = _round_to_nano(Decimal(parse_quantity(text)))
    if value == 0:
        return "0"
    fmt = quantity_format(text)
    if fmt == "BinarySI":
        if -_BINARY_BASE < value < _BINARY_BASE or value != value.to_integral_value():
            return _decimal(value, "DecimalSI")
        return _binary(value)
    return _decimal(value, fmt)
