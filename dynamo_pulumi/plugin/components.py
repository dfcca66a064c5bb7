"""``Construct`` of the two components: the in-process classes, reached from any language.

The plugin does not render anything itself: it turns the schema's arguments into the very
arguments a Python program passes (:class:`DynamoGraphDeployment` /
:class:`DynamoComponentDeployment` of :mod:`dynamo_pulumi.resources.components`) and returns the
component's outputs as its state. One implementation, two doors: a graph deployed from
TypeScript registers the same children, with the same names, as the same graph from Python.

Readiness inside a constructed component is the plugin's own ``dynamo:index:GraphReadiness``
(a dynamic resource cannot be registered from a multi-language component, pulumi/pulumi#5455).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, cast

import pulumi
import yaml

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.sources import SourceText
from dynamo_pulumi.planning.placement import GpuPlacement
from dynamo_pulumi.plugin.tokens import DCD_OUTPUTS, DCD_TYPE, DGD_OUTPUTS, DGD_TYPE
from dynamo_pulumi.plugin.values import UNKNOWN, wire
from dynamo_pulumi.resources.components import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.resources.readiness import ReadinessOptions

#: The readiness settings a schema caller may give (``readiness`` argument), by schema name.
READINESS_FIELDS: Final = ("wait", "timeout", "kubeconfig", "context")



def _known(value: Any, path: str) -> Any:
    if isinstance(value, pulumi.Output) or value == UNKNOWN:
        raise InputError(f"{path}: must be known when the program runs (it decides what is rendered)")
    return value


def spec_source(value: Any, name: str) -> Any:
    """An object, a YAML file's path, or YAML text (a string holding a line break)."""
    _known(value, "spec")
    if isinstance(value, str) and "\n" in value:
        return SourceText(value, f"{name} spec")
    if isinstance(value, (str, Mapping)):
        return value
    raise InputError(f"spec: must be an object, a YAML file path or YAML text, not {type(value).__name__}")


def platform_source(value: Any) -> Any:
    """Like the spec: an object, a path, or YAML text; absent means the operator's defaults."""
    _known(value, "platform")
    if isinstance(value, str) and "\n" in value:
        return yaml.safe_load(value)
    return value


def placement_of(value: Any) -> GpuPlacement | None:
    if value is None:
        return None
    _known(value, "placement")
    if not isinstance(value, Mapping):
        raise InputError("placement: must be an object")
    return GpuPlacement(
        node_selector=dict(value.get("nodeSelector") or {}),
        tolerations=[dict(t) for t in value.get("tolerations") or []],
        gpu_resource_name=str(value.get("gpuResourceName") or "nvidia.com/gpu"),
        components=[str(c) for c in value.get("components") or []],
    )


def readiness_of(value: Any) -> ReadinessOptions:
    given = dict(value or {})
    unknown = sorted(set(given) - set(READINESS_FIELDS))
    if unknown:
        raise InputError(f"readiness: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(READINESS_FIELDS)}")
    options: dict[str, Any] = {key: given[key] for key in READINESS_FIELDS if given.get(key) is not None}
    return ReadinessOptions(**options, provider="plugin")


def build(resource_type: str, name: str, inputs: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.ComponentResource:
    """The Python component for ``resource_type`` (a refused input registers nothing)."""
    common: dict[str, Any] = {
        "namespace": inputs.get("namespace") or None,
        "platform": platform_source(inputs.get("platform")),
        "placement": placement_of(inputs.get("placement")),
        "opts": opts,
        "mode": _known(inputs.get("mode"), "mode") or None,
        "adopt": bool(inputs.get("adopt") or False),
        "readiness": readiness_of(inputs.get("readiness")),
    }
    spec = spec_source(inputs.get("spec"), name)
    if resource_type == DGD_TYPE:
        return DynamoGraphDeployment(name, spec, **common)
    if resource_type == DCD_TYPE:
        return DynamoComponentDeployment(name, spec, **common)
    raise InputError(f"unknown resource type {resource_type!r}")


def outputs_of(component: pulumi.ComponentResource) -> dict[str, pulumi.Output[Any]]:
    """The component's outputs by schema name, with the readiness state beside them."""
    names = DGD_OUTPUTS if isinstance(component, DynamoGraphDeployment) else DCD_OUTPUTS
    outputs = {key: cast(pulumi.Output[Any], getattr(component, attribute)) for key, attribute in names.items()}
    readiness = getattr(component, "readiness", None)
    outputs["state"] = readiness.state if readiness is not None else pulumi.Output.from_input("")
    return outputs


async def settled(output: pulumi.Output[Any]) -> Any:
    """An Output's value as a PropertyValue: unknown during preview as the engine's sentinel."""
    if not await output.is_known():
        return wire(UNKNOWN)
    value = wire(await output.future())
    return value.with_secret(True) if await output.is_secret() else value
