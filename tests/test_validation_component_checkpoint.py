"""V-CKPT (rule 37): checkpoint configuration and snapshot compatibility."""

from __future__ import annotations

from typing import Any

from validation_component_support import P, dcd_ctx, dgd_ctx, errors, main, template, worker

from dynamo_pulumi.platform import Platform

CKPT_ON = Platform.model_validate({"checkpoint": {"enabled": True}})
CKPT = f"{P}.experimental.checkpoint"


def ckpt_worker(checkpoint: dict[str, Any], **wire: Any) -> dict[str, Any]:
    experimental = wire.pop("experimental", {})
    return worker(experimental={"checkpoint": checkpoint} | experimental, **wire)


def test_enabled_checkpoint_on_worker_with_gate_is_valid() -> None:
    assert errors(ckpt_worker({"enabled": True}), dgd_ctx(platform=CKPT_ON)) == []


def test_enabled_checkpoint_with_gate_off_is_forbidden() -> None:
    assert errors(ckpt_worker({"enabled": True})) == [
        f"{CKPT}: Forbidden: checkpoint functionality is disabled in the operator configuration"
    ]


def test_disabled_checkpoint_needs_no_gate() -> None:
    assert errors(ckpt_worker({"enabled": False})) == []


def test_enabled_checkpoint_needs_explicit_worker_type() -> None:
    assert errors(ckpt_worker({"enabled": True}, type=None), dgd_ctx(platform=CKPT_ON)) == [
        f"{CKPT}: Forbidden: checkpoint functionality requires component type to be explicitly set to worker, prefill, or decode"
    ]
    assert errors(ckpt_worker({"enabled": True}, type="frontend"), dgd_ctx(platform=CKPT_ON)) == [
        f"{CKPT}: Forbidden: checkpoint functionality is supported only for worker, prefill, and decode components"
    ]


def test_job_gms_clients_need_intra_pod_gms() -> None:
    job = {"enabled": False, "job": {"gmsClientContainers": ["loader"]}}
    assert errors(ckpt_worker(job)) == [f"{CKPT}.job.gmsClientContainers: Forbidden: requires gpuMemoryService to be set"]
    gpu = template(main(resources={"limits": {"nvidia.com/gpu": 1}}))
    inter = ckpt_worker(job, podTemplate=gpu, experimental={"gpuMemoryService": {"mode": "InterPod"}})
    assert errors(inter) == [
        f"{CKPT}.job.gmsClientContainers: Forbidden: is only supported with gpuMemoryService.mode=IntraPod"
    ]


def test_snapshot_with_inter_pod_gms_or_failover_is_unsupported() -> None:
    gpu = template(main(resources={"limits": {"nvidia.com/gpu": 1}}))
    wire = ckpt_worker(
        {"enabled": True},
        podTemplate=gpu,
        experimental={"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod"}},
    )
    found = errors(wire, dgd_ctx(platform=CKPT_ON))
    assert found == [
        f"{CKPT}: Forbidden: Snapshot with gpuMemoryService.mode=InterPod is unsupported",
        f"{CKPT}: Forbidden: Snapshot with active/passive failover is temporarily unsupported",
    ]


def test_standalone_worker_dcd_checkpoint_ref_needs_dgd_owner() -> None:
    wire = ckpt_worker({"enabled": False, "checkpointRef": "snap-1"})
    wire.pop("name")
    assert errors(wire, dcd_ctx(owner_is_dgd=True)) == []
    assert errors(wire, dcd_ctx()) == [
        "spec.experimental.checkpoint.checkpointRef: Forbidden: worker-class checkpointRef is supported only on "
        "DynamoGraphDeployment-managed components"
    ]
