"""Canonical ``resource.Quantity`` text, as Kubernetes serialises a quantity it has parsed.

The operator copies ``sharedMemorySize`` into the pod's ``emptyDir.sizeLimit`` as a parsed
``Quantity``, so the stored pod says ``1Gi`` where the user wrote ``1024Mi`` and ``1500M`` for
``1.5G``. Parsing is :func:`dynamo_pulumi.api.quantity.parse_quantity`; this module only re-creates Go's
``CanonicalizeBytes``:

* the format follows the suffix: binary (``Ki`` ... ``Ei``), decimal SI (``n`` ... ``E`` or none),
  or decimal exponent (``e3``);
* a binary value that is not a whole number, or lies strictly between -1024 and 1024, is written
  in decimal SI instead (no rounding);
* binary: the largest power of 1024 dividing the value; decimal: the mantissa without trailing
  zeros and an exponent that is a multiple of three.

Values that are not plain numbers or strings (e.g. ``pulumi.Output``) are returned unchanged.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal
from functools import lru_cache
from typing import Any

from dynamo_pulumi.api.quantity import parse_quantity

_BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_BINARY_BY_POWER = {power: suffix for suffix, power in _BINARY_SUFFIXES.items()}
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXPONENT = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_EXPONENT = re.compile(r"^[eE][+-]?\d+$")
_NANO = Decimal("1e-9")


def canonical_quantity(value: Any) -> Any:
    """The canonical text of a quantity; unparseable or opaque values are returned as given."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return value
    return _canonical(value, type(value))


@lru_cache(maxsize=4096)
def _canonical(value: str | int | float, _kind: type) -> Any:
    """Remembered (the same few quantities recur in every pod); ``_kind`` keeps ``1`` and
    ``1.0`` apart."""
    text = str(value).strip()
    match = _NUMBER.match(text)
    if match is None:
        return value
    suffix = text[match.end():]
    try:
        amount = Decimal(parse_quantity(text))
    except ValueError:
        return value
    if amount == 0:
        return "0"
    if suffix in _BINARY_SUFFIXES:
        if -1024 < amount < 1024 or amount != amount.to_integral_value():
            return _decimal_text(amount, exponent_form=False)
        return _binary_text(int(amount))
    if suffix in _DECIMAL_SUFFIXES:
        return _decimal_text(amount, exponent_form=False)
    if _EXPONENT.match(suffix):
        return _decimal_text(amount, exponent_form=True)
    return value


def _binary_text(amount: int) -> str:
    power = 0
    while amount % 1024 == 0 and power < max(_BINARY_BY_POWER):
        amount //= 1024
        power += 1
    return f"{amount}{_BINARY_BY_POWER.get(power, '')}"


def _decimal_text(amount: Decimal, exponent_form: bool) -> str:
    """Mantissa and an exponent that is a multiple of 3; precision below nano rounds up (as Go)."""
    amount = amount.quantize(_NANO, rounding=ROUND_CEILING) if amount.as_tuple().exponent < -9 else amount  # type: ignore[operator]
    sign, digits, exponent = amount.normalize().as_tuple()
    mantissa = int("".join(map(str, digits))) * (-1 if sign else 1)
    shift = int(exponent) % 3
    mantissa *= 10**shift
    exponent = int(exponent) - shift
    if not exponent_form and exponent in _DECIMAL_BY_EXPONENT:
        return f"{mantissa}{_DECIMAL_BY_EXPONENT[exponent]}"
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)


def canonicalize_pod_quantities(pod_spec: dict[str, Any]) -> None:
    """Rewrite, in place, the quantities the operator holds as ``resource.Quantity`` in a pod spec:
    every container's and init container's ``resources.limits``/``requests``, and emptyDir
    ``sizeLimit``. A value typed as a number (``nvidia.com/gpu: 1``) becomes its string form."""
    for key in ("containers", "initContainers"):
        for container in pod_spec.get(key) or []:
            resources = container.get("resources")
            if not isinstance(resources, dict):
                continue
            for kind in ("limits", "requests"):
                values = resources.get(kind)
                if isinstance(values, dict):
                    resources[kind] = {name: canonical_quantity(v) for name, v in values.items()}
    for volume in pod_spec.get("volumes") or []:
        empty_dir = volume.get("emptyDir")
        if isinstance(empty_dir, dict) and "sizeLimit" in empty_dir:
            empty_dir["sizeLimit"] = canonical_quantity(empty_dir["sizeLimit"])
