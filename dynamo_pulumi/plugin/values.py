"""Property values on the wire <-> the plain Python the readiness core and the components read.

Three things differ between what the engine sends a plugin and what a Python program holds:

* numbers are doubles: ``replicas: 1`` arrives as ``1.0``, and the spec models refuse a float
  where Kubernetes wants an integer, so an integral double becomes the ``int`` the user wrote;
* a value not known during preview is a ``Computed`` marker; the core already understands the
  engine's wire sentinel for it (:data:`UNKNOWN`, as the dynamic host passes it), and the
  experimental SDK cannot send a ``Computed`` back (its marshaller refuses it), so unknown values
  travel as that sentinel string both ways: the engine reads it as "computed";
* secrets are wrapped; the core reads the plain value and the transport re-wraps the outputs
  whose input was secret (the kubeconfig), so a secret never comes back in the clear.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from pulumi.provider.experimental.property_value import Computed, PropertyValue
from pulumi.runtime.rpc import UNKNOWN as UNKNOWN  # the sentinel the readiness core also knows

from dynamo_pulumi.floor.wire_numbers import as_written

#: Inputs that are always returned as secrets, whether or not they arrived as one.
ALWAYS_SECRET: Final = frozenset({"kubeconfig"})


def plain(value: PropertyValue) -> Any:
    """The Python value ``value`` holds: secrets unwrapped, integral doubles as ints, unknowns
    as :data:`UNKNOWN`."""
    inner = value.value
    if isinstance(inner, Computed):
        return UNKNOWN
    if isinstance(inner, Mapping):
        return {key: plain(item) for key, item in inner.items()}
    if isinstance(inner, (list, tuple)):
        return [plain(item) for item in inner]
    return as_written(inner)


def program_value(value: PropertyValue) -> Any:
    """``value`` as a Python program holds it: unknowns and secrets as ``pulumi.Output``s (the
    components park Outputs inside a spec and render around them, as for a Python program)."""
    import pulumi

    inner = value.value
    if isinstance(inner, Computed):
        return _output(None, known=False, secret=value.is_secret)
    if isinstance(inner, Mapping):
        result: Any = {key: program_value(item) for key, item in inner.items()}
    elif isinstance(inner, (list, tuple)):
        result = [program_value(item) for item in inner]
    else:
        result = plain(value)
    return pulumi.Output.secret(result) if value.is_secret else result


def _output(result: Any, known: bool, secret: bool) -> Any:
    import asyncio

    import pulumi

    loop = asyncio.get_event_loop()
    futures = [loop.create_future() for _ in range(3)]
    for future, settled in zip(futures, (result, known, secret), strict=True):
        future.set_result(settled)
    return pulumi.Output(set(), futures[0], futures[1], futures[2])


def plain_map(props: Mapping[str, PropertyValue]) -> dict[str, Any]:
    return {key: plain(value) for key, value in props.items()}


def secret_keys(props: Mapping[str, PropertyValue]) -> set[str]:
    """Top-level keys whose value is or holds a secret (returned as secrets again)."""
    return {key for key, value in props.items() if value.contains_secret()}


def wire(value: Any) -> PropertyValue:
    """A Python value as a PropertyValue (ints as doubles, the wire's only number)."""
    if isinstance(value, PropertyValue):
        return value
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return PropertyValue(value) if value is not None else PropertyValue.null()
    if isinstance(value, (int, float)):
        return PropertyValue(float(value))
    if isinstance(value, Mapping):
        return PropertyValue({str(key): wire(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return PropertyValue([wire(item) for item in value])
    raise TypeError(f"cannot send a {type(value).__name__} to the engine")


def wire_map(props: Mapping[str, Any], secrets: Iterable[str] = ()) -> dict[str, PropertyValue]:
    """``props`` on the wire, the keys in ``secrets`` (and :data:`ALWAYS_SECRET`) as secrets."""
    hidden = set(secrets) | ALWAYS_SECRET
    out = {}
    for key, value in props.items():
        converted = wire(value)
        out[key] = converted.with_secret(True) if key in hidden and value is not None else converted
    return out
