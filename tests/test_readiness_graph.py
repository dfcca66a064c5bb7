"""The DGD aggregation and graph readiness over rendered objects (ERRATA 3.10-3.11, A4).

Expected messages are the operator's, in full: "All resources are ready", or "Resources not
ready: " followed by ``<name>: <reason>`` per not-ready resource, sorted by name, joined by "; ".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_readiness_support import patched, recorded

from dynamo_pulumi.readiness import (
    ALL_RESOURCES_ARE_READY,
    INSUFFICIENT_CAPACITY,
    MIXED_NOT_READY_REASONS,
    PODS_NOT_READY,
    SOME_RESOURCES_ARE_NOT_READY,
    InMemoryReader,
    ObjectReader,
    ReadinessResult,
    ResourceReadiness,
    aggregate,
    check_resources_readiness,
    graph_readiness,
    resource_readiness,
)

ALL_READY = ReadinessResult(True, ALL_RESOURCES_ARE_READY, "All resources are ready")
DCD_NOT_AVAILABLE = "Component deployment not ready - Available condition not true"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


# --- checkResourcesReadiness -----------------------------------------------------------------------


def test_all_ready_and_empty() -> None:
    ready = ReadinessResult(True, "", "")
    assert (
        check_resources_readiness([ResourceReadiness("a", "DynamoComponentDeployment", ready)]) == ALL_READY
    )
    assert check_resources_readiness([]) == ALL_READY


def test_not_ready_resources_sorted_by_name() -> None:
    stale = ReadinessResult(
        False, SOME_RESOURCES_ARE_NOT_READY, "spec not yet processed: generation=2, observedGeneration=1"
    )
    unavailable = ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, DCD_NOT_AVAILABLE)
    resources = [
        ResourceReadiness("g-worker-1a2b3c4d", "DynamoComponentDeployment", unavailable),
        ResourceReadiness("g-planner", "DynamoComponentDeployment", ReadinessResult(True, "", "")),
        ResourceReadiness("g-frontend", "DynamoComponentDeployment", stale),
    ]
    assert check_resources_readiness(resources) == ReadinessResult(
        False,
        SOME_RESOURCES_ARE_NOT_READY,
        "Resources not ready: g-frontend: spec not yet processed: generation=2, observedGeneration=1; "
        f"g-worker-1a2b3c4d: {DCD_NOT_AVAILABLE}",
    )


def test_grove_classification_replaces_the_generic_reason() -> None:
    pcs = ResourceReadiness(
        "test-dgd",
        "PodCliqueSet",
        ReadinessResult(False, PODS_NOT_READY, "frontend: scheduled but ready=1/2"),
    )
    assert aggregate([pcs]) == ReadinessResult(
        False, PODS_NOT_READY, "Resources not ready: test-dgd: frontend: scheduled but ready=1/2"
    )


# --- component pathway: workloads standing in for their DCDs ----------------------------------------


def _deployment(name: str, **status: Any) -> dict[str, Any]:
    return patched(recorded("deployment"), {"metadata": {"name": name}, "status": status})


def _rendered(api_version: str, kind: str, name: str, namespace: str = "dynamo") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": namespace}}


COMPONENT_RENDER = [
    _rendered("v1", "ServiceAccount", "vllm-agg-k8s-service-discovery"),
    _rendered("apps/v1", "Deployment", "vllm-agg-vllmworker-8457187c"),
    _rendered("v1", "Service", "vllm-agg-vllmworker-8457187c"),
    _rendered("apps/v1", "Deployment", "vllm-agg-frontend"),
    _rendered("v1", "Service", "vllm-agg-frontend"),
    _rendered("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "vllm-agg-prefill-8457187c-0"),
]


def _lws(name: str, **status: Any) -> dict[str, Any]:
    return patched(recorded("leaderworkerset"), {"metadata": {"name": name}, "status": status})


def test_component_graph_all_ready() -> None:
    reader = InMemoryReader(
        [
            _deployment("vllm-agg-frontend"),
            _deployment("vllm-agg-vllmworker-8457187c"),
            _lws("vllm-agg-prefill-8457187c-0"),
        ]
    )
    assert graph_readiness(COMPONENT_RENDER, reader) == ALL_READY
    # Only workloads are read; Services and RBAC cannot make a graph not ready.
    assert [key[1] for key in reader.reads] == ["Deployment", "Deployment", "LeaderWorkerSet"]


def test_component_graph_not_ready_names_the_dcds() -> None:
    reader = InMemoryReader(
        [
            _deployment("vllm-agg-frontend"),
            _deployment("vllm-agg-vllmworker-8457187c", availableReplicas=1),
            _lws("vllm-agg-prefill-8457187c-0", readyReplicas=0),
        ]
    )
    assert graph_readiness(COMPONENT_RENDER, reader) == ReadinessResult(
        False,
        SOME_RESOURCES_ARE_NOT_READY,
        f"Resources not ready: vllm-agg-prefill-8457187c: {DCD_NOT_AVAILABLE}; "
        f"vllm-agg-vllmworker-8457187c: {DCD_NOT_AVAILABLE}",
        "vllm-agg-prefill-8457187c: LeaderWorkerSet is not ready: readyReplicas=0 < desired=2; "
        "vllm-agg-vllmworker-8457187c: Deployment is not ready: availableReplicas=1 < desired=2",
    )


def test_component_graph_missing_workload() -> None:
    reader = InMemoryReader([_deployment("vllm-agg-frontend"), _lws("vllm-agg-prefill-8457187c-0")])
    result = graph_readiness(COMPONENT_RENDER, reader)
    assert result.message == f"Resources not ready: vllm-agg-vllmworker-8457187c: {DCD_NOT_AVAILABLE}"
    assert result.detail == "vllm-agg-vllmworker-8457187c: Deployment is not ready: Deployment not found"


def test_rendered_dcds_are_read_as_dcds() -> None:
    rendered = [_rendered("nvidia.com/v1beta1", "DynamoComponentDeployment", "vllm-agg-frontend")]
    stale = patched(recorded("dcd"), {"metadata": {"generation": 4}})
    assert graph_readiness(rendered, InMemoryReader([stale])) == ReadinessResult(
        False,
        SOME_RESOURCES_ARE_NOT_READY,
        "Resources not ready: vllm-agg-frontend: spec not yet processed: generation=4, observedGeneration=3",
    )
    assert graph_readiness(rendered, InMemoryReader([recorded("dcd")])) == ALL_READY


# --- Grove pathway (the operator's TestEvaluateGroveReadiness cases) --------------------------------


def _pcs(components: list[tuple[str, bool]]) -> dict[str, Any]:
    """A rendered PCS "test-dgd": (component, multinode) in component order."""
    cliques: list[dict[str, Any]] = []
    groups: list[dict[str, Any]] = []
    for component, multinode in components:
        base = component.lower()
        labels = {"nvidia.com/dynamo-component": component}
        if multinode:
            names = [f"{base}-ldr", f"{base}-wkr"]
            cliques += [{"name": n, "labels": labels, "spec": {"replicas": 1}} for n in names]
            groups.append({"name": base, "cliqueNames": names, "replicas": 2, "minAvailable": 1})
        else:
            cliques.append({"name": base, "labels": labels, "spec": {"replicas": 1}})
    return {
        "apiVersion": "grove.io/v1alpha1",
        "kind": "PodCliqueSet",
        "metadata": {"name": "test-dgd", "namespace": "default"},
        "spec": {"replicas": 1, "template": {"cliques": cliques, "podCliqueScalingGroups": groups}},
    }


def _grove_render(components: list[tuple[str, bool]]) -> list[dict[str, Any]]:
    return [
        _pcs(components),
        *[_rendered("v1", "Service", f"test-dgd-{c.lower()}", "default") for c, _ in components],
        _rendered("v1", "ConfigMap", "test-dgd-wait-leader-script", "default"),
    ]


def _clique(name: str, desired: int, namespace: str = "default", **status: Any) -> dict[str, Any]:
    obj = patched(recorded("podclique"), {"metadata": {"name": name, "namespace": namespace}})
    obj["spec"]["replicas"] = desired
    obj["status"] = {"observedGeneration": 1, "scheduleGatedReplicas": 0, "conditions": [], **status}
    return obj


def _group(name: str, desired: int, namespace: str = "default", **status: Any) -> dict[str, Any]:
    obj = patched(recorded("pcsg"), {"metadata": {"name": name, "namespace": namespace}})
    obj["spec"]["replicas"] = desired
    obj["status"] = {"observedGeneration": 1, "conditions": [], **status}
    return obj


def test_grove_single_node_component_not_ready() -> None:
    reader = InMemoryReader(
        [
            _clique(
                "test-dgd-0-frontend", 2, replicas=2, updatedReplicas=2, readyReplicas=1, scheduledReplicas=2
            )
        ]
    )
    assert graph_readiness(_grove_render([("frontend", False)]), reader) == ReadinessResult(
        False, PODS_NOT_READY, "Resources not ready: test-dgd: frontend: scheduled but ready=1/2"
    )
    # The operator reads one child per component and nothing else (Services are always ready).
    assert reader.reads == [("grove.io/v1alpha1", "PodClique", "default", "test-dgd-0-frontend")]
    listed = resource_readiness(_grove_render([("frontend", False)]), reader)
    assert [(r.kind, r.name, r.result.ready) for r in listed] == [
        ("PodCliqueSet", "test-dgd", False),
        ("Service", "test-dgd-frontend", True),
    ]


def test_grove_all_multinode_components_ready() -> None:
    reader = InMemoryReader(
        [
            _group(
                "test-dgd-0-decode",
                2,
                replicas=2,
                updatedReplicas=2,
                availableReplicas=2,
                scheduledReplicas=2,
            ),
            _group(
                "test-dgd-0-prefill",
                3,
                replicas=3,
                updatedReplicas=3,
                availableReplicas=3,
                scheduledReplicas=3,
            ),
        ]
    )
    assert graph_readiness(_grove_render([("decode", True), ("prefill", True)]), reader) == ALL_READY


def test_grove_multinode_component_not_ready() -> None:
    reader = InMemoryReader(
        [
            _group(
                "test-dgd-0-worker",
                2,
                replicas=2,
                updatedReplicas=2,
                availableReplicas=1,
                scheduledReplicas=2,
            )
        ]
    )
    assert graph_readiness(_grove_render([("worker", True)]), reader) == ReadinessResult(
        False, PODS_NOT_READY, "Resources not ready: test-dgd: worker: scheduled but available=1/2"
    )


def test_grove_mixed_kinds_some_ready() -> None:
    reader = InMemoryReader(
        [
            _clique(
                "test-dgd-0-frontend", 1, replicas=1, updatedReplicas=1, readyReplicas=1, scheduledReplicas=1
            ),
            _group(
                "test-dgd-0-decode",
                2,
                replicas=2,
                updatedReplicas=2,
                availableReplicas=1,
                scheduledReplicas=2,
            ),
            _group(
                "test-dgd-0-prefill",
                2,
                replicas=2,
                updatedReplicas=2,
                availableReplicas=2,
                scheduledReplicas=2,
            ),
        ]
    )
    render = _grove_render([("frontend", False), ("decode", True), ("prefill", True)])
    assert graph_readiness(render, reader) == ReadinessResult(
        False, PODS_NOT_READY, "Resources not ready: test-dgd: decode: scheduled but available=1/2"
    )
    (pcs,) = [r for r in resource_readiness(render, reader) if r.kind == "PodCliqueSet"]
    assert [(c.component.component, c.component.kind, c.result.ready) for c in pcs.components] == [
        ("frontend", "PodClique", True),
        ("decode", "PodCliqueScalingGroup", False),
        ("prefill", "PodCliqueScalingGroup", True),
    ]


def test_grove_child_missing() -> None:
    assert graph_readiness(_grove_render([("frontend", False)]), InMemoryReader()) == ReadinessResult(
        False, SOME_RESOURCES_ARE_NOT_READY, "Resources not ready: test-dgd: frontend: resource not found"
    )


def test_grove_components_agree_on_capacity() -> None:
    reader = InMemoryReader(
        [
            _clique(
                "test-dgd-0-frontend",
                1,
                replicas=1,
                updatedReplicas=1,
                readyReplicas=0,
                scheduleGatedReplicas=1,
            ),
            _group(
                "test-dgd-0-worker",
                2,
                replicas=2,
                updatedReplicas=2,
                availableReplicas=0,
                scheduledReplicas=1,
            ),
        ]
    )
    result = graph_readiness(_grove_render([("frontend", False), ("worker", True)]), reader)
    assert result == ReadinessResult(
        False,
        INSUFFICIENT_CAPACITY,
        "Resources not ready: test-dgd: frontend: schedule-gated replicas: 1; "
        "worker: insufficient scheduled replicas: scheduled=1/2",
    )


def test_grove_components_disagree() -> None:
    reader = InMemoryReader(
        [
            _clique(
                "test-dgd-0-frontend", 1, replicas=1, updatedReplicas=0, readyReplicas=1, scheduledReplicas=1
            ),
            # Missing worker child: unclassified, which also disagrees with "updating".
        ]
    )
    result = graph_readiness(_grove_render([("frontend", False), ("worker", True)]), reader)
    assert result == ReadinessResult(
        False,
        MIXED_NOT_READY_REASONS,
        "Resources not ready: test-dgd: frontend: desired=1, updated=0; worker: resource not found",
    )


# --- rendered examples end to end ------------------------------------------------------------------


def _render(example: str, platform: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    from dynamo_pulumi.loading.documents import load_graph
    from dynamo_pulumi.platform import load_platform
    from dynamo_pulumi.render import render_graph

    graph = load_graph(EXAMPLES / example / "graph.yaml")
    return render_graph(graph, load_platform(platform), "dynamo").objects


def _healthy(obj: dict[str, Any]) -> dict[str, Any] | None:
    """A healthy live object for a rendered workload (None for kinds we do not read)."""
    if obj["kind"] not in ("Deployment", "LeaderWorkerSet"):
        return None
    name, replicas = obj["metadata"]["name"], obj["spec"].get("replicas", 1)
    if obj["kind"] == "Deployment":
        counts = {"replicas": replicas, "updatedReplicas": replicas, "availableReplicas": replicas}
        return patched(
            recorded("deployment"),
            {"metadata": {"name": name}, "spec": {"replicas": replicas}, "status": counts},
        )
    if obj["kind"] == "LeaderWorkerSet":
        return patched(
            recorded("leaderworkerset"),
            {
                "metadata": {"name": name},
                "spec": {"replicas": replicas},
                "status": {"readyReplicas": replicas},
            },
        )


def test_rendered_component_example() -> None:
    objects = _render("aggregated-vllm")
    workloads = [o for o in objects if o["kind"] == "Deployment"]
    assert workloads
    live = [h for h in map(_healthy, objects) if h is not None]
    assert graph_readiness(objects, InMemoryReader(live)) == ALL_READY

    first = sorted(w["metadata"]["name"] for w in workloads)[0]
    reader = InMemoryReader([h for h in live if h["metadata"]["name"] != first])
    result = graph_readiness(objects, reader)
    assert result.message == f"Resources not ready: {first}: {DCD_NOT_AVAILABLE}"


def test_rendered_multinode_example_on_lws() -> None:
    objects = _render("multinode-grove", {"orchestrators": {"lws": {"enabled": True}}})
    lws = [o for o in objects if o["kind"] == "LeaderWorkerSet"]
    assert lws
    live = [h for h in map(_healthy, objects) if h is not None]
    live = [
        patched(h, {"status": {"readyReplicas": 0}}) if h["kind"] == "LeaderWorkerSet" else h for h in live
    ]
    names = sorted(o["metadata"]["name"].removesuffix("-0") for o in lws)
    assert graph_readiness(objects, InMemoryReader(live)).message == "Resources not ready: " + "; ".join(
        f"{n}: {DCD_NOT_AVAILABLE}" for n in names
    )


def test_rendered_grove_example() -> None:
    objects = _render("multinode-grove", {"orchestrators": {"grove": {"enabled": True}}})
    (pcs,) = [o for o in objects if o["kind"] == "PodCliqueSet"]
    name = pcs["metadata"]["name"]
    counts = {"replicas": 1, "updatedReplicas": 1, "scheduledReplicas": 1}
    reader = InMemoryReader(
        [
            _clique(f"{name}-0-frontend", 1, "dynamo", readyReplicas=1, **counts),
            _group(f"{name}-0-prefill", 1, "dynamo", availableReplicas=1, **counts),
        ]
    )
    assert graph_readiness(objects, reader) == ReadinessResult(
        False, SOME_RESOURCES_ARE_NOT_READY, f"Resources not ready: {name}: decode: resource not found"
    )


# --- readers ---------------------------------------------------------------------------------------


def test_in_memory_reader_is_an_object_reader() -> None:
    reader = InMemoryReader([recorded("deployment")])
    assert isinstance(reader, ObjectReader)
    assert reader.get("apps/v1", "Deployment", "dynamo", "vllm-agg-frontend") == recorded("deployment")
    assert reader.get("apps/v1", "Deployment", "other", "vllm-agg-frontend") is None
