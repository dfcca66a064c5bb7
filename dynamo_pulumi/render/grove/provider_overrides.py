"""Provider-native Grove overrides composed onto the rendered PodCliqueSet (section 6).

Overrides are applied last, on the plain-dict PCS, so fields newer than our renderer survive
untouched (``ComposeGroveOverrides``):

* ``spec.providerOverride`` (target ``PodCliqueSet``): its ``spec.template.topologyConstraint``
  replaces the PCS template constraint;
* ``components[].providerOverride``: ``topologyConstraint`` and ``rollingUpdate`` land on the clique
  (``PodCliqueTemplateSpec``) or scaling group (``PodCliqueScalingGroupConfig``) named after the
  component; the native minimum is read during rendering (:func:`effective_min_available`);
* ``components[].roles[leader|worker].providerOverride`` (or the snapshot spelling
  ``components[].multinode.leader|worker.providerOverride``; ``roles[]`` wins, admission refuses
  both): ``topologyConstraint`` on ``<c>-ldr`` / ``<c>-wkr``.

A destination that was not rendered is a render error, as in the operator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import GROVE_ROLE_SUFFIX_LEADER, GROVE_ROLE_SUFFIX_WORKER

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        ComponentSpecFields,
        DynamoComponentDeploymentSharedSpec,
        DynamoGraphDeployment,
        ProviderOverride,
    )

# The provider-override target kinds (``provideroverride.Target*``).
TARGET_POD_CLIQUE_SET = "PodCliqueSet"
TARGET_POD_CLIQUE_TEMPLATE_SPEC = "PodCliqueTemplateSpec"
TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG = "PodCliqueScalingGroupConfig"
#: Fields a component/role fragment may place on its destination entry.
_ENTRY_FIELDS = ("topologyConstraint", "rollingUpdate")
_ROLE_SUFFIXES = {"leader": GROVE_ROLE_SUFFIX_LEADER, "worker": GROVE_ROLE_SUFFIX_WORKER}
DEFAULT_GROVE_MIN_AVAILABLE = 1


def component_target(component: ComponentSpecFields, override: ProviderOverride) -> str:
    """The persisted target, or the one admission would resolve from the component's shape."""
    if override.target:
        return override.target
    if component.uses_pcsg:
        return TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG
    return TARGET_POD_CLIQUE_TEMPLATE_SPEC


def override_min_available(component: ComponentSpecFields) -> int | None:
    """The native minimum a component override carries (``minAvailable`` / ``spec.minAvailable``)."""
    override = component.provider_override
    if override is None:
        return None
    value = override.value or {}
    if component_target(component, override) == TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG:
        found = value.get("minAvailable")
    else:
        found = (value.get("spec") or {}).get("minAvailable")
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def effective_min_available(component: ComponentSpecFields) -> int:
    """``EffectiveGroveMinAvailable``: legacy field, else the override's minimum, else 1."""
    if component.min_available is not None:
        return component.min_available
    from_override = override_min_available(component)
    return from_override if from_override is not None else DEFAULT_GROVE_MIN_AVAILABLE


def compose_overrides(dgd: DynamoGraphDeployment, pcs: dict[str, Any]) -> dict[str, Any]:
    """Apply every override of ``dgd`` to the rendered ``pcs`` (in place) and return it."""
    root = dgd.spec.provider_override
    if root is not None:
        _apply_root(pcs, root)
    for i, component in enumerate(dgd.components):
        path = f"spec.components[{i}]"
        if component.provider_override is not None:
            _apply_component(pcs, component, component.provider_override, f"{path}.providerOverride")
        for role, suffix in _ROLE_SUFFIXES.items():
            override = component.role_provider_override(role)
            if override is None:
                continue
            clique = f"{component.name}-{suffix}".lower()
            fragment = _pick(override.value or {}, ("topologyConstraint",))
            _set_on_entry(pcs, "cliques", clique, fragment, _role_override_path(component, role, path))
    return pcs


def _role_override_path(component: ComponentSpecFields, role: str, path: str) -> str:
    """Where a role's override was written: ``roles[j]`` first, else ``multinode.<role>``."""
    for j, spec in enumerate(component.roles or []):
        if spec.name == role and spec.provider_override is not None:
            return f"{path}.roles[{j}].providerOverride"
    return f"{path}.multinode.{role}.providerOverride"


def _apply_root(pcs: dict[str, Any], override: ProviderOverride) -> None:
    template = ((override.value or {}).get("spec") or {}).get("template") or {}
    if "topologyConstraint" in template:
        pcs["spec"]["template"]["topologyConstraint"] = template["topologyConstraint"]


def _apply_component(
    pcs: dict[str, Any],
    component: DynamoComponentDeploymentSharedSpec,
    override: ProviderOverride,
    path: str,
) -> None:
    target = component_target(component, override)
    if target == TARGET_POD_CLIQUE_TEMPLATE_SPEC:
        key = "cliques"
    elif target == TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG:
        key = "podCliqueScalingGroups"
    else:
        raise RenderError(f'unsupported target "{target}"', path)
    fragment = _pick(override.value or {}, _ENTRY_FIELDS)
    _set_on_entry(pcs, key, component.name.lower(), fragment, path)


def _pick(value: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: value[k] for k in keys if k in value}


def _set_on_entry(pcs: dict[str, Any], key: str, name: str, fragment: dict[str, Any], path: str) -> None:
    """Write ``fragment`` onto the list entry ``name``; a missing entry is an error."""
    entries = pcs["spec"]["template"].get(key) or []
    for entry in entries:
        if entry.get("name") == name:
            entry.update(fragment)
            return
    raise RenderError(f'rendered PodCliqueSet has no {key} entry named "{name}"', path)
