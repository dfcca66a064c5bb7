"""Container resources: ``ValidateContainerResourceRequirements``, ``validateContainerResourceName``,
``ValidateResourceQuantityValue`` and ``ValidateNonnegativeQuantity``.

* every quantity non-negative (``must be greater than or equal to 0``);
* extended resources (``nvidia.com/gpu``: a domain-prefixed name outside ``kubernetes.io``) are
  whole numbers (``must be an integer``) and cannot be overcommitted: a request needs a limit
  (``Limit must be set for non overcommitable resources``) and must equal it (``must be equal to
  nvidia.com/gpu limit of 2``); hugepages alike;
* other requests at most their limit (``must be less than or equal to cpu limit of 2``);
* an unprefixed name is a standard container resource (cpu, memory, ephemeral-storage, hugepages-*).

A quantity that does not fit the 64-bit integer every consumer reads it as (``'1e400'``) is
refused here too: the scheduler and kubelet read ``Quantity.Value()``, which silently wraps.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, required
from dynamo_pulumi.floor.kube_names import label_key_problems
from dynamo_pulumi.floor.placeholders import contains_output_token
from dynamo_pulumi.validation.apiserver._common import mapping

NEGATIVE_MESSAGE = "must be greater than or equal to 0"
NOT_INTEGER_MESSAGE = "must be an integer"
NO_LIMIT_MESSAGE = "Limit must be set for non overcommitable resources"
#: ``resource.Quantity``'s largest value a consumer can read (``math.MaxInt64``).
MAX_QUANTITY = Decimal(2**63 - 1)
TOO_LARGE_MESSAGE = f"must be no greater than {MAX_QUANTITY} (the largest quantity Kubernetes can read as a number)"
_STANDARD_CONTAINER = ("cpu", "memory", "ephemeral-storage")
_HUGEPAGES = "hugepages-"


def is_native(name: str) -> bool:
    """``IsNativeResource``: no domain, or the ``kubernetes.io`` domain."""
    return "/" not in name or "kubernetes.io/" in name


def is_hugepages(name: str) -> bool:
    return name.startswith(_HUGEPAGES)


def is_extended(name: str) -> bool:
    """``IsExtendedResourceName``: a valid qualified name outside the native domain."""
    if is_native(name) or name.startswith("requests."):
        return False
    return not label_key_problems(f"requests.{name}")


def overcommit_allowed(name: str) -> bool:
    """``IsOvercommitAllowed``: native and not hugepages."""
    return is_native(name) and not is_hugepages(name)


def resource_name_errors(name: str, path: Path) -> list[FieldError]:
    """``validateContainerResourceName``."""
    errors = [invalid(path, name, p) for p in label_key_problems(name)]
    if "/" not in name:
        if name not in _STANDARD_CONTAINER and not is_hugepages(name):
            errors.append(invalid(path, name, "must be a standard resource for containers"))
    elif not is_native(name) and not is_extended(name):
        errors.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def parsed(raw: Any) -> Decimal | None:
    """The quantity's value, None when not known or not a quantity (the schema stage refuses
    those) or not finite."""
    if isinstance(raw, str) and contains_output_token(raw):
        return None
    try:
        value = parse_quantity(raw)
    except (ValueError, ArithmeticError):
        return None
    return value if value.is_finite() else None


def quantity_text(raw: Any) -> str:
    return raw if isinstance(raw, str) else str(raw)


def quantity_value_errors(name: str, raw: Any, path: Path) -> list[FieldError]:
    """``ValidateResourceQuantityValue`` (and the 64-bit bound)."""
    value = parsed(raw)
    if value is None:
        return []
    if value < 0:
        return [invalid(path, quantity_text(raw), NEGATIVE_MESSAGE)]
    if value > MAX_QUANTITY:
        return [invalid(path, quantity_text(raw), TOO_LARGE_MESSAGE)]
    if is_extended(name) and value != value.to_integral_value():
        return [invalid(path, quantity_text(raw), NOT_INTEGER_MESSAGE)]
    return []


def resource_requirement_errors(resources: Any, path: Path) -> list[FieldError]:
    """``ValidateContainerResourceRequirements``."""
    spec = mapping(resources)
    limits, requests = mapping(spec.get("limits")), mapping(spec.get("requests"))
    errors: list[FieldError] = []
    for name, raw in limits.items():
        errors += _entry_errors(str(name), raw, path.child("limits").key(str(name)))
    for name, raw in requests.items():
        errors += _entry_errors(str(name), raw, path.child("requests").key(str(name)))
        errors += _request_vs_limit(str(name), raw, limits, path)
    if _hugepages_without_compute(limits, requests):
        errors.append(forbidden(path, "HugePages require cpu or memory"))
    return errors


def _entry_errors(name: str, raw: Any, path: Path) -> list[FieldError]:
    if contains_output_token(name):
        return []
    return resource_name_errors(name, path) + quantity_value_errors(name, raw, path)


def _request_vs_limit(name: str, raw: Any, limits: Mapping[str, Any], path: Path) -> list[FieldError]:
    request = parsed(raw)
    if request is None:
        return []
    if name not in limits:
        return [] if overcommit_allowed(name) else [required(path.child("limits"), NO_LIMIT_MESSAGE)]
    limit = parsed(limits[name])
    if limit is None or request == limit:
        return []
    shown = canonical(limits[name])
    if not overcommit_allowed(name):
        return [invalid(path.child("requests"), quantity_text(raw), f"must be equal to {name} limit of {shown}")]
    if request > limit:
        return [invalid(path.child("requests"), quantity_text(raw), f"must be less than or equal to {name} limit of {shown}")]
    return []


def canonical(raw: Any) -> str:
    """The quantity as the API server prints it (``limitQuantity.String()``)."""
    from dynamo_pulumi.api.quantity import canonical_quantity

    try:
        return canonical_quantity(raw if isinstance(raw, (str, int)) else str(raw))
    except (ValueError, ArithmeticError):
        return quantity_text(raw)


def _hugepages_without_compute(limits: Mapping[str, Any], requests: Mapping[str, Any]) -> bool:
    names = [str(n) for n in (*limits, *requests)]
    return any(is_hugepages(n) for n in names) and not any(n in ("cpu", "memory") for n in names)

