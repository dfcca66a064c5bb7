"""``resource.Quantity`` in canonical form, as Go serializes one it has parsed.

The conversion webhook parses alpha quantities (``resources``, ``sharedMemory.size``) into
``resource.Quantity`` values, so the stored v1beta1 object holds their canonical spelling:
``1000m`` becomes ``1``, ``0.5Gi`` becomes ``512Mi``, ``1.5`` becomes ``1500m``. The rules follow
``Quantity.CanonicalizeBytes``: the input's format (binary suffix, decimal exponent, decimal SI)
is kept where it can be exact; binary values below 1024 or with a fraction fall back to decimal
SI; decimal mantissas carry no trailing zeros and exponents are multiples of three.

:func:`parse_quantity` is the one quantity parser of the package (validation, conversion and
rendering all use it); it lives here rather than coming from the ``kubernetes`` client so that
the offline tools never import that client (half a second of start-up for one function).
"""

from __future__ import annotations

import re
from decimal import ROUND_UP, Decimal, DecimalException
from typing import Any, Literal

QuantityFormat = Literal["BinarySI", "DecimalExponent", "DecimalSI"]

_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIXES = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_NANO = Decimal(10) ** 9
_BINARY_BASE = 1024


#: ``resource.Quantity``'s grammar: a signed decimal number and an optional suffix (binary SI,
#: decimal SI, or a decimal exponent).
_QUANTITY_RE = re.compile(
    r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>[KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)
_BINARY_POWERS = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_POWERS = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def parse_quantity(quantity: Any) -> Decimal:
    """The exact value of a ``resource.Quantity`` (``"200Mi"``, ``"1.5"``, ``"1e3"``, ``4``).

    Numbers are taken as they are; text must follow Kubernetes' quantity grammar. Raises
    ValueError for anything else (booleans, empty text, unknown suffixes, ``nan``)."""
    if isinstance(quantity, bool):
        raise ValueError(f"{quantity!r} is not a quantity")
    if isinstance(quantity, (int, Decimal)):
        return Decimal(quantity)
    if isinstance(quantity, float):
        if quantity != quantity or quantity in (float("inf"), float("-inf")):
            raise ValueError(f"{quantity!r} is not a quantity")
        return Decimal(quantity)
    match = _QUANTITY_RE.match(str(quantity))
    if match is None:
        raise ValueError(f"{quantity!r} is not a quantity")
    number, suffix = Decimal(match.group("number")), match.group("suffix")
    if suffix is None:
        return number
    try:
        if suffix in _BINARY_POWERS:
            return number * (1024 ** _BINARY_POWERS[suffix])
        if suffix in _DECIMAL_POWERS:
            return number.scaleb(_DECIMAL_POWERS[suffix])
        return number.scaleb(int(suffix[1:]))
    except DecimalException as exc:
        raise ValueError(f"{quantity!r} is out of range") from exc


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
