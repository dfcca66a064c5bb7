"""V-GMS (rule 34) and V-FO (rule 35): GPU memory service and failover, create and update."""

from __future__ import annotations

from typing import Any

from validation_component_support import P, dcd_ctx, errors, main, template, update_errors, worker

GPU_MAIN = main(resources={"limits": {"nvidia.com/gpu": "2"}})


def gms_worker(experimental: dict[str, Any], *extra: dict[str, Any], **wire: Any) -> dict[str, Any]:
    return worker(podTemplate=template(GPU_MAIN, *extra), experimental=experimental, **wire)


def test_intra_pod_gms_with_gpus_and_known_clients_is_valid() -> None:
    sidecar = {"name": "loader", "image": "loader:1"}
    assert errors(gms_worker({"gpuMemoryService": {"extraClientContainers": ["loader"]}}, sidecar)) == []


def test_gms_only_for_worker_class_components() -> None:
    assert errors(gms_worker({"gpuMemoryService": {}}, type="frontend")) == [
        f"{P}.experimental.gpuMemoryService: Forbidden: GPU memory service is only supported for worker, prefill, or decode components"
    ]


def test_gms_requires_a_gpu_on_main() -> None:
    assert errors(worker(experimental={"gpuMemoryService": {}})) == [
        f"{P}.experimental.gpuMemoryService: Forbidden: GPU memory service requires "
        "podTemplate.spec.containers[main].resources.limits.nvidia.com/gpu >= 1"
    ]


def test_gpu_requests_count_when_limits_have_none() -> None:
    requested = main(resources={"requests": {"nvidia.com/gpu": 1}})
    assert errors(worker(podTemplate=template(requested), experimental={"gpuMemoryService": {}})) == []


def test_gms_client_containers_must_exist_and_be_unique() -> None:
    sidecar = {"name": "loader", "image": "loader:1"}
    found = errors(gms_worker({"gpuMemoryService": {"extraClientContainers": ["loader", "loader", "ghost"]}}, sidecar))
    assert found == [
        f'{P}.experimental.gpuMemoryService.extraClientContainers[1]: Duplicate value: "loader"',
        f'{P}.experimental.gpuMemoryService.extraClientContainers[2]: Invalid value: "ghost": '
        "does not name a container in podTemplate.spec.containers",
    ]


def test_failover_requires_gms() -> None:
    assert errors(gms_worker({"failover": {}})) == [
        f'{P}.experimental.failover: Forbidden: gpuMemoryService is required when failover mode is "IntraPod"'
    ]


def test_failover_mode_must_match_gms_mode() -> None:
    assert errors(gms_worker({"gpuMemoryService": {"mode": "IntraPod"}, "failover": {"mode": "IntraPod"}})) == []
    assert errors(gms_worker({"gpuMemoryService": {"mode": "IntraPod"}, "failover": {"mode":"InterPod"}})) == [
        f'{P}.experimental.failover.mode: Invalid value: "InterPod": must match gpuMemoryService.mode "IntraPod"'
    ]


def test_inter_pod_failover_rejects_fractional_gpu_and_non_worker_types() -> None:
    fractional = main(resources={"limits": {"nvidia.com/gpu": "500m"}})
    wire = worker(
        type="planner",
        podTemplate=template(fractional),
        experimental={"gpuMemoryService": {"mode":"InterPod"}, "failover": {"mode":"InterPod"}},
    )
    found = errors(wire)
    assert f"{P}.experimental.failover: Forbidden: GMS failover is not supported for component type \"planner\"" in found
    assert (
        f"{P}.experimental.failover: Forbidden: failed to read main-container GPU limit: "
        'GPU resource "nvidia.com/gpu" quantity "500m" must be a whole number'
    ) in found


def test_toggling_inter_pod_gms_is_invalid_on_update() -> None:
    inter = gms_worker({"gpuMemoryService": {"mode":"InterPod"}})
    assert update_errors(inter, inter) == []
    assert update_errors(inter, gms_worker({"gpuMemoryService": {}})) == [
        f'{P}.experimental.gpuMemoryService.mode: Invalid value: "": the inter-pod GMS layout cannot be toggled '
        "after creation; delete and recreate the DynamoGraphDeployment"
    ]


def test_removing_experimental_with_inter_pod_gms_names_the_kind() -> None:
    inter = gms_worker({"gpuMemoryService": {"mode":"InterPod"}})
    inter.pop("name")
    plain = worker()
    plain.pop("name")
    assert update_errors(inter, plain, dcd_ctx("update")) == [
        "spec.experimental.gpuMemoryService.mode: Invalid value: null: the inter-pod GMS layout cannot be toggled "
        "after creation; delete and recreate the DynamoComponentDeployment"
    ]


def test_toggling_inter_pod_failover_is_invalid_on_update() -> None:
    gms = {"gpuMemoryService": {"mode":"InterPod"}}
    old = gms_worker(gms)
    new = gms_worker(gms | {"failover": {"mode":"InterPod"}})
    assert update_errors(old, new) == [
        f'{P}.experimental.failover: Invalid value: {{"mode":"InterPod"}}: inter-pod GMS failover cannot be toggled '
        "after creation; delete and recreate the DynamoGraphDeployment"
    ]
