"""Helpers every object builder shares: tree copies that keep opaque leaves, metadata shapes.

Rendered objects are plain dicts. Leaves the operator never reads (images, env values, ...) may be
``pulumi.Output`` values, so copies duplicate only dicts and lists and pass every other leaf through
as the same object - never ``str()``-ed, never deep-copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def copy_tree(value: Any) -> Any:
    """A copy of nested dicts and lists; every other leaf is shared, untouched."""
    if isinstance(value, dict):
        return {k: copy_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_tree(v) for v in value]
    return value


def object_meta(
    name: str,
    namespace: str,
    labels: Mapping[str, Any] | None = None,
    annotations: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``metadata`` with empty label/annotation maps left out (Go's ``omitempty``)."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def k8s_object(api_version: str, kind: str, metadata: dict[str, Any], **body: Any) -> dict[str, Any]:
    """An API object in the usual field order: apiVersion, kind, metadata, then the body."""
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, **body}


def merge_envs(common: list[dict[str, Any]] | None, specific: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """``MergeEnvs``: union by name, ``specific`` wins, sorted by name."""
    merged: dict[str, dict[str, Any]] = {}
    for env in common or []:
        merged[env.get("name", "")] = env
    for env in specific or []:
        merged[env.get("name", "")] = env
    return [merged[name] for name in sorted(merged)]


def without_empty_env_values(node: Any) -> Any:
    """Drop ``value: ""`` from every env entry below ``node`` (in place; returned for chaining).

    ``corev1.EnvVar.Value`` is a string with ``omitempty``: the operator reads a pod template
    into Go types and writes it back, so an env var given as ``value: ""`` reaches the
    Deployment, PodCliqueSet and DCD it creates with no ``value`` at all (found by the recorded
    comparison, docs/OPERATOR-AGREEMENT.md). Same meaning; the bytes follow the operator.
    """
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "env" and isinstance(value, list):
                for entry in value:
                    if isinstance(entry, dict) and entry.get("value") == "":
                        del entry["value"]
            else:
                without_empty_env_values(value)
    elif isinstance(node, list):
        for value in node:
            without_empty_env_values(value)
    return node


def merge_low_priority(dst: dict[str, Any] | None, src: Mapping[str, Any] | None) -> dict[str, Any]:
    """``mergeLowPriorityMetadata``: add keys of ``src`` that ``dst`` lacks; ``dst`` wins."""
    out = dict(dst or {})
    for key, value in (src or {}).items():
        out.setdefault(key, value)
    return out


def with_go_container_fields(template: dict[str, Any]) -> dict[str, Any]:
    """Give every container the ``resources: {}`` Go always serialises.

    ``corev1.Container.Resources`` is a struct, which ``omitempty`` never omits, so the operator
    writes ``resources: {}`` on every container it sends; custom resources (LeaderWorkerSet) store
    it as sent.
    """
    spec = template.get("spec")
    if isinstance(spec, dict):
        for key in ("initContainers", "containers"):
            for container in spec.get(key) or []:
                if isinstance(container, dict):
                    container.setdefault("resources", {})
    return template
