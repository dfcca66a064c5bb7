"""DGD-owned objects around the PodCliqueSet on the Grove pathway (ERRATA 2.6-2.8)."""

from __future__ import annotations

from typing import Any

from grove_fixtures import component, graph, main_container

from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove import render_grove

GROVE = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})
GROVE_ETCD = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "discovery": {"backend": "etcd"}})


def _services(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == "Service"}


def _two_component_graph(**spec: Any) -> Any:
    decode = component("Decode", "decode", multinode={"nodeCount": 2}, modelRef={"name": "Qwen/Qwen3-0.6B"})
    return graph([component("frontend", "frontend"), decode], name="my.graph", **spec)


def test_grove_component_services_select_without_role_key() -> None:
    services = _services(render_grove(_two_component_graph(), GROVE, "n", worker_hash="abcd1234"))
    decode = services["my-graph-decode"]
    assert decode["spec"]["selector"] == {
        "nvidia.com/dynamo-component-type": "decode",
        "nvidia.com/dynamo-namespace": "n-my-graph",
        "nvidia.com/dynamo-component": "Decode",
    }
    assert decode["spec"]["ports"] == [{"name": "system", "port": 9090, "targetPort": "system", "protocol": "TCP"}]
    assert services["my-graph-frontend"]["spec"]["ports"][0]["port"] == 8000


def test_grove_service_labels_carry_graph_labels_worker_hash_and_discovery() -> None:
    dgd = _two_component_graph(labels={"team": "a"}, spec_annotations={"owner": "x"})
    decode = _services(render_grove(dgd, GROVE, "n", worker_hash="abcd1234"))["my-graph-decode"]
    assert decode["metadata"]["labels"] == {
        "team": "a",
        "nvidia.com/dynamo-worker-hash": "abcd1234",
        "nvidia.com/dynamo-discovery-backend": "kubernetes",
        "nvidia.com/dynamo-discovery-enabled": "true",
    }
    assert decode["metadata"]["annotations"] == {"owner": "x"}


def test_without_kubernetes_discovery_only_frontends_get_a_service() -> None:
    services = _services(render_grove(_two_component_graph(), GROVE_ETCD, "n", worker_hash="abcd1234"))
    assert "my-graph-frontend" in services and "my-graph-decode" not in services


def test_model_service_is_rendered_once_with_graph_annotations() -> None:
    dgd = _two_component_graph(spec_annotations={"owner": "x"})
    models = [s for s in _services(render_grove(dgd, GROVE, "n", worker_hash="h")).values()
              if s["metadata"]["name"].startswith("dynamo-model-")]
    (model,) = models
    assert model["metadata"]["annotations"] == {"owner": "x", "nvidia.com/dynamo-base-model": "Qwen/Qwen3-0.6B"}
    assert model["spec"]["clusterIP"] == "None"


def test_single_pod_elastic_ep_component_gets_a_headless_ray_service() -> None:
    args = ["--enable-elastic-ep", "--data-parallel-backend", "ray"]
    worker = component("worker", container=main_container(command=["python3", "-m", "dynamo.vllm"], args=args))
    services = _services(render_grove(graph([worker], backendFramework="vllm"), GROVE, "n", worker_hash="h"))
    ray = services["g-worker-ray"]
    assert ray["spec"]["clusterIP"] == "None" and ray["spec"]["publishNotReadyAddresses"] is True
    assert [p["name"] for p in ray["spec"]["ports"]] == ["ray-gcs", "system"]


def test_elastic_ep_service_is_not_rendered_for_several_replicas() -> None:
    args = ["--enable-elastic-ep", "--data-parallel-backend", "ray"]
    worker = component("worker", replicas=2,
                       container=main_container(command=["python3", "-m", "dynamo.vllm"], args=args))
    services = _services(render_grove(graph([worker], backendFramework="vllm"), GROVE, "n", worker_hash="h"))
    assert "g-worker-ray" not in services


def test_grove_pathway_includes_discovery_rbac_and_wait_leader_config_map() -> None:
    kinds = {(o["kind"], o["metadata"]["name"]) for o in render_grove(_two_component_graph(), GROVE, "n",
                                                                        worker_hash="h")}
    assert ("ServiceAccount", "my.graph-k8s-service-discovery") in kinds
    assert ("ConfigMap", "my.graph-wait-leader-script") in kinds
