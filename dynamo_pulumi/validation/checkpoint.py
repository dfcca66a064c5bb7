"""V-CKPT (rule 37): checkpoint/restore of worker engines.

Snapshots capture one engine process, so only explicitly typed worker-class components qualify,
the operator must have the feature on, and the layouts a snapshot cannot yet represent (inter-pod
GMS, active/passive failover) are refused.
"""

from __future__ import annotations

from dynamo_pulumi.api.v1beta1 import ComponentSpecFields, ExperimentalSpec
from dynamo_pulumi.errors import FieldError, Path, forbidden
from dynamo_pulumi.validation.component_common import GMS_MODE_INTER_POD, is_worker_component
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.gms import effective_gms_mode

CHECKPOINT_INTER_POD_COMPATIBILITY_MESSAGE = "Snapshot with gpuMemoryService.mode=InterPod is unsupported"
CHECKPOINT_FAILOVER_COMPATIBILITY_MESSAGE = "Snapshot with active/passive failover is temporarily unsupported"


def validate_checkpoint(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    """``experimental.checkpoint`` rules plus the snapshot compatibility policy."""
    experimental = comp.experimental
    config = experimental.checkpoint if experimental else None
    if experimental is None or config is None:
        return []
    checkpoint_path = path.child("experimental", "checkpoint")
    errors: list[FieldError] = []
    if config.enabled and not ctx.platform.checkpoint.on:
        errors.append(forbidden(checkpoint_path, "checkpoint functionality is disabled in the operator configuration"))
    if config.enabled and not comp.type:
        errors.append(
            forbidden(
                checkpoint_path,
                "checkpoint functionality requires component type to be explicitly set to worker, prefill, or decode",
            )
        )
    elif config.enabled and not is_worker_component(comp.type):
        errors.append(
            forbidden(checkpoint_path, "checkpoint functionality is supported only for worker, prefill, and decode components")
        )
    errors += _job_errors(experimental, checkpoint_path.child("job"))
    errors += [forbidden(checkpoint_path, message) for message in checkpoint_compatibility_violations(experimental)]
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
        return [forbidden(path.child("gmsClientContainers"), "is only supported with gpuMemoryService.mode=IntraPod")]
    return []


def checkpoint_compatibility_violations(experimental: ExperimentalSpec | None) -> list[str]:
    """``ValidateCheckpointCompatibility``: unsupported combinations in stable policy order."""
    config = experimental.checkpoint if experimental else None
    if experimental is None or config is None or not config.enabled:
        return []
    violations: list[str] = []
    gms = experimental.gpu_memory_service
    if gms is not None and gms.mode == GMS_MODE_INTER_POD:
        violations.append(CHECKPOINT_INTER_POD_COMPATIBILITY_MESSAGE)
    if experimental.failover is not None:
        violations.append(CHECKPOINT_FAILOVER_COMPATIBILITY_MESSAGE)
    return violations


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
