"""Grove PodCliqueSet/PodClique names and the 45-character budget (rule 17, ERRATA 1.19, 2.5)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
from dynamo_pulumi.floor.naming import fnv1a_32
from dynamo_pulumi.model.pcs_naming import (
    combined_name_length,
    longest_pod_clique_name,
    pcs_name,
    pcs_name_for_dgd,
    pod_clique_names,
)


def comp(name: str = "Worker", **fields: Any) -> DynamoComponentDeploymentSharedSpec:
    return DynamoComponentDeploymentSharedSpec.model_validate({"name": name, **fields})


def test_fnv1a_matches_the_published_test_vector() -> None:
    # FNV-1a 32-bit of "a" is 0xe40c292c (reference vector).
    assert fnv1a_32("a") == 0xE40C292C


def test_single_node_clique_is_the_lowercased_component_name() -> None:
    assert pod_clique_names(comp("Decode")) == ["decode"]


def test_multinode_cliques_are_leader_and_worker() -> None:
    assert pod_clique_names(comp("W", multinode={"nodeCount": 3})) == ["w-ldr", "w-wkr"]


def test_single_node_inter_pod_gms_has_a_gms_clique_then_the_engine() -> None:
    gms = {"gpuMemoryService": {"mode": "InterPod"}}
    assert pod_clique_names(comp("w", experimental=gms)) == ["w-gms-0", "w"]


def test_multinode_inter_pod_gms_has_one_gms_clique_per_rank() -> None:
    c = comp("w", multinode={"nodeCount": 3}, experimental={"gpuMemoryService": {"mode": "InterPod"}})
    assert pod_clique_names(c) == ["w-gms-0", "w-ldr", "w-gms-1", "w-wkr-1", "w-gms-2", "w-wkr-2"]


def test_forced_scaling_group_keeps_one_clique_named_after_the_component() -> None:
    assert pod_clique_names(comp("w", experimental={"grove": {"forceScalingGroup": True}})) == ["w"]


def test_longest_clique_is_the_component_name_unless_it_uses_a_scaling_group() -> None:
    assert longest_pod_clique_name(comp("abc")) == "abc"
    assert longest_pod_clique_name(comp("abc", multinode={"nodeCount": 2})) == "abc-ldr"


def test_short_dgd_name_is_the_pcs_name() -> None:
    assert pcs_name("my-graph", [comp("frontend")]) == "my-graph"


def test_long_dgd_name_is_truncated_with_a_fnv_suffix() -> None:
    name = "a" * 40
    # budget = 45 - len("worker") = 39 -> 34 characters, "-", 4 hex digits.
    result = pcs_name(name, [comp("worker")])
    assert result == "a" * 34 + "-" + f"{fnv1a_32(name) & 0xFFFF:04x}"
    assert len(result) == 39


def test_scaling_group_components_count_their_longest_clique_in_the_budget() -> None:
    # budget = 45 - (3 + len("abc-ldr")) = 35.
    assert pcs_name("b" * 35, [comp("abc", multinode={"nodeCount": 2})]) == "b" * 35
    assert len(pcs_name("b" * 36, [comp("abc", multinode={"nodeCount": 2})])) == 35


def test_pcs_budget_is_clamped_to_eight_characters() -> None:
    result = pcs_name("x" * 20, [comp("c" * 60)])
    assert len(result) == 8 and result.startswith("xxx-")


def test_pcs_name_for_dgd_uses_every_component() -> None:
    dgd = DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "g" * 40}, "spec": {"components": [{"name": "a"}, {"name": "b" * 10}]}}
    )
    assert len(pcs_name_for_dgd(dgd)) == 35


def test_combined_length_adds_the_longest_clique_for_multinode() -> None:
    assert combined_name_length("pcs", comp("ab")) == 5
    assert combined_name_length("pcs", comp("ab", multinode={"nodeCount": 2})) == 3 + 2 + len("ab-ldr")


def test_forced_scaling_group_counts_its_clique_twice() -> None:
    forced = comp("ab", experimental={"grove": {"forceScalingGroup": True}})
    assert combined_name_length("pcs", forced) == 3 + 2 + 2


@given(
    dgd_name=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=63),
    comp_name=st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789", min_size=1, max_size=40),
    nodes=st.integers(min_value=1, max_value=4),
)
def test_pcs_name_fits_the_budget_and_keeps_short_names(dgd_name: str, comp_name: str, nodes: int) -> None:
    fields: dict[str, Any] = {"multinode": {"nodeCount": nodes}} if nodes > 1 else {}
    c = comp(comp_name, **fields)
    budget = max(45 - (len(comp_name) + (len(longest_pod_clique_name(c)) if nodes > 1 else 0)), 8)
    result = pcs_name(dgd_name, [c])
    assert result == pcs_name(dgd_name, [c])
    if len(dgd_name) <= budget:
        assert result == dgd_name
    else:
        assert len(result) == budget and result.startswith(dgd_name[: budget - 5])
