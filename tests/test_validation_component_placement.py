"""V-ELASTIC-EP (20), V-MINAVAIL (27), V-SHM (29), V-GROVE (36), V-SA (39), V-TOPO-U (40)."""

from __future__ import annotations

from typing import Any

import pytest
from validation_component_support import (
    P,
    dcd_ctx,
    dgd_ctx,
    errors,
    grove_ctx,
    main,
    template,
    update_errors,
    worker,
)

from dynamo_pulumi.platform import Platform

GROVE_ONLY = "is currently supported only for Grove-backed DynamoGraphDeployment components"


def vllm_ctx(**kw: Any):  # type: ignore[no-untyped-def]
    return dgd_ctx(backend_framework="vllm", **kw)


@pytest.mark.parametrize(
    "args",
    [
        ["--enable-elastic-ep", "--data-parallel-backend", "ray"],
        ["--enable-elastic-ep --data-parallel-backend=ray"],
        ["--enable-elastic-ep", "-dpb", "ray"],
    ],
)
def test_elastic_ep_with_ray_needs_explicit_command(args: list[str]) -> None:
    wire = worker(podTemplate=template(main(args=args)))
    assert errors(wire, vllm_ctx()) == [
        f"{P}.podTemplate.spec.containers[0].command: Required value: elastic expert parallelism "
        "(--enable-elastic-ep with --data-parallel-backend ray) requires an explicit container command; the "
        "operator starts the single-pod Ray head by wrapping that command and cannot start it from the image "
        "ENTRYPOINT"
    ]


def test_elastic_ep_with_command_or_without_ray_is_valid() -> None:
    args = ["--enable-elastic-ep", "--data-parallel-backend", "ray"]
    assert errors(worker(podTemplate=template(main(command=["python3"], args=args))), vllm_ctx()) == []
    assert errors(worker(podTemplate=template(main(args=["--enable-elastic-ep"]))), vllm_ctx()) == []
    assert errors(worker(podTemplate=template(main(args=args))), dgd_ctx(backend_framework="sglang")) == []


def test_min_available_off_grove_is_forbidden() -> None:
    assert errors(worker(minAvailable=1), grove_ctx()) == []
    assert errors(worker(minAvailable=1)) == [f"{P}.minAvailable: Forbidden: {GROVE_ONLY}"]


def test_negative_shared_memory_is_invalid() -> None:
    assert errors(worker(sharedMemorySize="0")) == []
    assert errors(worker(sharedMemorySize="-1Gi")) == [f'{P}.sharedMemorySize: Invalid value: "-1Gi": must be non-negative']


def test_forced_scaling_group_off_grove_is_forbidden() -> None:
    forced = {"grove": {"forceScalingGroup": True}}
    assert errors(worker(experimental=forced), grove_ctx()) == []
    wire = worker(experimental=forced)
    wire.pop("name")
    assert errors(wire, dcd_ctx()) == [f"spec.experimental.grove.forceScalingGroup: Forbidden: {GROVE_ONLY}"]


def test_forced_scaling_group_cannot_be_toggled() -> None:
    forced = worker(experimental={"grove": {"forceScalingGroup": True}})
    auto = worker(experimental={"grove": {"forceScalingGroup": False}})
    assert update_errors(auto, worker()) == []
    assert update_errors(worker(), forced) == [
        f"{P}.experimental.grove.forceScalingGroup: Invalid value: true: cannot be toggled after creation; "
        "delete and recreate the DynamoGraphDeployment to change it"
    ]
    assert update_errors(forced, worker()) == [
        f"{P}.experimental.grove.forceScalingGroup: Invalid value: null: cannot be toggled after creation; "
        "delete and recreate the DynamoGraphDeployment to change it"
    ]


def test_topology_constraint_is_immutable() -> None:
    rack = worker(topologyConstraint={"packDomain": "rack"})
    assert update_errors(rack, rack) == []
    assert update_errors(rack, worker(topologyConstraint={"packDomain":"zone"})) == [
        f'{P}.topologyConstraint: Invalid value: {{"packDomain":"zone"}}: is immutable and cannot be added, removed, '
        "or changed after creation; delete and recreate the DynamoGraphDeployment to change topology constraints"
    ]
    assert update_errors(rack, worker()) == [
        f"{P}.topologyConstraint: Invalid value: null: is immutable and cannot be added, removed, or changed after "
        "creation; delete and recreate the DynamoGraphDeployment to change topology constraints"
    ]


SA_MESSAGE = (
    f"{P}.replicas: Forbidden: cannot be modified directly when scaling adapter is enabled; scale or update the "
    "related DynamoGraphDeploymentScalingAdapter instead"
)


def _requester(name: str | None, principals: list[str] | None = None) -> Platform:
    return Platform.model_validate({"cluster": {"requester": name, "operatorPrincipals": principals or []}})


def test_adapter_owned_replicas_reject_direct_changes() -> None:
    old, new = worker(scalingAdapter={}, replicas=1), worker(scalingAdapter={}, replicas=3)
    assert update_errors(old, new, dgd_ctx("update", platform=_requester("alice"))) == [SA_MESSAGE]
    assert update_errors(old, new) == [SA_MESSAGE]


def test_planner_and_operator_service_accounts_may_change_adapter_replicas() -> None:
    old, new = worker(scalingAdapter={}, replicas=1), worker(scalingAdapter={}, replicas=3)
    planner = _requester("system:serviceaccount:ns:planner-serviceaccount")
    operator = _requester("system:serviceaccount:dynamo:op", ["system:serviceaccount:dynamo:op"])
    assert update_errors(old, new, dgd_ctx("update", platform=planner)) == []
    assert update_errors(old, new, dgd_ctx("update", platform=operator)) == []


def test_replicas_without_adapter_or_on_a_dcd_are_free() -> None:
    assert update_errors(worker(replicas=1), worker(replicas=4)) == []
    assert update_errors(worker(scalingAdapter={}), worker(scalingAdapter={}, replicas=1)) == []
    old, new = worker(scalingAdapter={}, replicas=1), worker(scalingAdapter={}, replicas=3)
    old.pop("name")
    new.pop("name")
    assert update_errors(old, new, dcd_ctx("update")) == []


def test_min_available_on_a_dcd_is_forbidden_even_with_grove_enabled() -> None:
    wire = worker(minAvailable=1)
    wire.pop("name")
    ctx = dcd_ctx(platform=Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}}), grove_pathway=True)
    assert errors(wire, ctx) == [f"spec.minAvailable: Forbidden: {GROVE_ONLY}"]
