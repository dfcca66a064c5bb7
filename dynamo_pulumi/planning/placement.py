"""Put a graph's GPU components on a GPU node pool with one argument.

A node pool made in the same program (EKS managed node group, GKE node pool, AKS node pool)
exposes its label and taint as Outputs; ``GpuPlacement`` carries them and is applied to the
*spec* of every GPU component before validation and rendering, exactly as if the user had written
the nodeSelector and tolerations into each component's ``podTemplate``. CPU components (frontend,
planner, epp without GPUs) are left alone, so they can land on cheaper nodes (ecosystem.md,
issues #3873 and aicr #2233).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dynamo_pulumi.floor.constants import WORKER_COMPONENT_TYPES
from dynamo_pulumi.floor.records import field, record

DEFAULT_GPU_RESOURCE = "nvidia.com/gpu"


@record
class GpuPlacement:
    """Node selector and tolerations for GPU components; values may be ``pulumi.Output``s."""

    node_selector: Mapping[str, Any] = field(default_factory=dict)
    tolerations: Sequence[Mapping[str, Any]] = ()
    #: The extended resource the pool offers (``nvidia.com/gpu``, a MIG profile such as
    #: ``nvidia.com/mig-3g.40gb``, ``amd.com/gpu``). GPU components' ``nvidia.com/gpu`` requests
    #: and limits are rewritten to it.
    gpu_resource_name: str = DEFAULT_GPU_RESOURCE
    #: Explicit component names; when empty, GPU components are found from the spec.
    components: Sequence[str] = ()

    def targets(self, component: Mapping[str, Any]) -> bool:
        if self.components:
            return component.get("name") in self.components
        return component.get("type") in WORKER_COMPONENT_TYPES or self._requests_gpu(component)

    def _requests_gpu(self, component: Mapping[str, Any]) -> bool:
        wanted = {DEFAULT_GPU_RESOURCE, self.gpu_resource_name}
        return any(wanted & set(amounts) for amounts in _resource_sections(component))

    def _rename_gpu_resource(self, component: Mapping[str, Any]) -> None:
        if self.gpu_resource_name == DEFAULT_GPU_RESOURCE:
            return
        for amounts in _resource_sections(component):
            if DEFAULT_GPU_RESOURCE in amounts and self.gpu_resource_name not in amounts:
                amounts[self.gpu_resource_name] = amounts.pop(DEFAULT_GPU_RESOURCE)

    def apply_to_component(self, component: dict[str, Any]) -> None:
        """Merge into the component's podTemplate: user-written keys win over the pool's."""
        self._rename_gpu_resource(component)
        pod = component.setdefault("podTemplate", {}).setdefault("spec", {})
        if self.node_selector:
            pod["nodeSelector"] = {**dict(self.node_selector), **(pod.get("nodeSelector") or {})}
        if self.tolerations:
            existing = list(pod.get("tolerations") or [])
            pod["tolerations"] = existing + [dict(t) for t in self.tolerations if dict(t) not in existing]

    def apply(self, wire: dict[str, Any]) -> list[str]:
        """Apply to a DGD or DCD wire dict in place; returns the components placed."""
        spec = wire.setdefault("spec", {})
        standalone = wire.get("kind") == "DynamoComponentDeployment"
        entries = [spec] if standalone else spec.get("components") or []
        placed: list[str] = []
        for component in entries:
            if self.targets(component):
                self.apply_to_component(component)
                placed.append(str(component.get("name", "")))
        return placed


def _resource_sections(component: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``limits``/``requests`` mappings of every container of the component's pod template."""
    pod = (component.get("podTemplate") or {}).get("spec") or {}
    sections = []
    for container in pod.get("containers") or []:
        resources = container.get("resources") or {}
        sections += [resources[name] for name in ("limits", "requests") if isinstance(resources.get(name), dict)]
    return sections


def gpu_node_pool(
    label: Mapping[str, Any] | None = None,
    taint_key: Any = None,
    taint_value: Any = None,
    taint_effect: str = "NoSchedule",
    gpu_resource_name: str = DEFAULT_GPU_RESOURCE,
) -> GpuPlacement:
    """A placement from a pool's label and taint (the shape EKS/GKE/AKS node pools expose)."""
    tolerations: list[dict[str, Any]] = []
    if taint_key is not None:
        toleration: dict[str, Any] = {"key": taint_key, "effect": taint_effect}
        if taint_value is None:
            toleration["operator"] = "Exists"
        else:
            toleration.update(operator="Equal", value=taint_value)
        tolerations.append(toleration)
    return GpuPlacement(node_selector=dict(label or {}), tolerations=tolerations, gpu_resource_name=gpu_resource_name)


def eks_gpu_node_group(node_group_label: Mapping[str, Any], taint: bool = True) -> GpuPlacement:
    """EKS managed GPU node group: the group's label, and the usual ``nvidia.com/gpu`` taint."""
    return gpu_node_pool(label=node_group_label, taint_key="nvidia.com/gpu" if taint else None)


def gke_gpu_node_pool(accelerator: Any) -> GpuPlacement:
    """GKE GPU node pool: ``cloud.google.com/gke-accelerator`` selector; GKE taints GPU nodes
    with ``nvidia.com/gpu=present:NoSchedule``."""
    return gpu_node_pool(
        label={"cloud.google.com/gke-accelerator": accelerator},
        taint_key="nvidia.com/gpu",
        taint_value="present",
    )


def aks_gpu_node_pool(pool_name: Any, taint: bool = True) -> GpuPlacement:
    """AKS GPU node pool: ``kubernetes.azure.com/agentpool`` selector and the ``sku=gpu`` taint
    AKS docs recommend."""
    return gpu_node_pool(
        label={"kubernetes.azure.com/agentpool": pool_name},
        taint_key="sku" if taint else None,
        taint_value="gpu" if taint else None,
    )
