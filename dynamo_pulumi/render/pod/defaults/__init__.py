"""Per-type component defaults: the base container and base pod spec the user's template is
merged over (``ComponentDefaultsFactory``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_DECODE,
    COMPONENT_TYPE_EPP,
    COMPONENT_TYPE_FRONTEND,
    COMPONENT_TYPE_PLANNER,
    COMPONENT_TYPE_PREFILL,
    COMPONENT_TYPE_WORKER,
)
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.render.pod.defaults import default, epp, frontend, planner, worker
from dynamo_pulumi.render.pod.defaults.common import DefaultsContext

__all__ = ["ComponentDefaults", "DefaultsContext", "defaults_for"]


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class ComponentDefaults:
    base_container: Callable[[DefaultsContext], dict[str, Any]]
    base_pod_spec: Callable[[DefaultsContext], dict[str, Any]]


_BY_TYPE: dict[str, ComponentDefaults] = {
    COMPONENT_TYPE_FRONTEND: ComponentDefaults(frontend.base_container, frontend.base_pod_spec),
    COMPONENT_TYPE_WORKER: ComponentDefaults(worker.base_container, worker.base_pod_spec),
    COMPONENT_TYPE_PREFILL: ComponentDefaults(worker.base_container, worker.base_pod_spec),
    COMPONENT_TYPE_DECODE: ComponentDefaults(worker.base_container, worker.base_pod_spec),
    COMPONENT_TYPE_PLANNER: ComponentDefaults(planner.base_container, planner.base_pod_spec),
    COMPONENT_TYPE_EPP: ComponentDefaults(epp.base_container, epp.base_pod_spec),
}
_DEFAULT = ComponentDefaults(default.base_container, default.base_pod_spec)


def defaults_for(component_type: str | None) -> ComponentDefaults:
    """The defaults of a component type; unknown or empty types get the common container only."""
    return _BY_TYPE.get(component_type or "", _DEFAULT)
