"""Small builders for the DGD-level rule tests (graph, update, topology, CEL): a valid worker and a
v1beta1 DGD around the given components."""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"


def component(name: str = "worker", **fields: Any) -> dict[str, Any]:
    """A single-node vLLM worker in wire form; keyword arguments replace top-level fields."""
    return {
        "name": name,
        "type": "worker",
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}},
    } | fields


def graph(
    *components: dict[str, Any],
    name: str = "g",
    annotations: dict[str, str] | None = None,
    generation: int | None = None,
    metadata: dict[str, Any] | None = None,
    status: dict[str, Any] | None = None,
    **spec: Any,
) -> DynamoGraphDeployment:
    """A vLLM DGD of ``components`` (one default worker when none); ``spec`` adds spec fields."""
    meta: dict[str, Any] = {"name": name} | (metadata or {})
    if annotations is not None:
        meta["annotations"] = annotations
    if generation is not None:
        meta["generation"] = generation
    body: dict[str, Any] = {
        "metadata": meta,
        "spec": {"backendFramework": "vllm", "components": list(components) or [component()]} | spec,
    }
    if status is not None:
        body["status"] = status
    return DynamoGraphDeployment.model_validate(body)
