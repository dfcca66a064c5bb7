"""DGD metadata rules 8-13 (api-and-validation.md 4.2); rule 14 is in test_validation_update."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError
from dynamo_pulumi.validation import validate
from dynamo_pulumi.validation.metadata import validate_graph_metadata

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"
ANN = "metadata.annotations"


def graph(annotations: dict[str, str] | None = None, **component_fields: Any) -> DynamoGraphDeployment:
    comp = {
        "name": "worker",
        "type": "worker",
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}},
    } | component_fields
    meta: dict[str, Any] = {"name": "g"}
    if annotations is not None:
        meta["annotations"] = annotations
    return DynamoGraphDeployment.model_validate(
        {"metadata": meta, "spec": {"backendFramework": "vllm", "components": [comp]}}
    )


def errors_of(dgd: DynamoGraphDeployment) -> list[FieldError]:
    return validate(dgd).errors


def test_plain_graph_is_valid() -> None:
    assert errors_of(graph()) == []


@pytest.mark.parametrize("value", ["1.4.0", "v1.0", "1", "1.0.0-rc1"])
def test_origin_version_accepts_lenient_semver(value: str) -> None:
    assert errors_of(graph({"nvidia.com/dynamo-operator-origin-version": value})) == []


def test_origin_version_that_is_not_semver_is_invalid() -> None:
    key = "nvidia.com/dynamo-operator-origin-version"
    assert errors_of(graph({key: "latest"})) == [
        FieldError(ErrorType.INVALID, f"{ANN}[{key}]", "must be valid semver", "latest")
    ]


@pytest.mark.parametrize("value", ["mp", "Ray", "MP"])
def test_vllm_backend_annotation_accepts_mp_or_ray_case_insensitively(value: str) -> None:
    assert errors_of(graph({"nvidia.com/vllm-distributed-executor-backend": value})) == []


def test_vllm_backend_annotation_rejects_other_values() -> None:
    key = "nvidia.com/vllm-distributed-executor-backend"
    [error] = errors_of(graph({key: "nccl"}))
    assert error == FieldError(ErrorType.INVALID, f"{ANN}[{key}]", 'must be "mp" or "ray"', "nccl")
    assert str(error) == f'{ANN}[{key}]: Invalid value: "nccl": must be "mp" or "ray"'


def test_grove_update_strategy_accepts_the_three_grove_strategies() -> None:
    """Seed: minimum forms use RollingRecreate unless the DGD strategy annotation selects Coherent."""
    key = "nvidia.com/grove-update-strategy"
    assert errors_of(graph({key: "RollingRecreate"})) == []
    assert errors_of(graph({key: "OnDelete"})) == []
    assert errors_of(graph({key: "Coherent"})) == []


def test_grove_update_strategy_is_case_sensitive() -> None:
    key = "nvidia.com/grove-update-strategy"
    [error] = errors_of(graph({key: "rollingrecreate"}))
    assert error == FieldError(
        ErrorType.NOT_SUPPORTED,
        f"{ANN}[{key}]",
        "",
        "rollingrecreate",
        ("RollingRecreate", "OnDelete", "Coherent"),
    )
    assert str(error).endswith('supported values: "RollingRecreate", "OnDelete", "Coherent"')


def test_discovery_mode_must_be_pod_or_container() -> None:
    key = "nvidia.com/dynamo-kube-discovery-mode"
    assert errors_of(graph({key: "pod"})) == []
    assert errors_of(graph({key: "node"})) == [
        FieldError(ErrorType.NOT_SUPPORTED, f"{ANN}[{key}]", "", "node", ("pod", "container"))
    ]


def test_workload_provider_must_be_component_or_grove() -> None:
    key = "nvidia.com/workload-provider"
    # On create the defaulting webhook overwrites the annotation, so check the metadata rule
    # directly through an update of a stored object.
    assert validate_graph_metadata(graph({key: "grove"})) == []
    assert validate_graph_metadata(graph({key: "lws"})) == [
        FieldError(ErrorType.NOT_SUPPORTED, f"{ANN}[{key}]", "", "lws", ("component", "grove"))
    ]


def gms_failover(mode: str | None = None) -> dict[str, Any]:
    failover: dict[str, Any] = {} if mode is None else {"mode": mode}
    gms: dict[str, Any] = {} if mode is None else {"mode": mode}
    return {"gpuMemoryService": gms, "failover": failover}


def test_intra_pod_failover_requires_container_discovery() -> None:
    key = "nvidia.com/dynamo-kube-discovery-mode"
    dgd = graph(experimental=gms_failover())
    failures = [e for e in errors_of(dgd) if e.path.startswith(ANN)]
    assert failures == [
        FieldError(
            ErrorType.INVALID,
            f"{ANN}[{key}]",
            'must be "container" when intra-pod failover is configured',
            "",
        )
    ]


def test_intra_pod_failover_with_container_discovery_passes_the_metadata_rule() -> None:
    dgd = graph({"nvidia.com/dynamo-kube-discovery-mode": "container"}, experimental=gms_failover())
    assert [e for e in errors_of(dgd) if e.path.startswith(ANN)] == []


def test_inter_pod_failover_does_not_need_container_discovery() -> None:
    assert validate_graph_metadata(graph(experimental=gms_failover("InterPod"))) == []
