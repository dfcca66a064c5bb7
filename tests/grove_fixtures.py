"""Small graph builders shared by the Grove tests."""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.defaulting.webhooks import default_graph
from dynamo_pulumi.platform import Platform

GROVE_PLATFORM = Platform.model_validate(
    {"operatorVersion": "1.4.0", "orchestrators": {"grove": {"enabled": True}}}
)


def main_container(gpus: int = 0, command: list[str] | None = None, args: list[str] | None = None,
                   image: str = "registry.example/worker:1.4.0") -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": image}
    if command is not None:
        container["command"] = command
    if args is not None:
        container["args"] = args
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return container


def component(name: str, ctype: str = "worker", **fields: Any) -> dict[str, Any]:
    container = fields.pop("container", None) or main_container()
    comp: dict[str, Any] = {"name": name, "type": ctype, "podTemplate": {"spec": {"containers": [container]}}}
    comp.update(fields)
    return comp


def graph(components: list[dict[str, Any]], name: str = "g", annotations: dict[str, str] | None = None,
          platform: Platform = GROVE_PLATFORM, spec_annotations: dict[str, str] | None = None,
          **spec: Any) -> DynamoGraphDeployment:
    """A defaulted v1beta1 DGD in namespace ``n`` (defaulting selects Grove on this platform).

    ``annotations`` are metadata annotations; ``spec_annotations`` is ``spec.annotations``.
    """
    if spec_annotations is not None:
        spec["annotations"] = spec_annotations
    metadata: dict[str, Any] = {"name": name, "namespace": "n"}
    if annotations:
        metadata["annotations"] = annotations
    body = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": metadata,
            "spec": {"components": components, **spec}}
    return default_graph(DynamoGraphDeployment.model_validate(body), platform)


def by_name(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["name"]: item for item in items}


def env_map(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env") or []}
