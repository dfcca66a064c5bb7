"""Shared test fixtures: where the conformance data lives (``../shared``), skipping when absent."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# One deterministic profile for every run, with or without ``CI`` set: a fixed seed (a green run
# is reproducible and the README's command passes on a fresh clone), no per-example deadline and
# no health checks that measure the machine's speed (generating nested Kubernetes objects is
# inherently slow on a shared 2-core machine, which is not a defect of the test). Exploring new
# examples is opt-in: ``HYPOTHESIS_PROFILE=explore``.
_MACHINE_SPEED_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
settings.register_profile(
    "deterministic",
    derandomize=True,
    deadline=None,
    print_blob=True,
    database=None,
    suppress_health_check=_MACHINE_SPEED_CHECKS,
)
settings.register_profile("explore", deadline=None, suppress_health_check=_MACHINE_SPEED_CHECKS)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

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


@pytest.fixture
def server():
    """A loopback HTTP server replaying recorded Kubernetes API responses to the real client
    (``tests/replay_support.py``), closed after the test."""
    from replay_support import ReplayServer

    replay = ReplayServer().start()
    yield replay
    replay.close()


@pytest.fixture
def files(tmp_path, server):
    """A graph file (``resources_fixtures.graph_doc``) and a kubeconfig pointing at the replay
    server: what ``dynamo-pulumi wait|status`` are given."""
    import yaml
    from resources_fixtures import graph_doc

    graph = tmp_path / "graph.yaml"
    graph.write_text(yaml.safe_dump(graph_doc()))
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(server.kubeconfig())
    return graph, kubeconfig
