"""Tolerant readers for fields of API-server JSON.

Recorded objects omit zero values (``omitempty``) and whole blocks (no ``status`` before the first
reconcile), so every lookup has to read a missing field as the Go zero value, exactly as the
operator's typed structs do after decoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def dig(obj: Mapping[str, Any] | None, *path: str) -> Any:
    """The value at ``path``, or None when any step is missing or not a mapping."""
    current: Any = obj
    for key in path:
        if not isinstance(current, Mapping):
            return None
        current = current.get(key)
    return current


def int_at(obj: Mapping[str, Any] | None, *path: str, default: int = 0) -> int:
    """An integer field; missing or null decodes to ``default`` (Go's zero value unless a pointer default applies)."""
    value = dig(obj, *path)
    return default if value is None else int(value)


def optional_int_at(obj: Mapping[str, Any] | None, *path: str) -> int | None:
    """A pointer integer field (``*int64``): None stays None, because "nil" is its own state."""
    value = dig(obj, *path)
    return None if value is None else int(value)


def conditions(obj: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """``status.conditions`` as a list of mappings (empty when absent)."""
    value = dig(obj, "status", "conditions")
    if not isinstance(value, list):
        return []
    return [c for c in value if isinstance(c, Mapping)]


def find_condition(obj: Mapping[str, Any] | None, condition_type: str) -> Mapping[str, Any] | None:
    """The first condition of ``condition_type``, like apimachinery's ``meta.FindStatusCondition``."""
    return next((c for c in conditions(obj) if c.get("type") == condition_type), None)


def name_of(obj: Mapping[str, Any]) -> str:
    """``metadata.name`` (empty when absent)."""
    return str(dig(obj, "metadata", "name") or "")


def namespace_of(obj: Mapping[str, Any]) -> str:
    """``metadata.namespace`` (empty when absent)."""
    return str(dig(obj, "metadata", "namespace") or "")
