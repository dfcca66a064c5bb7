"""Helpers for the tests translated from the operator's Go unit tests (``tests/test_oracle_*``).

Each translated test renders a graph written the way a user writes it (YAML, v1beta1 or v1alpha1
converted by our loader, as the operator's conversion webhook would) through the whole pipeline
(``render_graph``: defaulting, pathway, rendering) and asserts what the Go test asserts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from dynamo_pulumi.loading.documents import load_documents, load_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import RenderResult, render_graph

GROVE = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})
COMPONENT = Platform.model_validate({"orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": True}}})


def render_yaml(text: str, platform: Platform | None = None, namespace: str | None = None,
                objects: Iterable[Mapping[str, Any]] = ()) -> RenderResult:
    """Render the graph of a (multi-document) YAML text, with the file's other documents."""
    loaded = load_documents(text)
    return render_graph(loaded.graphs[0].object, platform or Platform(), namespace,  # type: ignore[arg-type]
                        objects=[*loaded.others, *objects])


def render_doc(doc: Mapping[str, Any], platform: Platform | None = None, namespace: str | None = None,
               objects: Iterable[Mapping[str, Any]] = ()) -> RenderResult:
    return render_graph(load_graph(dict(doc)), platform or Platform(), namespace, objects=objects)


def of_kind(result: RenderResult, kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in result.objects if o["kind"] == kind}


def pcs(result: RenderResult) -> dict[str, Any]:
    (only,) = of_kind(result, "PodCliqueSet").values()
    return only


def cliques(result: RenderResult) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in pcs(result)["spec"]["template"]["cliques"]}


def env(container: Mapping[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env") or []}


def main_of(pod_spec: Mapping[str, Any]) -> dict[str, Any]:
    return next(c for c in pod_spec["containers"] if c["name"] == "main")


def docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def alpha_graph(services: dict[str, Any], name: str = "test-dgd", namespace: str = "default",
                metadata: Mapping[str, Any] | None = None, **spec: Any) -> str:
    """A v1alpha1 DGD of ``services`` as JSON text; a service without ``extraPodSpec`` gets a main image."""
    for service in services.values():
        service.setdefault("extraPodSpec", {"mainContainer": {"image": "worker:1.4.0"}})
    return json.dumps({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
                       "metadata": {"name": name, "namespace": namespace, **(metadata or {})},
                       "spec": {**spec, "services": services}})


def beta_graph(components: list[dict[str, Any]], name: str = "test-dgd", namespace: str = "default",
               **spec: Any) -> str:
    """A v1beta1 DGD of ``components`` as JSON text; a component without a pod template gets a main image."""
    for component in components:
        component.setdefault("podTemplate", {"spec": {"containers": [{"name": "main", "image": "worker:1.4.0"}]}})
    return json.dumps({"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
                       "metadata": {"name": name, "namespace": namespace}, "spec": {**spec, "components": components}})
