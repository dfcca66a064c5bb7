"""Loading the shared golden comparator (``../shared/tools/golden.py``) for the golden tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest


def load_golden_tool(tools_dir: Path) -> ModuleType:
    """A fresh copy of ``golden.py`` from ``tools_dir`` (callers may patch it); skips when absent."""
    path = tools_dir / "golden.py"
    if not path.is_file():
        pytest.skip("../shared/tools/golden.py is not present")
    spec = importlib.util.spec_from_file_location("golden_tool", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
