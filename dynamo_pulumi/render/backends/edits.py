"""Small in-place edits of container and pod-spec mappings that every backend makes.

The backends append (never merge or sort): the operator's ``UpdateContainer`` runs after env
merging and sorting, so whatever a backend adds lands after the sorted env (ERRATA 24).
"""

from __future__ import annotations

from typing import Any

PROBE_KEYS: tuple[str, ...] = ("livenessProbe", "readinessProbe", "startupProbe")


def append_to(mapping: dict[str, Any], key: str, *items: dict[str, Any]) -> None:
    """Append items to the list at ``mapping[key]``, creating it when absent."""
    current = mapping.get(key)
    mapping[key] = [*(current if isinstance(current, list) else []), *items]


def append_env(container: dict[str, Any], name: str, value: str) -> None:
    append_to(container, "env", {"name": name, "value": value})


def append_env_field_ref(container: dict[str, Any], name: str, field_path: str) -> None:
    append_to(container, "env", {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}})


def remove_probes(container: dict[str, Any], *keys: str) -> None:
    """Drop the named probes (all three when none are named)."""
    for key in keys or PROBE_KEYS:
        container.pop(key, None)
