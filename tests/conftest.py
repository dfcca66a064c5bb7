"""Shared test fixtures: where the conformance data lives (``../shared``), skipping when absent."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests on a fixed seed and without per-example deadlines, so a green run is
# reproducible and a slow shared machine cannot fail it; locally they explore new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"


@pytest.fixture
def conformance_dir() -> Path:
    """The operator's conformance data; tests that need it skip on machines without it."""
    if not CONFORMANCE.is_dir():
        pytest.skip("../shared/conformance is not present on this machine")
    return CONFORMANCE


@pytest.fixture(autouse=True)
def _fresh_event_loop():
    """Each test gets its own current event loop (``pulumi.Output`` needs one) and leaves none
    behind, so no test depends on the loop an earlier test created or closed."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield
    loop.close()
    asyncio.set_event_loop(None)
