"""Property tests: whatever a user writes, loading and validation answer with our own error
types (never a traceback), and load -> dump -> load is stable."""

from __future__ import annotations

import copy
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynamo_pulumi.api.v1beta1 import ComponentType
from dynamo_pulumi.errors import DynamoPulumiError, Findings, GraphValidationError
from dynamo_pulumi.loading.documents import load_documents, parse_yaml, validate_loaded

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"

BETA_GRAPH: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g", "namespace": "ns"},
    "spec": {
        "backendFramework": "vllm",
        "components": [
            {"name": "Frontend", "type": "frontend", "replicas": 1,
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}},
            {"name": "Worker", "type": "worker", "replicas": 2, "sharedMemorySize": "8Gi",
             "multinode": {"nodeCount": 2},
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE,
                                                      "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}},
        ],
    },
}

ALPHA_GRAPH: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "a", "namespace": "ns"},
    "spec": {
        "backendFramework": "sglang",
        "pvcs": [{"name": "cache", "create": False}],
        "services": {
            "Frontend": {"componentType": "frontend", "dynamoNamespace": "x",
                         "extraPodSpec": {"mainContainer": {"image": IMAGE}}},
            "decode": {"componentType": "worker", "subComponentType": "decode", "replicas": 1,
                       "envs": [{"name": "A", "value": "1"}], "resources": {"limits": {"gpu": "1"}},
                       "volumeMounts": [{"name": "cache", "mountPoint": "/cache"}],
                       "sharedMemory": {"size": "1Gi"},
                       "extraPodSpec": {"mainContainer": {"image": IMAGE, "args": ["--tp", "1"]}}},
        },
    },
}

JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["", "0", "1Gi", "main", "frontend", "worker", "IntraPod", "vllm", IMAGE, "nvidia.com/gpu"])
)
JSON = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
FIELD_NAMES = st.sampled_from(
    ["name", "type", "replicas", "image", "multinode", "nodeCount", "podTemplate", "spec", "containers",
     "experimental", "failover", "gpuMemoryService", "checkpoint", "enabled", "mode", "eppConfig", "roles",
     "sharedMemorySize", "scalingAdapter", "annotations", "env", "envs", "services", "extraPodSpec",
     "mainContainer", "frontendSidecar", "volumeMounts", "runtimeVersionOverride", "bogus"]
) | st.text(max_size=10)

SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def containers(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every mapping and list in a document (mutation sites)."""
    out = [path]
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in items:
        if isinstance(child, (dict, list)):
            out += containers(child, (*path, key))
    return out


def at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """``base`` with a few random edits: replace, delete or add a field, or append to a list."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        site = at(doc, draw(st.sampled_from(containers(doc))))
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if isinstance(site, dict):
            if site and action in ("replace", "delete"):
                key = draw(st.sampled_from(sorted(site, key=str)))
                if action == "delete":
                    del site[key]
                else:
                    site[key] = draw(JSON)
            else:
                site[draw(FIELD_NAMES)] = draw(JSON)
        elif isinstance(site, list):
            if site and action == "replace":
                site[draw(st.integers(min_value=0, max_value=len(site) - 1))] = draw(JSON)
            elif site and action == "delete":
                site.pop()
            else:
                site.append(draw(JSON))
    return doc


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    out: list[tuple[Any, ...]] = []
    for key, child in items:
        out += _leaves(child, (*path, key)) if isinstance(child, (dict, list)) else [(*path, key)]
    return out


@st.composite
def retyped_alike(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """``base`` with a few leaves changed to other values of the same type, or removed: mostly
    schema-valid graphs, so the admission rules themselves get exercised."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        leaves = _leaves(doc)
        if not leaves:
            break
        path = draw(st.sampled_from(leaves))
        parent, key = at(doc, path[:-1]), path[-1]
        old = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[key]
        elif isinstance(old, bool):
            parent[key] = not old
        elif isinstance(old, int):
            parent[key] = draw(st.integers(min_value=-2, max_value=70000))
        elif isinstance(old, str):
            parent[key] = draw(st.sampled_from(["", "main", "worker", "prefill", "epp", "frontend", "0", "2Gi",
                                                "nvcr.io/x/vllm-runtime:1.5.0", "vllm:latest", old + "x"]))
    return doc


def corpus_documents() -> list[dict[str, Any]]:
    if not CORPUS.is_dir():
        return []
    docs: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.yaml")):
        docs += [d for d in parse_yaml(path.read_text()) if str(d.get("apiVersion", "")).startswith("nvidia.com/")]
    return docs


BASES = [BETA_GRAPH, ALPHA_GRAPH, *corpus_documents()]


def admit(doc: Any) -> None:
    """Load and validate; only our own errors may escape, and a loaded object must round-trip."""
    try:
        result = load_documents(doc)
    except DynamoPulumiError:
        return
    for lo in result.loaded:
        wire = lo.object.to_wire()
        try:
            again = load_documents(wire).loaded[0].object.to_wire()
        except DynamoPulumiError:
            again = None  # a converted alpha value the beta schema refuses (e.g. componentType "main")
        if again is not None:
            assert again == wire
        try:
            found = validate_loaded(lo)
        except DynamoPulumiError:
            continue
        assert isinstance(found, Findings)
        assert all(isinstance(w, str) for w in found.warnings)


@settings(SETTINGS, max_examples=400)
@given(st.sampled_from(BASES).flatmap(mutated))
def test_mutated_graphs_never_escape_our_error_types(doc: dict[str, Any]) -> None:
    admit(doc)


@settings(SETTINGS, max_examples=300)
@given(st.sampled_from(BASES).flatmap(retyped_alike))
def test_graphs_with_changed_values_never_escape_our_error_types(doc: dict[str, Any]) -> None:
    admit(doc)


@SETTINGS
@given(JSON)
def test_arbitrary_documents_are_refused_cleanly(doc: Any) -> None:
    admit(doc)


@SETTINGS
@given(st.text(max_size=200))
def test_arbitrary_text_is_refused_cleanly(text: str) -> None:
    admit(text + "\n")  # a trailing newline keeps text from being taken as a file name


@pytest.mark.parametrize("doc", BASES, ids=[f"base{i}" for i in range(len(BASES))])
def test_load_dump_load_is_stable_for_every_base_graph(doc: dict[str, Any]) -> None:
    """load -> dump -> load (the dump) -> dump gives the first dump again."""
    try:
        first = load_documents(doc).loaded[0].object.to_wire()
    except DynamoPulumiError:  # a published manifest refused at its schema
        admit(doc)
        return
    if types_outside_beta_enum(first):
        # A converted alpha componentType (e.g. "main") the v1beta1 schema refuses on re-apply.
        with pytest.raises(GraphValidationError):
            load_documents(copy.deepcopy(first))
    else:
        second = load_documents(copy.deepcopy(first)).loaded[0].object.to_wire()
        assert second == first
    admit(doc)


def types_outside_beta_enum(wire: dict[str, Any]) -> list[str]:
    allowed = typing.get_args(ComponentType)
    return [
        f"spec.components[{i}].type"
        for i, comp in enumerate(wire.get("spec", {}).get("components") or [])
        if comp.get("type") is not None and comp["type"] not in allowed
    ]


# --- random alpha graphs: conversion invariants ---------------------------------------------

SERVICE_NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,8}", fullmatch=True)
ENV = st.fixed_dictionaries({"name": st.sampled_from(["A", "B", "C", "HF_HOME"]), "value": st.text(max_size=4)})


@st.composite
def alpha_service(draw: st.DrawFn) -> dict[str, Any]:
    svc: dict[str, Any] = {"componentType": draw(st.sampled_from(["frontend", "worker", "planner", "main"]))}
    if svc["componentType"] == "worker" and draw(st.booleans()):
        svc["subComponentType"] = draw(st.sampled_from(["prefill", "decode", "custom"]))
    if draw(st.booleans()):
        svc["replicas"] = draw(st.integers(min_value=0, max_value=4))
    if draw(st.booleans()):
        svc["envs"] = draw(st.lists(ENV, max_size=3))
    if draw(st.booleans()):
        svc["resources"] = {"limits": {"gpu": draw(st.sampled_from(["1", "2", "8"])), "cpu": "1000m"}}
    if draw(st.booleans()):
        svc["volumeMounts"] = [{"name": "cache", "mountPoint": "/cache",
                                "useAsCompilationCache": draw(st.booleans())}]
    if draw(st.booleans()):
        svc["sharedMemory"] = draw(st.sampled_from([{"disabled": True}, {"size": "16Gi"}]))
    main: dict[str, Any] = {"image": IMAGE}
    if draw(st.booleans()):
        main["env"] = draw(st.lists(ENV, max_size=2))
    extra: dict[str, Any] = {"mainContainer": main}
    if draw(st.booleans()):
        extra["containers"] = [{"name": "logger", "image": "busybox"}]
    svc["extraPodSpec"] = extra
    if draw(st.booleans()):
        svc["frontendSidecar"] = {"image": IMAGE, "args": ["--http-port", "8000"]}
    return svc


ALPHA_GRAPHS = st.dictionaries(SERVICE_NAMES, alpha_service(), min_size=1, max_size=5).map(
    lambda services: {**ALPHA_GRAPH, "spec": {"backendFramework": "vllm", "services": services}}
)


@settings(SETTINGS, max_examples=150)
@given(ALPHA_GRAPHS)
def test_random_alpha_graphs_convert_with_main_first_and_alpha_paths(doc: dict[str, Any]) -> None:
    entry = load_documents(doc).loaded[0]
    components = entry.object.to_wire()["spec"]["components"]
    names = sorted(doc["spec"]["services"])
    assert [c["name"] for c in components] == names
    for i, (name, comp) in enumerate(zip(names, components, strict=True)):
        containers = comp["podTemplate"]["spec"]["containers"]
        assert containers[0]["name"] == "main" and containers[0]["image"] == IMAGE
        assert entry.path_map.alpha_path(f"spec.components[{i}].podTemplate.spec.containers[0].image") == (
            f"spec.services[{name}].extraPodSpec.mainContainer.image"
        )
        service = doc["spec"]["services"][name]
        last_by_name = {e["name"]: e for e in service["extraPodSpec"]["mainContainer"].get("env", [])}
        for env in last_by_name.values():
            assert env in containers[0]["env"]  # the mainContainer entry wins over envs
        if "frontendSidecar" in service:
            assert containers[-1]["name"] == "sidecar-frontend"
    admit(doc)
