"""Object names, hashes and the Dynamo namespace (rendering-core 2.1, 2.4, 2.5, 2.8, section 6)."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dynamo_pulumi.floor import naming

LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def test_dynamo_namespace_joins_namespace_and_graph_with_dots_as_hyphens() -> None:
    assert naming.dynamo_namespace("prod", "llama.v2") == "prod-llama-v2"


def test_global_dynamo_namespace_is_dynamo() -> None:
    assert naming.dynamo_namespace("prod", "graph", global_namespace=True) == "dynamo"


def test_dynamo_namespace_of_exactly_63_characters_is_unchanged() -> None:
    ns, name = "n" * 30, "g" * 32
    assert naming.dynamo_namespace(ns, name) == f"{ns}-{name}"
    assert len(naming.dynamo_namespace(ns, name)) == 63


def test_long_dynamo_namespace_is_shortened_with_16_char_sha256_of_namespace_slash_name() -> None:
    ns, name = "team-inference-production", "deepseek.r1.disaggregated-prefill-decode-graph"
    value = naming.dynamo_namespace(ns, name)
    digest = hashlib.sha256(f"{ns}/{name}".encode()).hexdigest()[:16]
    assert len(value) <= 63
    assert value.endswith("-" + digest)
    assert value.startswith("team-inference-production-deepseek-r1")


def test_long_dynamo_namespaces_of_different_graphs_differ() -> None:
    ns = "a" * 40
    assert naming.dynamo_namespace(ns, "b" * 30 + "x") != naming.dynamo_namespace(ns, "b" * 30 + "y")


@given(
    st.from_regex(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?", fullmatch=True),
    st.from_regex(r"[a-z0-9]([a-z0-9.-]{0,100}[a-z0-9])?", fullmatch=True),
)
def test_dynamo_namespace_is_always_a_valid_label_value(ns: str, name: str) -> None:
    value = naming.dynamo_namespace(ns, name)
    assert len(value) <= 63
    assert LABEL_VALUE.match(value)


def test_worker_dcd_name_carries_the_worker_hash_and_lowercases_the_component() -> None:
    assert naming.dcd_name("g", "VllmDecodeWorker", "decode", "ab12cd34") == "g-vllmdecodeworker-ab12cd34"


def test_non_worker_dcd_name_has_no_hash_suffix() -> None:
    assert naming.dcd_name("g", "Frontend", "frontend", "ab12cd34") == "g-frontend"


def test_dcd_name_keeps_dots() -> None:
    assert naming.dcd_name("llama.v2", "frontend", "frontend") == "llama.v2-frontend"


def test_component_service_name_replaces_dots_and_lowercases() -> None:
    assert naming.component_service_name("Llama.V2-frontend") == "llama-v2-frontend"


def test_lws_name_is_dcd_name_with_zero_suffix() -> None:
    assert naming.lws_name("vllm-disagg-decode-4e5bb2af") == "vllm-disagg-decode-4e5bb2af-0"


def test_model_service_name_is_first_8_hex_of_sha256_of_model() -> None:
    model = "Qwen/Qwen3-0.6B"
    assert naming.model_service_name(model) == "dynamo-model-" + hashlib.sha256(model.encode()).hexdigest()[:8]


def test_discovery_service_account_and_rbac_names() -> None:
    sa = naming.discovery_service_account_name("g")
    assert sa == "g-k8s-service-discovery"
    assert naming.role_name(sa) == "g-k8s-service-discovery-role"
    assert naming.role_binding_name(sa) == "g-k8s-service-discovery-binding"


def test_rbac_name_label_is_capped_at_63_with_sha256_suffix() -> None:
    sa = naming.discovery_service_account_name("x" * 60)
    value = naming.rbac_name_label_value(sa)
    assert len(value) == 63
    assert value == sa[:54] + "-" + hashlib.sha256(sa.encode()).hexdigest()[:8]


@pytest.mark.parametrize(("text", "expected"), [("", 0x811C9DC5), ("a", 0xE40C292C), ("foobar", 0xBF9CF968)])
def test_fnv1a_32_matches_reference_vectors(text: str, expected: int) -> None:
    assert naming.fnv1a_32(text) == expected


def test_truncate_with_fnv_keeps_short_names_and_cuts_long_ones_to_63() -> None:
    assert naming.truncate_with_fnv("short") == "short"
    long = "x" * 80
    cut = naming.truncate_with_fnv(long)
    assert len(cut) == 63
    assert cut.endswith("-" + naming.fnv_suffix(long))
