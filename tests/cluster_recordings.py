"""Recorded pods, events and Dynamo custom resources (``fixtures/cluster``) for the waiter tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "cluster"


def recording(name: str) -> Any:
    """A fresh copy of ``fixtures/cluster/<name>.yaml``."""
    return yaml.safe_load((FIXTURES / f"{name}.yaml").read_text())
