"""Helpers shared by the readiness tests: recorded objects and patched variants of them.

The recorded objects under ``fixtures/readiness`` are healthy objects as the API server returns
them; each test states only the fields it changes, so the difference that makes an object not
ready is visible in the test itself.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "readiness"

#: Marks a key to delete in :func:`patched` (a recorded object without that field).
DELETE = object()


def recorded(name: str) -> dict[str, Any]:
    """A fresh copy of ``fixtures/readiness/<name>.yaml``."""
    return yaml.safe_load((FIXTURES / f"{name}.yaml").read_text())


def patched(obj: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``obj`` with ``patch`` merged in; mappings merge, other values replace."""
    result = copy.deepcopy(dict(obj))
    for key, value in patch.items():
        if value is DELETE:
            result.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(result.get(key), Mapping):
            result[key] = patched(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def condition(type_: str, status: str, reason: str, message: str = "") -> dict[str, Any]:
    """A ``metav1.Condition`` shaped as the API server serialises it."""
    return {
        "lastTransitionTime": "2026-08-21T11:05:00Z",
        "message": message,
        "reason": reason,
        "status": status,
        "type": type_,
    }


def test_fixtures_are_recorded_objects() -> None:
    """Every fixture has the identity fields the readers key on and a status block."""
    for path in sorted(FIXTURES.glob("*.yaml")):
        obj = recorded(path.stem)
        assert obj["apiVersion"] and obj["kind"], path
        assert obj["metadata"]["name"] and obj["metadata"]["namespace"], path
        assert "status" in obj, path
