"""DGD spec rules 15-18, 21 and 24 (api-and-validation.md 4.3) through the public API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from validation_graph_support import component, graph

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError
from dynamo_pulumi.loading.documents import load_documents
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.validation import validate, validate_update
from dynamo_pulumi.validation.graph import grove_pathway, restart_order_errors

GROVE = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})
NO_GROVE = Platform()
COMPONENT_PROVIDER_REASON = 'requires the Grove pathway, but workload provider "component" is selected'


def errors_at(dgd: DynamoGraphDeployment, prefix: str, platform: Platform = NO_GROVE) -> list[FieldError]:
    return [e for e in validate(dgd, platform).errors if e.path.startswith(prefix)]


# --- rule 15 -------------------------------------------------------------------------------------


def test_graph_without_components_is_rejected() -> None:
    dgd = DynamoGraphDeployment.model_validate({"metadata": {"name": "g"}, "spec": {}})
    assert validate(dgd).errors == [
        FieldError(ErrorType.REQUIRED, "spec.components", "must have at least one component")
    ]


def test_graph_with_one_component_is_valid() -> None:
    assert validate(graph()).errors == []


# --- rule 16 -------------------------------------------------------------------------------------


def test_priority_class_is_allowed_on_the_grove_pathway() -> None:
    assert validate(graph(priorityClassName="high"), GROVE).errors == []


def test_priority_class_off_grove_is_forbidden_with_the_pathway_reason() -> None:
    assert validate(graph(priorityClassName="high"), NO_GROVE).errors == [
        FieldError(ErrorType.FORBIDDEN, "spec.priorityClassName", COMPONENT_PROVIDER_REASON)
    ]


def test_priority_class_with_grove_opt_out_is_forbidden() -> None:
    dgd = graph(priorityClassName="high", annotations={"nvidia.com/enable-grove": "false"})
    assert errors_at(dgd, "spec.priorityClassName", GROVE) == [
        FieldError(ErrorType.FORBIDDEN, "spec.priorityClassName", COMPONENT_PROVIDER_REASON)
    ]


def test_grove_pathway_reasons_without_a_provider_annotation() -> None:
    assert grove_pathway(graph(), NO_GROVE) == (
        False,
        "requires the Grove pathway, but Grove is disabled in the operator configuration",
    )
    assert grove_pathway(graph(annotations={"nvidia.com/enable-grove": "False"}), GROVE) == (
        False,
        'requires the Grove pathway; remove or unset annotation "nvidia.com/enable-grove" (currently "False")',
    )
    assert grove_pathway(graph(), GROVE) == (True, "")


def test_durable_provider_annotation_wins_over_the_platform() -> None:
    stored = graph(annotations={"nvidia.com/workload-provider": "grove"})
    assert grove_pathway(stored, NO_GROVE) == (True, "")


# --- rule 17 -------------------------------------------------------------------------------------


def test_long_names_are_absorbed_by_pcs_truncation() -> None:
    assert errors_at(graph(component("w" * 30), name="d" * 40), "spec.components", GROVE) == []


def test_component_name_longer_than_the_budget_is_rejected_on_grove() -> None:
    comp_name = "w" * 40
    # The PCS budget clamps at 8 characters, so "my-graph" stays whole: 8 + 40 = 48.
    [error] = errors_at(graph(component(comp_name), name="my-graph"), "spec.components[0].name", GROVE)
    assert error == FieldError(
        ErrorType.INVALID,
        "spec.components[0].name",
        "combined resource name length 48 exceeds the 45-character pod-name limit (PCS name + component name); "
        f'shorten DynamoGraphDeployment name "my-graph" or component name "{comp_name}"',
        comp_name,
    )


def test_multinode_name_budget_includes_the_longest_clique() -> None:
    comp_name = "W" * 20
    multinode = component(comp_name, multinode={"nodeCount": 2})
    [error] = errors_at(graph(multinode, name="my-graph-x"), "spec.components[0].name", GROVE)
    # truncated PCS (8) + component (20) + "wwww...-ldr" (24)
    longest = "w" * 20 + "-ldr"
    assert error.detail.startswith(
        "combined resource name length 52 exceeds the 45-character pod-name limit "
        f'(PCS name + PCSG name + longest PodClique name "{longest}")'
    )


def test_name_length_is_not_checked_off_grove() -> None:
    assert errors_at(graph(component("w" * 40), name="dgd"), "spec.components[0].name", NO_GROVE) == []


# --- rule 18 -------------------------------------------------------------------------------------


def inter_pod_gms() -> dict[str, Any]:
    return {"gpuMemoryService": {"mode": "InterPod"}}


def test_inter_pod_gms_off_grove_is_forbidden() -> None:
    path = "spec.components[0].experimental.gpuMemoryService.mode"
    assert errors_at(graph(component(experimental=inter_pod_gms())), path, NO_GROVE) == [
        FieldError(ErrorType.FORBIDDEN, path, COMPONENT_PROVIDER_REASON)
    ]


def test_inter_pod_gms_needs_vllm() -> None:
    path = "spec.components[0].experimental.gpuMemoryService.mode"
    dgd = graph(component(experimental=inter_pod_gms()), backendFramework="sglang")
    assert errors_at(dgd, path, GROVE) == [
        FieldError(
            ErrorType.INVALID,
            path,
            "the inter-pod GMS layout is currently supported only for vLLM (detected backend: sglang)",
            "InterPod",
        )
    ]


def test_inter_pod_gms_reports_an_unset_backend() -> None:
    path = "spec.components[0].experimental.gpuMemoryService.mode"
    dgd = DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "g"}, "spec": {"components": [component(experimental=inter_pod_gms())]}}
    )
    [error] = errors_at(dgd, path, GROVE)
    assert error.detail.endswith("(detected backend: <unset>)")


def test_inter_pod_gms_on_grove_with_vllm_passes_rule_18() -> None:
    path = "spec.components[0].experimental.gpuMemoryService.mode"
    assert errors_at(graph(component(experimental=inter_pod_gms())), path, GROVE) == []


# --- rule 21 -------------------------------------------------------------------------------------


def restart(order: list[str], strategy_type: str | None = None) -> dict[str, Any]:
    strategy: dict[str, Any] = {"order": order}
    if strategy_type:
        strategy["type"] = strategy_type
    return {"id": "r1", "strategy": strategy}


def two_components(**spec: Any) -> DynamoGraphDeployment:
    return graph(component("a"), component("b"), **spec)


def restart_errors(dgd: DynamoGraphDeployment) -> list[FieldError]:
    # spec.restart is rejected by CEL on create, so evaluate the rule itself.
    assert dgd.spec.restart is not None
    return restart_order_errors(dgd.spec.restart, dgd)


ORDER = "spec.restart.strategy.order"


def test_restart_order_naming_every_component_once_is_valid() -> None:
    assert restart_errors(two_components(restart=restart(["b", "a"]))) == []


def test_restart_order_with_parallel_strategy_is_forbidden() -> None:
    assert restart_errors(two_components(restart=restart(["a", "b"], "Parallel"))) == [
        FieldError(ErrorType.FORBIDDEN, ORDER, "cannot be specified when strategy is parallel")
    ]


def test_restart_order_duplicates_and_missing_components_are_invalid() -> None:
    assert restart_errors(two_components(restart=restart(["a", "a"]))) == [
        FieldError(ErrorType.INVALID, ORDER, "must be unique", ["a", "a"]),
        FieldError(
            ErrorType.INVALID,
            ORDER,
            "must have the same number of unique components as the deployment",
            ["a", "a"],
        ),
    ]


def test_restart_order_unknown_component_is_unsupported() -> None:
    errors = restart_errors(two_components(restart=restart(["a", "c"])))
    assert errors == [FieldError(ErrorType.NOT_SUPPORTED, f"{ORDER}[1]", "", "c", ("a", "b"))]


def test_restart_order_is_validated_on_update() -> None:
    old = two_components()
    new = two_components(restart=restart(["a", "c"]))
    errors = validate_update(old, new).errors
    assert FieldError(ErrorType.NOT_SUPPORTED, f"{ORDER}[1]", "", "c", ("a", "b")) in errors


# --- rule 24 -------------------------------------------------------------------------------------


def lpx_component() -> dict[str, Any]:
    template = {"spec": {"containers": [{"name": "main", "image": "lpx:1.0.0"}]}}
    return {
        "name": "model",
        "type": "lpx",
        "lpx": {"buildId": "builds/b1"},
        "roles": [{"name": "agent", "podTemplate": template}, {"name": "conductor", "podTemplate": template}],
    }


def test_lpx_requires_the_grove_pathway() -> None:
    assert errors_at(graph(lpx_component()), "spec.components", NO_GROVE)[-1] == FieldError(
        ErrorType.FORBIDDEN, "spec.components", COMPONENT_PROVIDER_REASON
    )


def test_lpx_on_grove_has_no_graph_level_error() -> None:
    assert [e for e in validate(graph(lpx_component()), GROVE).errors if e.path == "spec.components"] == []


def test_lpx_rejects_graph_topology_and_kv_transfer_policy() -> None:
    dgd = graph(
        lpx_component(),
        topologyConstraint={"clusterTopologyName": "t", "packDomain": "rack"},
        experimental={"kvTransferPolicy": {"labelKey": "k", "domain": "rack"}},
    )
    errors = validate(dgd, GROVE).errors
    assert (
        FieldError(
            ErrorType.FORBIDDEN, "spec.topologyConstraint", "LPX does not support Grove topologyConstraint"
        )
        in errors
    )
    assert (
        FieldError(
            ErrorType.FORBIDDEN,
            "spec.experimental.kvTransferPolicy",
            "is not supported when an LPX component is selected",
        )
        in errors
    )


# --- component rules run per component -----------------------------------------------------------


def test_shared_component_rules_run_for_each_component_path() -> None:
    bad = component("b", podTemplate={"spec": {"containers": [{"name": "main", "image": "img:latest"}]}})
    errors = validate(graph(component("a"), bad)).errors
    assert errors and all(e.path.startswith("spec.components[1]") for e in errors)


# --- conformance data ----------------------------------------------------------------------------

GOLDEN_PLATFORM = Platform.model_validate(
    {
        "operatorVersion": "1.4.0",
        "namespace": {"restricted": "clusterenv-golden"},
        "orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}},
    }
)


def test_golden_inputs_are_admitted_on_create_and_as_unchanged_updates(conformance_dir: Path) -> None:
    inputs = sorted((conformance_dir / "golden").glob("*/*/input.yaml"))
    assert inputs
    for path in inputs:
        for obj in load_documents(path).objects:
            assert validate(obj, GOLDEN_PLATFORM).errors == [], path
            assert validate_update(obj, obj, GOLDEN_PLATFORM).errors == [], path
