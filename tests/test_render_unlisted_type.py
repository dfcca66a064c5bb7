"""A v1alpha1 ``componentType`` outside the v1beta1 enum (``main``) survives conversion as written.

A standalone DCD is stored that way and rendered with the default component's behaviour; a DGD on
the Grove pathway likewise (its cliques carry the type as written). On the component pathway the
DGD controller creates v1beta1 DCDs, which the API server refuses against the CRD enum, so the
render fails with that reason. v1beta1 input with such a type is still refused by the schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_pulumi.errors import GraphValidationError, RenderError
from dynamo_pulumi.loading.documents import load_documents
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph

IMAGE = "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.4.0"
GROVE = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})
COMPONENT = Platform.model_validate({"orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": True}}})
MAIN_CONTAINER = {"image": IMAGE, "command": ["python3", "-m", "dynamo.trtllm"]}


def load(tmp_path: Path, document: dict[str, Any]) -> Any:
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump(document))
    return load_documents(path).graphs[0].object


def alpha_dcd(component_type: str) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment",
        "metadata": {"name": "demo-main"},
        "spec": {"backendFramework": "trtllm", "componentType": component_type, "replicas": 1,
                 "extraPodSpec": {"mainContainer": MAIN_CONTAINER}},
    }


def alpha_dgd() -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "demo"},
        "spec": {"backendFramework": "trtllm", "services": {
            "Frontend": {"componentType": "frontend", "replicas": 1,
                         "extraPodSpec": {"mainContainer": {"image": IMAGE}}},
            "Engine": {"componentType": "main", "replicas": 1, "extraPodSpec": {"mainContainer": MAIN_CONTAINER}},
        }},
    }


def main_container(objects: list[dict[str, Any]]) -> dict[str, Any]:
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    return deployment["spec"]["template"]["spec"]["containers"][0]


def test_standalone_alpha_dcd_with_type_main_renders_with_the_default_component(tmp_path: Path) -> None:
    result = render_graph(load(tmp_path, alpha_dcd("main")), COMPONENT, "ns")
    (deployment,) = [o for o in result.objects if o["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["metadata"]["labels"]["nvidia.com/dynamo-component-type"] == "main"
    container = main_container(result.objects)
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["DYN_COMPONENT"] == "main"
    # the default component: no worker ports, probes or system-server env
    assert "ports" not in container and "livenessProbe" not in container
    assert "DYN_SYSTEM_PORT" not in env
    worker = main_container(render_graph(load(tmp_path, alpha_dcd("worker")), COMPONENT, "ns").objects)
    assert "livenessProbe" in worker


def test_alpha_dgd_with_type_main_on_the_component_pathway_fails_with_the_api_server_reason(
    tmp_path: Path,
) -> None:
    with pytest.raises(RenderError) as info:
        render_graph(load(tmp_path, alpha_dgd()), COMPONENT, "ns")
    message = str(info.value)
    assert 'spec.type: Unsupported value: "main"' in message
    assert 'component "Engine"' in message and "Grove pathway" in message
    assert "Input should be" not in message


def test_alpha_dgd_with_type_main_renders_on_the_grove_pathway_with_the_type_as_written(tmp_path: Path) -> None:
    result = render_graph(load(tmp_path, alpha_dgd()), GROVE, "ns")
    (pcs,) = [o for o in result.objects if o["kind"] == "PodCliqueSet"]
    types = {c["name"]: c["labels"]["nvidia.com/dynamo-component-type"] for c in pcs["spec"]["template"]["cliques"]}
    assert types == {"frontend": "frontend", "engine": "main"}


@pytest.mark.parametrize("kind", ["DynamoGraphDeployment", "DynamoComponentDeployment"])
def test_v1beta1_input_with_type_main_is_still_refused_by_the_schema(tmp_path: Path, kind: str) -> None:
    container = {"containers": [{"name": "main", "image": IMAGE}]}
    if kind == "DynamoGraphDeployment":
        spec: dict[str, Any] = {"components": [{"name": "x", "type": "main", "podTemplate": {"spec": container}}]}
    else:
        spec = {"backendFramework": "trtllm", "type": "main", "podTemplate": {"spec": container}}
    document = {"apiVersion": "nvidia.com/v1beta1", "kind": kind, "metadata": {"name": "x"}, "spec": spec}
    with pytest.raises(GraphValidationError, match='Unsupported value: "main"'):
        load(tmp_path, document)
