"""Rule 19: the GPU power-limit annotation on DGD components (create and update)."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError
from dynamo_pulumi.validation import validate, validate_update
from dynamo_pulumi.validation.power import POWER_RANGES, parse_watts

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"
KEY = "dynamo.nvidia.com/gpu-power-limit"
C0 = "spec.components[0]"
ANNOTATION = f"{C0}.podTemplate.metadata.annotations[{KEY}]"
SELECTOR = f"{C0}.podTemplate.spec.nodeSelector[nvidia.com/gpu.product]"


def graph(
    watts: str | None = "300",
    product: str | None = "NVIDIA-H100",
    gpus: Any = 1,
    node_name: str | None = None,
    claims: bool = False,
    **component_fields: Any,
) -> DynamoGraphDeployment:
    main: dict[str, Any] = {"name": "main", "image": IMAGE, "resources": {"limits": {"nvidia.com/gpu": gpus}}}
    if claims:
        main["resources"]["claims"] = [{"name": "gpu"}]
    spec: dict[str, Any] = {"containers": [main]}
    if product is not None:
        spec["nodeSelector"] = {"nvidia.com/gpu.product": product}
    if node_name is not None:
        spec["nodeName"] = node_name
    template: dict[str, Any] = {"spec": spec}
    if watts is not None:
        template["metadata"] = {"annotations": {KEY: watts}}
    comp = {"name": "worker", "type": "worker", "podTemplate": template} | component_fields
    return DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "g"}, "spec": {"backendFramework": "vllm", "components": [comp]}}
    )


def power_errors(dgd: DynamoGraphDeployment) -> list[FieldError]:
    return validate(dgd).errors


def test_annotated_component_within_the_product_range_is_valid() -> None:
    assert power_errors(graph("700")) == []
    assert power_errors(graph("200")) == []


def test_component_without_the_annotation_is_not_checked() -> None:
    assert power_errors(graph(watts=None, product=None)) == []


@pytest.mark.parametrize("value", ["300W", "3.5", " 300", ""])
def test_non_integer_watts_are_invalid(value: str) -> None:
    assert power_errors(graph(value)) == [
        FieldError(ErrorType.INVALID, ANNOTATION, "must be a decimal integer", value)
    ]


@pytest.mark.parametrize("value", ["0", "-5"])
def test_non_positive_watts_are_invalid(value: str) -> None:
    assert power_errors(graph(value)) == [
        FieldError(ErrorType.INVALID, ANNOTATION, "must be greater than zero", value)
    ]


def test_watts_parse_like_go_parse_int() -> None:
    assert parse_watts("+300") == 300
    assert parse_watts("9223372036854775808") is None


def test_watts_outside_the_product_range_are_invalid() -> None:
    assert power_errors(graph("701")) == [
        FieldError(
            ErrorType.INVALID,
            ANNOTATION,
            'must be between 200 and 700 watts inclusive for GPU product "NVIDIA-H100"',
            "701",
        )
    ]


def test_missing_product_selector_is_required() -> None:
    assert power_errors(graph(product=None)) == [
        FieldError(
            ErrorType.REQUIRED,
            SELECTOR,
            f'is required when annotation "{KEY}" is set, so the requested power limit can be validated against '
            "the selected GPU product",
        )
    ]


def test_unreviewed_product_is_invalid() -> None:
    [error] = power_errors(graph(product="NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"))
    assert error.type is ErrorType.INVALID and error.path == SELECTOR
    assert error.detail.startswith("has no reviewed GPU power range in this operator release; ")
    assert error.detail.endswith("so MIG, time-sliced, and other shared product labels are never eligible")


def test_power_table_holds_the_reviewed_products() -> None:
    assert len(POWER_RANGES) == 54
    assert (POWER_RANGES["Tesla-T4"].min, POWER_RANGES["Tesla-T4"].max) == (60, 70)
    assert (POWER_RANGES["NVIDIA-B200"].min, POWER_RANGES["NVIDIA-B200"].max) == (200, 1000)


def test_node_name_is_forbidden_with_the_annotation() -> None:
    assert power_errors(graph(node_name="n1")) == [
        FieldError(
            ErrorType.FORBIDDEN,
            f"{C0}.podTemplate.spec.nodeName",
            f'cannot be combined with annotation "{KEY}": bypassing the scheduler invalidates the GPU product '
            'selected by "nvidia.com/gpu.product"',
        )
    ]


def test_dra_claims_are_forbidden_with_the_annotation() -> None:
    errors = power_errors(graph(claims=True))
    assert (
        FieldError(
            ErrorType.FORBIDDEN,
            f"{C0}.podTemplate.spec.containers[0].resources.claims",
            f'cannot be combined with annotation "{KEY}": power-aware planning does not support DRA-backed device '
            "allocation",
        )
        in errors
    )


def test_gms_counts_as_dra() -> None:
    errors = power_errors(graph(experimental={"gpuMemoryService": {}}))
    assert any(
        e.path == f"{C0}.experimental.gpuMemoryService" and e.type is ErrorType.FORBIDDEN for e in errors
    )


# --- update ----------------------------------------------------------------------------------------


def update_errors(old: DynamoGraphDeployment, new: DynamoGraphDeployment) -> list[FieldError]:
    return validate_update(old, new).errors


def test_unchanged_annotated_component_updates_cleanly() -> None:
    assert update_errors(graph(), graph()) == []


def test_power_limit_is_immutable() -> None:
    assert update_errors(graph("300"), graph("400")) == [
        FieldError(ErrorType.INVALID, ANNOTATION, "field is immutable", "400")
    ]
    assert update_errors(graph(watts=None), graph("300")) == [
        FieldError(ErrorType.INVALID, ANNOTATION, "field is immutable", "300")
    ]


def test_gpu_count_and_product_are_frozen_while_annotated() -> None:
    assert update_errors(graph(gpus=1), graph(gpus=2)) == [
        FieldError(
            ErrorType.INVALID,
            f"{C0}.podTemplate.spec.containers[0].resources.limits[nvidia.com/gpu]",
            "field is immutable",
            "2",
        )
    ]
    assert update_errors(graph(gpus=1), graph(gpus="1")) == []
    assert update_errors(graph(), graph(product="NVIDIA-H200")) == [
        FieldError(ErrorType.INVALID, SELECTOR, "field is immutable", "NVIDIA-H200")
    ]


def test_gpu_count_may_change_without_the_annotation() -> None:
    assert update_errors(graph(watts=None, gpus=1), graph(watts=None, gpus=2)) == []


def test_unchanged_product_violation_is_ratcheted_into_a_warning() -> None:
    old = graph(product="NVIDIA-Unknown")
    new = graph(product="NVIDIA-Unknown", replicas=3)
    findings = validate_update(old, new)
    assert findings.errors == []
    assert len(findings.warnings) == 1
    assert findings.warnings[0].startswith(
        f"Retained pre-existing GPU power violation: {SELECTOR}: Invalid value"
    )


def test_changed_placement_is_not_ratcheted() -> None:
    old = graph(product=None)
    new = graph(product=None, node_name="n1")
    errors = update_errors(old, new)
    assert (
        FieldError(
            ErrorType.REQUIRED,
            SELECTOR,
            f'is required when annotation "{KEY}" is set, so the requested power limit can be validated against '
            "the selected GPU product",
        )
        in errors
    )


def test_node_count_change_while_annotated_is_reported_once() -> None:
    old = graph(multinode={"nodeCount": 2})
    assert update_errors(old, graph(multinode={"nodeCount": 3})) == [
        FieldError(ErrorType.INVALID, f"{C0}.multinode.nodeCount", "field is immutable", 3)
    ]
