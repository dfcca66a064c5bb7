"""V-CKPT (rule 37): checkpoint/restore of worker engines.

Snapshots capture one engine process, so only explicitly typed worker-class components qualify,
the operator must have the feature on, and the layouts a snapshot cannot yet represent are
refused: inter-pod GMS always; active/passive failover unless the checkpoint is the
operator-managed automatic vLLM worker checkpoint (rule 37, newest variant). That profile is:
the DGD-managed automatic checkpoint (a DGD component omits ``checkpointRef``; the DCD a DGD
generates names it; a standalone DCD never qualifies), mode Auto, deletionPolicy Delete, target
container ``main``, backend vLLM, component type ``worker``, intra-pod GMS and failover, a single
node, exactly one GPU on ``main`` (``limits["nvidia.com/gpu"]``), and a checkpoint job that only
adds declared GMS helper containers. Every unmet condition is listed after the message.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.errors import FieldError, Path, forbidden
from dynamo_pulumi.floor.constants import MAIN_CONTAINER_NAME
from dynamo_pulumi.validation.component_common import (
    GMS_MODE_INTER_POD,
    GMS_MODE_INTRA_POD,
    is_worker_component,
    main_container_resources,
)
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.gms import effective_gms_mode

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentCheckpointJobConfig, ComponentSpecFields, ExperimentalSpec

CHECKPOINT_INTER_POD_COMPATIBILITY_MESSAGE = "Snapshot with gpuMemoryService.mode=InterPod is unsupported"
CHECKPOINT_FAILOVER_COMPATIBILITY_MESSAGE = (
    "Snapshot with active/passive failover requires an operator-managed automatic vLLM Worker checkpoint"
)
CHECKPOINT_MODE_AUTO = "Auto"
CHECKPOINT_DELETION_POLICY_DELETE = "Delete"
BACKEND_FRAMEWORK_VLLM = "vllm"
COMPONENT_TYPE_WORKER = "worker"
NVIDIA_GPU = "nvidia.com/gpu"


def validate_checkpoint(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    """``experimental.checkpoint`` rules plus the snapshot compatibility policy."""
    experimental = comp.experimental
    config = experimental.checkpoint if experimental else None
    if experimental is None or config is None:
        return []
    checkpoint_path = path.child("experimental", "checkpoint")
    errors: list[FieldError] = []
    if config.enabled and not ctx.platform.checkpoint.on:
        errors.append(
            forbidden(checkpoint_path, "checkpoint functionality is disabled in the operator configuration")
        )
    if config.enabled and not comp.type:
        errors.append(
            forbidden(
                checkpoint_path,
                "checkpoint functionality requires component type to be explicitly set to worker, prefill, or decode",
            )
        )
    elif config.enabled and not is_worker_component(comp.type):
        errors.append(
            forbidden(
                checkpoint_path,
                "checkpoint functionality is supported only for worker, prefill, and decode components",
            )
        )
    errors += _job_errors(experimental, checkpoint_path.child("job"))
    violations = checkpoint_compatibility_violations(comp, ctx)
    errors += [forbidden(checkpoint_path, message) for message in violations]
    errors += _standalone_checkpoint_ref_errors(comp, checkpoint_path, ctx)
    return errors


def _job_errors(experimental: ExperimentalSpec, path: Path) -> list[FieldError]:
    config = experimental.checkpoint
    job = config.job if config else None
    if job is None or not job.gms_client_containers:
        return []
    gms = experimental.gpu_memory_service
    if gms is None:
        return [forbidden(path.child("gmsClientContainers"), "requires gpuMemoryService to be set")]
    if effective_gms_mode(gms.mode) == GMS_MODE_INTER_POD:
        return [
            forbidden(
                path.child("gmsClientContainers"), "is only supported with gpuMemoryService.mode=IntraPod"
            )
        ]
    return []


def checkpoint_compatibility_violations(comp: ComponentSpecFields, ctx: ValidationContext) -> list[str]:
    """``ValidateCheckpointCompatibility``: unsupported combinations in stable policy order."""
    experimental = comp.experimental
    config = experimental.checkpoint if experimental else None
    if experimental is None or config is None or not config.enabled:
        return []
    violations: list[str] = []
    gms = experimental.gpu_memory_service
    if gms is not None and gms.mode == GMS_MODE_INTER_POD:
        violations.append(CHECKPOINT_INTER_POD_COMPATIBILITY_MESSAGE)
    if experimental.failover is not None:
        profile = automatic_failover_checkpoint_violations(comp, ctx)
        if profile:
            violations.append(f"{CHECKPOINT_FAILOVER_COMPATIBILITY_MESSAGE}: " + "\n".join(profile))
    return violations


def automatic_failover_checkpoint_violations(comp: ComponentSpecFields, ctx: ValidationContext) -> list[str]:
    """Why an enabled checkpoint with failover is not the operator-managed automatic vLLM one."""
    experimental = comp.experimental
    if experimental is None or experimental.checkpoint is None or experimental.failover is None:
        return []
    config = experimental.checkpoint
    failover = experimental.failover
    has_ref = bool(config.checkpoint_ref)
    problems: list[str] = []
    if ctx.in_dgd:
        if has_ref:
            problems.append("checkpointRef must be omitted for the DGD-managed automatic checkpoint")
    elif ctx.owner_is_dgd:
        if not has_ref:
            problems.append("checkpointRef must name the DGD-managed automatic checkpoint")
    else:
        problems.append("checkpoint failover is only supported for an operator-generated DCD")
    if config.mode not in (None, CHECKPOINT_MODE_AUTO):
        problems.append("checkpoint mode must be automatic")
    if config.deletion_policy not in (None, CHECKPOINT_DELETION_POLICY_DELETE):
        problems.append("deletionPolicy must be Delete")
    if config.target_container_name not in (None, "", MAIN_CONTAINER_NAME):
        problems.append("targetContainerName must be main")
    if ctx.backend_framework != BACKEND_FRAMEWORK_VLLM:
        problems.append("backendFramework must be vllm")
    if comp.type != COMPONENT_TYPE_WORKER:
        problems.append("component type must be Worker")
    gms = experimental.gpu_memory_service
    if gms is None or gms.mode not in (None, GMS_MODE_INTRA_POD):
        problems.append("gpuMemoryService.mode must be IntraPod")
    if failover.mode not in (None, GMS_MODE_INTRA_POD):
        problems.append("failover.mode must be IntraPod")
    if comp.number_of_nodes != 1:
        problems.append("multinode/model-parallel worker topology is unsupported")
    if _main_gpu_limit(comp) != 1:
        problems.append("main container must request exactly one GPU")
    problems += _automatic_job_violations(config.job)
    return problems


def _main_gpu_limit(comp: ComponentSpecFields) -> int:
    """``limits["nvidia.com/gpu"]`` of ``main`` rounded up as ``Quantity.Value()``; 0 when unreadable."""
    limits = main_container_resources(comp).get("limits")
    raw = limits.get(NVIDIA_GPU) if isinstance(limits, dict) else None
    if raw is None or isinstance(raw, bool):
        return 0
    try:
        return math.ceil(parse_quantity(raw))
    except (ValueError, TypeError):
        return 0


def _automatic_job_violations(job: ComponentCheckpointJobConfig | None) -> list[str]:
    """The checkpoint job may only add the declared GMS helper containers (plus metadata)."""
    if job is None:
        return []
    clients = list(dict.fromkeys(job.gms_client_containers or []))
    if job.pod_template is None:
        return ["checkpoint.job GMS helpers require podTemplate"] if clients else []
    spec = pods.pod_spec(job.pod_template)
    if any(not _is_zero(value) for key, value in spec.items() if key != "containers"):
        return ["checkpoint.job may only customize metadata and helper containers"]
    containers = spec.get("containers")
    problems: list[str] = []
    remaining = list(clients)
    for container in containers if isinstance(containers, list) else []:
        name = container.get("name") if isinstance(container, dict) else None
        if name == MAIN_CONTAINER_NAME:
            problems.append("checkpoint.job must not override main")
        elif name not in remaining:
            problems.append(
                f"checkpoint.job helper {_go_quote(name)} must be declared in gmsClientContainers"
            )
        else:
            remaining.remove(name)
    problems += [
        f"checkpoint.job GMS client helper {_go_quote(n)} is missing from podTemplate" for n in remaining
    ]
    return problems


def _is_zero(value: Any) -> bool:
    """A JSON value that decodes to the Go zero value (so the PodSpec stays empty)."""
    return value is None or value is False or value == 0 or value == "" or value == [] or value == {}


def _go_quote(name: Any) -> str:
    return json.dumps(name if isinstance(name, str) else "")


def _standalone_checkpoint_ref_errors(
    comp: ComponentSpecFields, checkpoint_path: Path, ctx: ValidationContext
) -> list[FieldError]:
    """A standalone worker DCD may restore a named checkpoint only when a DGD manages it."""
    config = comp.checkpoint
    ref = config.checkpoint_ref if config else None
    if ctx.in_dgd or ctx.owner_is_dgd or not is_worker_component(comp.type) or ref is None or not ref.strip():
        return []
    return [
        forbidden(
            checkpoint_path.child("checkpointRef"),
            "worker-class checkpointRef is supported only on DynamoGraphDeployment-managed components",
        )
    ]
