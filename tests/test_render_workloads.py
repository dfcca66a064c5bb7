"""Objects the DCD controller owns: Deployment (2.2), LeaderWorkerSet (8), Services (2.4, 2.5)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph

DCD = """
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata: {name: my-worker, namespace: ns}
spec:
  type: worker
  backendFramework: vllm
  podTemplate:
    spec:
      containers:
      - name: main
        image: "worker:1.4.0"
        command: [python3, -m, dynamo.vllm]
        args: [--model, m]
"""
LWS = Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}})


def render_dcd(text: str = DCD, platform: Platform | None = None, **spec: Any) -> list[dict[str, Any]]:
    doc = yaml.safe_load(text)
    doc["spec"].update(spec)
    return render_graph(DynamoComponentDeployment.model_validate(doc), platform or Platform()).objects


def only(objects: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [o for o in objects if o["kind"] == kind]
    assert len(found) == 1, [o["metadata"]["name"] for o in found]
    return found[0]


def with_template_annotations(annotations: dict[str, str]) -> str:
    doc = yaml.safe_load(DCD)
    doc["spec"]["podTemplate"]["metadata"] = {"annotations": annotations}
    return yaml.safe_dump(doc)


# --- Deployment ----------------------------------------------------------------------------------


def test_deployment_defaults_to_rolling_update_25_percent() -> None:
    strategy = only(render_dcd(), "Deployment")["spec"]["strategy"]
    assert strategy == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}


def test_recreate_strategy_annotation_gives_recreate_without_rolling_update() -> None:
    deployment = only(render_dcd(with_template_annotations({"nvidia.com/deployment-strategy": "Recreate"})), "Deployment")
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}


def test_strategy_value_is_case_sensitive() -> None:
    deployment = only(render_dcd(with_template_annotations({"nvidia.com/deployment-strategy": "recreate"})), "Deployment")
    assert deployment["spec"]["strategy"]["type"] == "RollingUpdate"


@pytest.mark.parametrize(("surge", "expected"), [("2", 2), ("30%", "30%")])
def test_surge_annotation_is_int_or_percent(surge: str, expected: int | str) -> None:
    text = with_template_annotations({"nvidia.com/deployment-rolling-update-max-surge": surge})
    rolling = only(render_dcd(text), "Deployment")["spec"]["strategy"]["rollingUpdate"]
    assert rolling == {"maxSurge": expected, "maxUnavailable": "25%"}


def test_deployment_selects_its_pods_by_the_dcd_name() -> None:
    deployment = only(render_dcd(), "Deployment")
    assert deployment["spec"]["selector"] == {"matchLabels": {"nvidia.com/selector": "my-worker"}}
    assert deployment["spec"]["template"]["metadata"]["labels"]["nvidia.com/selector"] == "my-worker"


def test_deployment_replicas_are_omitted_when_unset_and_copied_when_set() -> None:
    assert "replicas" not in only(render_dcd(), "Deployment")["spec"]
    assert only(render_dcd(replicas=3), "Deployment")["spec"]["replicas"] == 3


def test_deployment_metadata_drops_the_origin_version_annotation() -> None:
    text = with_template_annotations({"nvidia.com/dynamo-operator-origin-version": "1.4.0", "keep": "me"})
    deployment = only(render_dcd(text), "Deployment")
    assert deployment["metadata"]["annotations"] == {"keep": "me"}


# --- LeaderWorkerSet -----------------------------------------------------------------------------


def test_lws_defaults_replicas_to_one_and_size_to_node_count() -> None:
    lws = only(render_dcd(platform=LWS, multinode={"nodeCount": 3}), "LeaderWorkerSet")
    assert lws["metadata"]["name"] == "my-worker-0"
    assert lws["spec"]["replicas"] == 1
    assert lws["spec"]["leaderWorkerTemplate"]["size"] == 3


def test_lws_carries_the_dcd_kube_labels_and_no_annotations() -> None:
    lws = only(render_dcd(platform=LWS, multinode={"nodeCount": 2}), "LeaderWorkerSet")
    assert lws["metadata"]["labels"]["nvidia.com/dynamo-component"] == "my-worker"
    assert "annotations" not in lws["metadata"]


def test_single_node_dcd_with_lws_on_is_still_a_deployment() -> None:
    objects = render_dcd(platform=LWS)
    assert only(objects, "Deployment")
    assert not [o for o in objects if o["kind"] == "LeaderWorkerSet"]


# --- component Service ---------------------------------------------------------------------------


def test_worker_service_exposes_the_system_port() -> None:
    service = only(render_dcd(), "Service")
    assert service["spec"]["ports"] == [{"name": "system", "port": 9090, "targetPort": "system", "protocol": "TCP"}]
    assert service["metadata"]["labels"]["nvidia.com/dynamo-discovery-enabled"] == "true"
    assert "type" not in service["spec"]


def test_no_service_for_a_worker_when_discovery_is_etcd() -> None:
    etcd = Platform.model_validate({"discovery": {"backend": "etcd"}})
    assert not [o for o in render_dcd(platform=etcd) if o["kind"] == "Service"]


def test_frontend_always_gets_an_http_service() -> None:
    etcd = Platform.model_validate({"discovery": {"backend": "etcd"}})
    service = only(render_dcd(platform=etcd, type="frontend"), "Service")
    assert service["spec"]["ports"] == [{"name": "http", "port": 8000, "targetPort": "http", "protocol": "TCP"}]
    assert "nvidia.com/dynamo-discovery-enabled" not in service["metadata"]["labels"]


def test_discovery_annotation_overrides_the_platform_backend() -> None:
    text = with_template_annotations({"nvidia.com/dynamo-discovery-backend": "etcd"})
    assert not [o for o in render_dcd(text) if o["kind"] == "Service"]


def test_epp_service_is_grpc_http2() -> None:
    service = only(render_dcd(type="epp", backendFramework=None), "Service")
    assert service["spec"]["ports"] == [
        {"name": "grpc", "port": 9002, "targetPort": 9002, "protocol": "TCP", "appProtocol": "http2"}
    ]


def test_service_name_is_dot_normalised_and_lowercase() -> None:
    graph = DynamoGraphDeployment.model_validate(
        {
            "apiVersion": "nvidia.com/v1beta1",
            "kind": "DynamoGraphDeployment",
            "metadata": {"name": "llama.v2"},
            "spec": {"components": [{"name": "Frontend", "type": "frontend"}]},
        }
    )
    objects = render_graph(graph, Platform()).objects
    assert only(objects, "Deployment")["metadata"]["name"] == "llama.v2-frontend"
    assert only(objects, "Service")["metadata"]["name"] == "llama-v2-frontend"


# --- model Service -------------------------------------------------------------------------------

TWO_MODEL_WORKERS = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: g}
spec:
  backendFramework: vllm
  components:
  - {name: prefill, type: prefill, modelRef: {name: Qwen/Qwen3-0.6B}}
  - {name: decode, type: decode, modelRef: {name: Qwen/Qwen3-0.6B}}
"""


def test_components_sharing_a_model_share_one_headless_model_service() -> None:
    result = render_graph(DynamoGraphDeployment.model_validate(yaml.safe_load(TWO_MODEL_WORKERS)), Platform())
    models = [o for o in result.objects if o["metadata"]["name"].startswith("dynamo-model-")]
    assert len(models) == 1
    service = models[0]
    model_hash = service["spec"]["selector"]["nvidia.com/dynamo-base-model-hash"]
    assert service["metadata"]["name"] == f"dynamo-model-{model_hash}"
    assert service["metadata"]["annotations"] == {"nvidia.com/dynamo-base-model": "Qwen/Qwen3-0.6B"}
    assert service["spec"]["clusterIP"] == "None"
    assert service["spec"]["ports"] == [{"name": "system", "port": 9090, "targetPort": 9090, "protocol": "TCP"}]
    for deployment in (o for o in result.objects if o["kind"] == "Deployment"):
        assert deployment["spec"]["template"]["metadata"]["labels"]["nvidia.com/dynamo-base-model-hash"] == model_hash


def test_legacy_worker_selector_keeps_service_and_pods_on_component_type_worker() -> None:
    doc = yaml.safe_load(DCD)
    doc["metadata"]["labels"] = {
        "nvidia.com/dynamo-graph-deployment-name": "g",
        "nvidia.com/dynamo-worker-hash": "abcd1234",
        "nvidia.com/dynamo-component-type": "worker",
    }
    objects = render_dcd(yaml.safe_dump(doc), type="decode")
    selector = only(objects, "Service")["spec"]["selector"]
    pod_labels = only(objects, "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert selector["nvidia.com/dynamo-component-type"] == "worker"
    assert pod_labels["nvidia.com/dynamo-sub-component-type"] == "decode"
    assert all(pod_labels.get(k) == v for k, v in selector.items())
