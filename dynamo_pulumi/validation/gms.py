"""V-GMS (rule 34) and V-FO (rule 35): GPU memory service and active/passive failover.

GMS shares the main container's GPUs with client containers, so it needs GPUs and real client
names; failover rides on GMS in the same layout. The inter-pod variants change the workload
topology (an extra scaling-group member), which cannot be toggled on a live object.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import FieldError, Path, duplicate, forbidden, invalid
from dynamo_pulumi.validation.component_common import (
    GMS_MODE_INTER_POD,
    GMS_MODE_INTRA_POD,
    GPUCountError,
    gpu_count,
    has_container_named,
    has_role_pod_templates,
    is_worker_component,
    main_container_resources,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        ComponentSpecFields,
        ExperimentalSpec,
        FailoverSpec,
        GPUMemoryServiceSpec,
    )

FAILOVER_UNSUPPORTED_TYPES = ("epp", "frontend", "planner")
LAUNCH_WIRING_MESSAGE = (
    "cannot be combined with role PodTemplates because this layout requires operator-managed launch wiring"
)


def effective_gms_mode(mode: str | None) -> str:
    return mode or GMS_MODE_INTRA_POD


def is_inter_pod_gms(gms: GPUMemoryServiceSpec | None) -> bool:
    return gms is not None and effective_gms_mode(gms.mode) == GMS_MODE_INTER_POD


def is_inter_pod_failover(failover: FailoverSpec | None) -> bool:
    return failover is not None and effective_gms_mode(failover.mode) == GMS_MODE_INTER_POD


def effective_num_shadows(failover: FailoverSpec) -> int:
    return 1 if failover.num_shadows is None or failover.num_shadows < 1 else failover.num_shadows


def validate_gms_and_failover(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    """GMS and failover of one component; skipped with role templates (forbidden there instead)."""
    experimental = comp.experimental
    if experimental is None:
        return []
    if has_role_pod_templates(comp):
        return _role_template_layout_errors(experimental, path)
    errors: list[FieldError] = []
    resources = main_container_resources(comp)
    if experimental.gpu_memory_service is not None:
        errors += validate_gms(experimental.gpu_memory_service, path.child("gpuMemoryService"), comp, resources)
    if experimental.failover is not None:
        errors += validate_failover(
            experimental.failover, path.child("failover"), experimental.gpu_memory_service, comp.type, resources
        )
    return errors


def _role_template_layout_errors(experimental: ExperimentalSpec, path: Path) -> list[FieldError]:
    """Role templates hand launch wiring to the user, which GMS and failover still need."""
    errors: list[FieldError] = []
    if experimental.gpu_memory_service is not None:
        errors.append(forbidden(path.child("gpuMemoryService"), LAUNCH_WIRING_MESSAGE))
    if experimental.failover is not None:
        errors.append(forbidden(path.child("failover"), LAUNCH_WIRING_MESSAGE))
    return errors


def validate_gms(
    gms: GPUMemoryServiceSpec, path: Path, comp: ComponentSpecFields, resources: dict[str, Any]
) -> list[FieldError]:
    errors: list[FieldError] = []
    if not is_worker_component(comp.type):
        errors.append(forbidden(path, "GPU memory service is only supported for worker, prefill, or decode components"))
    try:
        gpus = gpu_count(resources)
    except GPUCountError:
        gpus = 0
    if gpus < 1:
        errors.append(
            forbidden(path, "GPU memory service requires podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1")
        )
    if effective_gms_mode(gms.mode) != GMS_MODE_INTRA_POD:
        return errors
    seen: set[str] = set()
    clients_path = path.child("extraClientContainers")
    for i, name in enumerate(gms.extra_client_containers or []):
        if name in seen:
            errors.append(duplicate(clients_path.index(i), name))
            continue
        seen.add(name)
        if not has_container_named(comp.pod_template, name):
            errors.append(invalid(clients_path.index(i), name, "does not name a container in podTemplate.spec.containers"))
    return errors


def validate_failover(
    failover: FailoverSpec,
    path: Path,
    gms: GPUMemoryServiceSpec | None,
    component_type: str | None,
    resources: dict[str, Any],
) -> list[FieldError]:
    errors: list[FieldError] = []
    mode = effective_gms_mode(failover.mode)
    if gms is None:
        errors.append(forbidden(path, f'gpuMemoryService is required when failover mode is "{mode}"'))
    elif effective_gms_mode(gms.mode) != mode:
        errors.append(invalid(path.child("mode"), failover.mode or "", f'must match gpuMemoryService.mode "{gms.mode or ""}"'))
    if mode != GMS_MODE_INTER_POD:
        return errors
    try:
        gpus = gpu_count(resources)
    except GPUCountError as exc:
        errors.append(forbidden(path, f"failed to read main-container GPU limit: {exc}"))
    else:
        if gpus < 1:
            errors.append(
                forbidden(
                    path,
                    "GMS failover requires at least 1 GPU in podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu",
                )
            )
    if component_type in FAILOVER_UNSUPPORTED_TYPES:
        errors.append(forbidden(path, f'GMS failover is not supported for component type "{component_type}"'))
    return errors


# --- update ----------------------------------------------------------------------------------------


def _gms_of(experimental: ExperimentalSpec | None) -> GPUMemoryServiceSpec | None:
    return experimental.gpu_memory_service if experimental else None


def _failover_of(experimental: ExperimentalSpec | None) -> FailoverSpec | None:
    return experimental.failover if experimental else None


def validate_gms_update(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path, owner_kind: str
) -> list[FieldError]:
    """Inter-pod GMS / failover layouts are fixed; inter-pod ``numShadows`` is immutable."""
    experimental_path = path.child("experimental")
    new_gms, old_gms = _gms_of(new.experimental), _gms_of(old.experimental)
    new_fo, old_fo = _failover_of(new.experimental), _failover_of(old.experimental)
    errors: list[FieldError] = []
    if is_inter_pod_gms(new_gms) != is_inter_pod_gms(old_gms):
        value = None if new.experimental is None else ((new_gms.mode or "") if new_gms else "")
        errors.append(
            invalid(
                experimental_path.child("gpuMemoryService", "mode"),
                value,
                f"the inter-pod GMS layout cannot be toggled after creation; delete and recreate the {owner_kind}",
            )
        )
    if is_inter_pod_failover(new_fo) != is_inter_pod_failover(old_fo):
        errors.append(
            invalid(
                experimental_path.child("failover"),
                new_fo.to_wire() if new_fo else None,
                f"inter-pod GMS failover cannot be toggled after creation; delete and recreate the {owner_kind}",
            )
        )
    if (
        new_fo is not None
        and old_fo is not None
        and is_inter_pod_failover(new_fo)
        and is_inter_pod_failover(old_fo)
        and effective_num_shadows(new_fo) != effective_num_shadows(old_fo)
    ):
        errors.append(
            invalid(
                experimental_path.child("failover", "numShadows"),
                new_fo.num_shadows if new_fo.num_shadows is not None else 0,
                f"is immutable for inter-pod GMS failover; delete and recreate the {owner_kind} to change it",
            )
        )
    return errors
