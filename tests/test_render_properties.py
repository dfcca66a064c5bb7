"""Properties every component-pathway render has, over generated graphs: objects fit together,
the API server would accept them, and rendering is deterministic."""

from __future__ import annotations

from collections import Counter
from typing import Any

import kubernetes_validate
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph

PLATFORMS = st.sampled_from(
    [
        Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}}),
        Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}, "namespace": {"restricted": "ns"}}),
        Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}, "discovery": {"backend": "etcd"}}),
    ]
)
NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,10}", fullmatch=True)
GRAPH_NAMES = st.from_regex(r"[a-z][a-z0-9]{0,8}(\.[a-z0-9]{1,5})?", fullmatch=True)
BUILT_IN = ("v1", "apps/v1", "rbac.authorization.k8s.io/v1", "networking.k8s.io/v1")


@st.composite
def worker(draw: st.DrawFn, name: str) -> dict[str, Any]:
    component: dict[str, Any] = {
        "name": name,
        "type": draw(st.sampled_from(["worker", "prefill", "decode"])),
        "replicas": draw(st.integers(0, 4)),
        "podTemplate": {
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0",
                        "command": ["python3", "-m", "dynamo.vllm"],
                        "args": ["--model", "Qwen/Qwen3-0.6B"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            }
        },
    }
    if draw(st.booleans()):
        component["modelRef"] = {"name": draw(st.sampled_from(["Qwen/Qwen3-0.6B", "meta/llama"]))}
    if draw(st.booleans()):
        component["multinode"] = {"nodeCount": draw(st.integers(2, 4))}
    if draw(st.booleans()):
        component["sharedMemorySize"] = draw(st.sampled_from(["0", "16Gi"]))
    return component


@st.composite
def graphs(draw: st.DrawFn) -> DynamoGraphDeployment:
    names = draw(st.lists(NAMES, min_size=1, max_size=3, unique_by=str.lower))
    names = [n for n in names if n.lower() != "frontend"] or ["w"]
    components = [
        {"name": "Frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "f:1.4.0"}]}}}
    ]
    components += [draw(worker(n)) for n in names]
    spec: dict[str, Any] = {"backendFramework": "vllm", "components": components}
    if draw(st.booleans()):
        spec["env"] = [{"name": "GRAPH_ENV", "value": "x"}]
    doc = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": draw(GRAPH_NAMES)}, "spec": spec}
    return DynamoGraphDeployment.model_validate(doc)


def pod_templates(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for obj in objects:
        if obj["kind"] == "Deployment":
            found.append(obj["spec"]["template"])
        elif obj["kind"] == "LeaderWorkerSet":
            lwt = obj["spec"]["leaderWorkerTemplate"]
            found += [lwt["leaderTemplate"], lwt["workerTemplate"]]
    return found


def selects(selector: dict[str, Any], labels: dict[str, Any]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(graphs(), PLATFORMS)
def test_generated_graphs_render_to_objects_that_fit_together(graph: DynamoGraphDeployment, platform: Platform) -> None:
    result = render_graph(graph, platform, "ns")
    objects = result.objects
    templates = pod_templates(objects)
    assert Counter((o["kind"], o["metadata"]["name"]) for o in objects).most_common(1)[0][1] == 1
    for obj in objects:
        if obj["kind"] == "Service":
            assert any(selects(obj["spec"]["selector"], t["metadata"]["labels"]) for t in templates), obj["metadata"]["name"]
        if obj["kind"] == "Deployment":
            assert selects(obj["spec"]["selector"]["matchLabels"], obj["spec"]["template"]["metadata"]["labels"])
    for template in templates:
        volumes = {v["name"] for v in template["spec"].get("volumes") or []}
        for container in template["spec"]["containers"] + (template["spec"].get("initContainers") or []):
            assert {m["name"] for m in container.get("volumeMounts") or []} <= volumes


@SETTINGS
@given(graphs(), PLATFORMS)
def test_generated_graphs_render_valid_kubernetes_objects(graph: DynamoGraphDeployment, platform: Platform) -> None:
    for obj in render_graph(graph, platform, "ns").objects:
        if obj["apiVersion"] in BUILT_IN:
            kubernetes_validate.validate(obj, "1.34", strict=True)


@SETTINGS
@given(graphs(), PLATFORMS)
def test_rendering_is_deterministic_and_leaves_the_input_alone(graph: DynamoGraphDeployment, platform: Platform) -> None:
    before = graph.model_dump()
    first = render_graph(graph, platform, "ns")
    second = render_graph(graph, platform, "ns")
    assert yaml.safe_dump_all(first.components + first.objects) == yaml.safe_dump_all(second.components + second.objects)
    assert graph.model_dump() == before
