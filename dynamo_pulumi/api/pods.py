"""Read-only accessors over PodTemplateSpec mappings.

Pod templates stay the user's own mappings (unknown fields survive, ``pulumi.Output`` values may
sit at their leaves); the rules only need to find containers by name and read a few fields.
"""

from __future__ import annotations

from typing import Any

MAIN_CONTAINER = "main"
RUNTIME_INIT_CONTAINER = "runtime"
FRONTEND_SIDECAR_CONTAINER = "sidecar-frontend"


def pod_spec(template: dict[str, Any] | None) -> dict[str, Any]:
    spec = (template or {}).get("spec")
    return spec if isinstance(spec, dict) else {}


def pod_metadata(template: dict[str, Any] | None) -> dict[str, Any]:
    meta = (template or {}).get("metadata")
    return meta if isinstance(meta, dict) else {}


def pod_annotations(template: dict[str, Any] | None) -> dict[str, Any]:
    ann = pod_metadata(template).get("annotations")
    return ann if isinstance(ann, dict) else {}


def containers(template: dict[str, Any] | None, key: str = "containers") -> list[dict[str, Any]]:
    items = pod_spec(template).get(key)
    return [c for c in items if isinstance(c, dict)] if isinstance(items, list) else []


def init_containers(template: dict[str, Any] | None) -> list[dict[str, Any]]:
    return containers(template, "initContainers")


def find_container(
    template: dict[str, Any] | None, name: str, key: str = "containers"
) -> tuple[int, dict[str, Any]] | None:
    """(index, container) of the first container with this name, or None."""
    items = pod_spec(template).get(key)
    if not isinstance(items, list):
        return None
    for i, c in enumerate(items):
        if isinstance(c, dict) and c.get("name") == name:
            return i, c
    return None


def main_container(template: dict[str, Any] | None) -> dict[str, Any] | None:
    found = find_container(template, MAIN_CONTAINER)
    return found[1] if found else None


def runtime_init_container(template: dict[str, Any] | None) -> dict[str, Any] | None:
    """The init container named ``runtime`` whose presence selects Dynamo sidecar mode."""
    found = find_container(template, RUNTIME_INIT_CONTAINER, "initContainers")
    return found[1] if found else None


def is_sidecar_mode(template: dict[str, Any] | None) -> bool:
    return runtime_init_container(template) is not None
