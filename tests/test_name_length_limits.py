"""Every length limit in ``floor/naming.py`` and ``model/pcs_naming.py``, at the limit and one past it.

A name one character too long is refused by the API server (63 for a DNS label or a label
value) or makes Grove's pod names overflow (the 45-character budget of
``MaxCombinedGroveResourceNameLength``); a name shortened one character too early renames an
object that fitted, and with it every object of a running graph. So each limit is pinned on both
sides, with the exact shape of the shortened name (prefix length, separator, hash length).
Kubernetes label-key limits are in ``floor/kube_names.py`` and tested beside it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
from dynamo_pulumi.floor import naming
from dynamo_pulumi.floor.constants import (
    DNS1123_LABEL_MAX_LENGTH,
    LABEL_VALUE_MAX_LENGTH,
    MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH,
)
from dynamo_pulumi.model.pcs_naming import (
    MIN_PCS_NAME_LENGTH,
    combined_name_length,
    pcs_name,
    pcs_name_for_dgd,
)
from dynamo_pulumi.validation.graph import name_length_errors


def test_the_limits_are_the_kubernetes_and_grove_numbers() -> None:
    assert (DNS1123_LABEL_MAX_LENGTH, LABEL_VALUE_MAX_LENGTH) == (63, 63)
    assert MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH == 45
    assert MIN_PCS_NAME_LENGTH == 8
    assert naming.DYNAMO_NAMESPACE_HASH_LENGTH == 16


def _sha(text: str, length: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:length]


# --- the Dynamo namespace: a label value of at most 63 characters ---------------------------------


def test_a_dynamo_namespace_of_63_characters_is_kept() -> None:
    ns, name = "n" * 31, "g" * 31  # "<ns>-<name>": 63
    assert naming.dynamo_namespace(ns, name) == f"{ns}-{name}"


def test_a_dynamo_namespace_of_64_characters_is_46_characters_a_hyphen_and_16_hex() -> None:
    ns, name = "n" * 31, "g" * 32  # 64
    value = naming.dynamo_namespace(ns, name)
    assert value == f"{ns}-{'g' * 14}-{_sha(f'{ns}/{name}', 16)}"
    assert len(value) == 63


def test_the_dynamo_namespace_hash_is_of_the_name_as_written_not_with_dots_as_hyphens() -> None:
    ns = "n" * 31
    dotted, hyphenated = naming.dynamo_namespace(ns, "a.b" + "g" * 30), naming.dynamo_namespace(ns, "a-b" + "g" * 30)
    assert dotted != hyphenated
    assert dotted.endswith(_sha(f"{ns}/a.b{'g' * 30}", 16))


def test_a_hyphen_where_the_dynamo_namespace_is_cut_is_dropped() -> None:
    ns, name = "n" * 45, "g" * 30  # the 46th character of "<ns>-<name>" is the joining hyphen
    value = naming.dynamo_namespace(ns, name)
    assert value == f"{ns}-{_sha(f'{ns}/{name}', 16)}"
    assert "--" not in value and len(value) == 62


def test_a_global_dynamo_namespace_ignores_the_length() -> None:
    assert naming.dynamo_namespace("n" * 63, "g" * 63, global_namespace=True) == "dynamo"


# --- truncate_with_fnv: a DNS label of at most 63 characters --------------------------------------


def test_a_name_of_63_characters_is_not_truncated() -> None:
    assert naming.truncate_with_fnv("x" * 63) == "x" * 63


def test_a_name_of_64_characters_is_58_characters_a_hyphen_and_4_hex() -> None:
    name = "x" * 64
    assert naming.truncate_with_fnv(name) == "x" * 58 + "-" + naming.fnv_suffix(name)


@pytest.mark.parametrize(("limit", "kept"), [(10, 5), (20, 15)])
def test_truncate_with_fnv_honours_another_limit(limit: int, kept: int) -> None:
    assert naming.truncate_with_fnv("y" * limit, limit) == "y" * limit
    assert naming.truncate_with_fnv("y" * (limit + 1), limit) == "y" * kept + "-" + naming.fnv_suffix("y" * (limit + 1))


def test_the_fnv_suffix_is_the_low_16_bits_in_4_hex_digits() -> None:
    # FNV-1a("a") = 0xe40c292c: the low 16 bits are 0x292c; a small value keeps its leading zeros.
    assert naming.fnv_suffix("a") == "292c"
    small = next(t for t in (f"k{i}" for i in range(10_000)) if naming.fnv1a_32(t) & 0xFFFF < 0x1000)
    assert naming.fnv_suffix(small) == f"{naming.fnv1a_32(small) & 0xFFFF:04x}" and naming.fnv_suffix(small)[0] == "0"


# --- the RBAC name label: a label value of at most 63 characters ----------------------------------


def test_an_rbac_name_label_of_63_characters_is_kept() -> None:
    assert naming.rbac_name_label_value("r" * 63) == "r" * 63


def test_an_rbac_name_label_of_64_characters_is_54_characters_a_hyphen_and_8_hex() -> None:
    name = "r" * 64
    assert naming.rbac_name_label_value(name) == "r" * 54 + "-" + _sha(name, 8)


# --- the Grove 45-character budget ----------------------------------------------------------------


def comp(name: str, **fields: Any) -> DynamoComponentDeploymentSharedSpec:
    return DynamoComponentDeploymentSharedSpec.model_validate({"name": name, **fields})


def _fnv4(name: str) -> str:
    return naming.fnv_suffix(name)


@pytest.mark.parametrize("component", [comp("c" * 10), comp("ab", multinode={"nodeCount": 2})])
def test_a_pcs_name_that_fills_the_budget_is_the_graph_name_and_one_more_character_is_cut(component: Any) -> None:
    budget = MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH - (combined_name_length("", component))
    at_limit, past = "g" * budget, "g" * (budget + 1)
    assert pcs_name(at_limit, [component]) == at_limit
    assert pcs_name(past, [component]) == "g" * (budget - 5) + "-" + _fnv4(past)
    assert combined_name_length(pcs_name(past, [component]), component) == MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH


def test_the_widest_component_sets_the_budget() -> None:
    components = [comp("a"), comp("b" * 20), comp("c" * 5)]
    assert pcs_name("g" * 25, components) == "g" * 25
    assert len(pcs_name("g" * 26, components)) == 25


def test_without_components_the_whole_45_is_the_pcs_budget() -> None:
    assert pcs_name("g" * 45, []) == "g" * 45
    assert pcs_name("g" * 46, []) == "g" * 40 + "-" + _fnv4("g" * 46)


@pytest.mark.parametrize(("width", "budget"), [(37, 8), (38, 8), (60, 8), (36, 9)])
def test_the_pcs_budget_never_falls_below_8(width: int, budget: int) -> None:
    components = [comp("c" * width)]
    assert pcs_name("g" * budget, components) == "g" * budget
    past = "g" * (budget + 1)
    assert pcs_name(past, components) == "g" * (budget - 5) + "-" + _fnv4(past)


def _graph(name: str, component: str) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate({"metadata": {"name": name}, "spec": {"components": [{"name": component}]}})


@pytest.mark.parametrize(("width", "refused"), [(37, False), (38, True)])
def test_a_pod_name_of_45_characters_is_admitted_and_46_refused(width: int, refused: bool) -> None:
    """Rule 17: only a component so wide that the PCS name is clamped to 8 can overflow."""
    dgd = _graph("g" * 20, "c" * width)
    pcs = pcs_name_for_dgd(dgd)
    assert combined_name_length(pcs, dgd.components[0]) == 8 + width
    errors = name_length_errors(dgd, pcs, 0)
    assert bool(errors) is refused
    if refused:
        assert errors[0].path == "spec.components[0].name"
        assert f"combined resource name length {8 + width} exceeds the 45-character" in errors[0].detail


# --- names around the limits (mutation survivors: each a rule no test held) ------------------------


def test_the_runtime_namespace_is_the_dynamo_namespace_with_the_worker_hash_when_there_is_one() -> None:
    assert naming.runtime_namespace("team-a-g", "ab12cd34") == "team-a-g-ab12cd34"
    assert naming.runtime_namespace("team-a-g", "") == "team-a-g"
    assert naming.runtime_namespace("team-a-g", None) == "team-a-g"


def test_a_worker_dcd_name_without_a_hash_has_no_suffix() -> None:
    assert naming.dcd_name("g", "Decode", "decode") == "g-decode"


@pytest.mark.parametrize(("index", "name"), [(0, "g-decode-0"), (1, "g-decode-1"), (2, "g-decode-2")])
def test_each_leader_worker_set_of_a_dcd_is_numbered(index: int, name: str) -> None:
    assert naming.lws_name("g-decode", index) == name


def test_two_node_inter_pod_gms_has_a_gms_clique_per_rank() -> None:
    from dynamo_pulumi.model.pcs_naming import pod_clique_names

    c = comp("w", multinode={"nodeCount": 2}, experimental={"gpuMemoryService": {"mode": "InterPod"}})
    assert pod_clique_names(c) == ["w-gms-0", "w-ldr", "w-gms-1", "w-wkr-1"]


def test_the_grove_resource_of_a_component_is_its_lowercased_name_at_replica_0() -> None:
    from dynamo_pulumi.model.pcs_naming import grove_component_resource_name

    assert grove_component_resource_name("g-1a2b", "VllmDecodeWorker") == "g-1a2b-0-vllmdecodeworker"
