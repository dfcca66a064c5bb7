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
    assert errors(ckpt_worker(job)) == [
        f"{CKPT}.job.gmsClientContainers: Forbidden: requires gpuMemoryService to be set"
    ]
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
    found = errors(wire, dgd_ctx(platform=CKPT_ON, backend_framework="vllm"))
    assert found == [
        f"{CKPT}: Forbidden: Snapshot with gpuMemoryService.mode=InterPod is unsupported",
        f"{CKPT}: Forbidden: {FAILOVER}: gpuMemoryService.mode must be IntraPod\nfailover.mode must be IntraPod",
    ]


# --- rule 37 newest variant: failover only for the operator-managed automatic vLLM worker checkpoint --

FAILOVER = (
    "Snapshot with active/passive failover requires an operator-managed automatic vLLM Worker checkpoint"
)
ONE_GPU = template(main(resources={"limits": {"nvidia.com/gpu": 1}}))
INTRA = {"gpuMemoryService": {"mode": "IntraPod"}, "failover": {"mode": "IntraPod"}}


def automatic(checkpoint: dict[str, Any] | None = None, **wire: Any) -> dict[str, Any]:
    wire.setdefault("podTemplate", ONE_GPU)
    wire.setdefault("experimental", INTRA)
    return ckpt_worker({"enabled": True} | (checkpoint or {}), **wire)


def vllm_dgd() -> Any:
    return dgd_ctx(platform=CKPT_ON, backend_framework="vllm")


def test_failover_is_allowed_for_the_automatic_vllm_worker_checkpoint() -> None:
    assert errors(automatic(), vllm_dgd()) == []
    assert (
        errors(
            automatic({"mode": "Auto", "deletionPolicy": "Delete", "targetContainerName": "main"}), vllm_dgd()
        )
        == []
    )


def test_failover_with_a_non_automatic_checkpoint_is_forbidden_with_every_reason() -> None:
    checkpoint = {
        "checkpointRef": "snap",
        "mode": "Manual",
        "deletionPolicy": "Retain",
        "targetContainerName": "x",
    }
    two_gpus = template(main(resources={"limits": {"nvidia.com/gpu": 2}}))
    found = errors(
        automatic(checkpoint, type="prefill", podTemplate=two_gpus),
        dgd_ctx(platform=CKPT_ON, backend_framework="sglang"),
    )
    assert found == [
        f"{CKPT}: Forbidden: {FAILOVER}: "
        + "\n".join(
            [
                "checkpointRef must be omitted for the DGD-managed automatic checkpoint",
                "checkpoint mode must be automatic",
                "deletionPolicy must be Delete",
                "targetContainerName must be main",
                "backendFramework must be vllm",
                "component type must be Worker",
                "main container must request exactly one GPU",
            ]
        )
    ]


def test_failover_checkpoint_on_dcds_depends_on_the_dgd_owner() -> None:
    generated = automatic()
    generated.pop("name")
    generated_ctx = dcd_ctx(platform=CKPT_ON, backend_framework="vllm", owner_is_dgd=True)
    assert errors(generated, generated_ctx) == [
        f"spec.experimental.checkpoint: Forbidden: {FAILOVER}: checkpointRef must name the DGD-managed automatic checkpoint"
    ]
    with_ref = automatic({"checkpointRef": "auto-snap"})
    with_ref.pop("name")
    assert errors(with_ref, generated_ctx) == []
    standalone = dcd_ctx(platform=CKPT_ON, backend_framework="vllm")
    assert errors(generated, standalone) == [
        f"spec.experimental.checkpoint: Forbidden: {FAILOVER}: checkpoint failover is only supported for an operator-generated DCD"
    ]


def test_failover_checkpoint_job_may_only_add_declared_gms_helpers() -> None:
    job = {
        "gmsClientContainers": ["loader"],
        "podTemplate": {"spec": {"containers": [{"name": "loader", "image": "l:1"}]}},
    }
    assert errors(automatic({"job": job}), vllm_dgd()) == []
    bad = {
        "gmsClientContainers": ["loader"],
        "podTemplate": {"spec": {"containers": [{"name": "main"}, {"name": "other", "image": "o:1"}]}},
    }
    assert errors(automatic({"job": bad}), vllm_dgd()) == [
        f"{CKPT}: Forbidden: {FAILOVER}: "
        + "\n".join(
            [
                "checkpoint.job must not override main",
                'checkpoint.job helper "other" must be declared in gmsClientContainers',
                'checkpoint.job GMS client helper "loader" is missing from podTemplate',
            ]
        )
    ]
    node = {"podTemplate": {"spec": {"nodeName": "n1"}}}
    assert errors(automatic({"job": node}), vllm_dgd()) == [
        f"{CKPT}: Forbidden: {FAILOVER}: checkpoint.job may only customize metadata and helper containers"
    ]


def test_standalone_worker_dcd_checkpoint_ref_needs_dgd_owner() -> None:
    wire = ckpt_worker({"enabled": False, "checkpointRef": "snap-1"})
    wire.pop("name")
    assert errors(wire, dcd_ctx(owner_is_dgd=True)) == []
    assert errors(wire, dcd_ctx()) == [
        "spec.experimental.checkpoint.checkpointRef: Forbidden: worker-class checkpointRef is supported only on "
        "DynamoGraphDeployment-managed components"
    ]
