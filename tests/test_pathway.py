"""Workload provider selection (rendering-grove section 1, ERRATA 1.10-1.11)."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.defaulting.pathway import (
    ComponentWorkload,
    Pathway,
    choose_pathway,
    component_workload,
)
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform


def _graph(annotations: dict[str, str] | None = None, node_count: int | None = None) -> DynamoGraphDeployment:
    component: dict[str, Any] = {"name": "worker", "type": "worker"}
    if node_count is not None:
        component["multinode"] = {"nodeCount": node_count}
    meta: dict[str, Any] = {"name": "g", "namespace": "n"}
    if annotations:
        meta["annotations"] = annotations
    return DynamoGraphDeployment.model_validate(
        {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": meta,
         "spec": {"components": [component]}}
    )


def _platform(grove: bool = False, lws: bool = False) -> Platform:
    return Platform.model_validate({"orchestrators": {"grove": {"enabled": grove}, "lws": {"enabled": lws}}})


def test_grove_enabled_platform_selects_grove() -> None:
    assert choose_pathway(_graph(), _platform(grove=True)) is Pathway.GROVE


@pytest.mark.parametrize("value", ["false", "FALSE", "False"])
def test_enable_grove_false_annotation_opts_out_case_insensitively(value: str) -> None:
    graph = _graph({"nvidia.com/enable-grove": value})
    assert choose_pathway(graph, _platform(grove=True, lws=True)) is Pathway.COMPONENT


def test_enable_grove_other_values_do_not_opt_out() -> None:
    graph = _graph({"nvidia.com/enable-grove": "no"})
    assert choose_pathway(graph, _platform(grove=True)) is Pathway.GROVE


def test_grove_disabled_selects_component() -> None:
    assert choose_pathway(_graph(), _platform()) is Pathway.COMPONENT


def test_existing_component_provider_wins_over_grove_intent() -> None:
    graph = _graph({"nvidia.com/workload-provider": "component"})
    assert choose_pathway(graph, _platform(grove=True)) is Pathway.COMPONENT


def test_existing_grove_provider_wins_over_opt_out_annotation() -> None:
    graph = _graph({"nvidia.com/workload-provider": "grove", "nvidia.com/enable-grove": "false"})
    assert choose_pathway(graph, _platform(grove=True)) is Pathway.GROVE


def test_existing_grove_provider_with_grove_disabled_is_a_render_error() -> None:
    graph = _graph({"nvidia.com/workload-provider": "grove"})
    with pytest.raises(RenderError, match="unavailable because Grove is disabled"):
        choose_pathway(graph, _platform(lws=True))


def test_unknown_workload_provider_is_a_render_error() -> None:
    graph = _graph({"nvidia.com/workload-provider": "disaggregatedset"})
    with pytest.raises(RenderError, match='unsupported workload provider: "disaggregatedset"'):
        choose_pathway(graph, _platform(grove=True))


def test_multinode_without_grove_or_lws_has_no_orchestrator() -> None:
    with pytest.raises(RenderError, match="no multinode orchestrator available"):
        choose_pathway(_graph(node_count=2), _platform())


def test_multinode_on_component_pathway_with_lws_is_accepted() -> None:
    assert choose_pathway(_graph(node_count=2), _platform(lws=True)) is Pathway.COMPONENT


def test_multinode_with_grove_needs_no_lws() -> None:
    assert choose_pathway(_graph(node_count=3), _platform(grove=True)) is Pathway.GROVE


def test_component_workload_is_lws_only_for_multinode_with_lws_on() -> None:
    multinode = _graph(node_count=2).components[0]
    single = _graph().components[0]
    assert component_workload(multinode, _platform(lws=True)) is ComponentWorkload.LEADER_WORKER_SET
    assert component_workload(multinode, _platform()) is ComponentWorkload.DEPLOYMENT
    assert component_workload(single, _platform(lws=True)) is ComponentWorkload.DEPLOYMENT


# --- through the public pipeline ------------------------------------------------------------------


def _workload_kinds(graph: DynamoGraphDeployment, platform: Platform) -> set[str]:
    from dynamo_pulumi.render import render_graph

    kinds = {o["kind"] for o in render_graph(graph, platform).objects}
    return kinds & {"PodCliqueSet", "Deployment", "LeaderWorkerSet"}


def _image_graph(annotations: dict[str, str] | None = None, node_count: int | None = None) -> DynamoGraphDeployment:
    graph = _graph(annotations, node_count).to_wire()
    graph["spec"]["components"][0]["podTemplate"] = {"spec": {"containers": [
        {"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0",
         "command": ["python3", "-m", "dynamo.vllm"], "args": ["--model", "m"]}]}}
    return DynamoGraphDeployment.model_validate(graph)


def test_render_graph_routes_grove_graphs_to_one_pod_clique_set() -> None:
    assert _workload_kinds(_image_graph(node_count=2), _platform(grove=True, lws=True)) == {"PodCliqueSet"}


def test_render_graph_honours_the_grove_opt_out() -> None:
    graph = _image_graph({"nvidia.com/enable-grove": "false"}, node_count=2)
    assert _workload_kinds(graph, _platform(grove=True, lws=True)) == {"LeaderWorkerSet"}
