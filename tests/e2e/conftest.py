"""The end-to-end tier: the real ``pulumi`` engine and a real API server on a local cluster.

One cluster per test session (``localcluster``: etcd, kube-apiserver, kube-controller-manager,
kube-scheduler and kwok with fake GPU nodes, all on loopback), stopped at the end whatever
happened. The tools are built from the pinned Go modules on first use (``scripts/tools.sh``;
``DYNAMO_TOOLS`` names a set built already). A tool that cannot be built fails the tier: it
is never skipped. Each test gets its own namespace and its own Pulumi state directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from localcluster.cluster import LocalCluster
from localcluster.crds import cluster_crds
from localcluster.engine import Engine
from localcluster.operators import Controller, start_lws
from localcluster.tools import REPO, ToolSet, ensure_tools


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def tools() -> ToolSet:
    return ensure_tools()


@pytest.fixture(scope="session")
def cluster(tools: ToolSet, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    c = LocalCluster(tmp_path_factory.mktemp("cluster"), tools, crds=cluster_crds(tools))
    c.start()
    sys.stderr.write(f"\n[e2e] local cluster ready: {c.timings.marks}\n")
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="session")
def lws_controller(cluster: LocalCluster) -> Iterator[Controller]:
    """The pinned LeaderWorkerSet controller beside the session's cluster, webhooks on loopback
    (started on first use: only the tests that need LWS pay its second of start-up)."""
    controller = start_lws(cluster)
    sys.stderr.write(f"\n[e2e] lws-controller ready after {controller.ready_after} s\n")
    try:
        yield controller
    finally:
        controller.stop()


@pytest.fixture
def namespace(cluster: LocalCluster) -> Iterator[str]:
    """A namespace of the test's own, deleted (with everything in it) after the test."""
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    cluster.kubectl("create", "namespace", name)
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


@pytest.fixture
def engine(tools: ToolSet, cluster: LocalCluster, tmp_path: Path) -> Engine:
    return Engine(tools, tmp_path / "engine", cluster.kubeconfig)


@dataclass
class Run:
    """One ``python -m localcluster.project`` run: its exit code, result, output and events."""

    code: int
    result: dict[str, Any]
    log: str
    events: list[dict[str, Any]]

    def steps(self, kind: str = "pre") -> list[dict[str, Any]]:
        return [e[kind] for e in self.events if kind in e]


def run_project(engine: Engine, op: str, project: Path, *, stack: str = "e2e", config: dict[str, str] | None = None,
                diff: bool = False, timeout: float = 900.0, check: bool = True) -> Run:
    """``op`` of the project in ``project`` through the real CLI (see ``localcluster.project``)."""
    events = engine.workdir / f"events-{uuid.uuid4().hex[:6]}.jsonl"
    engine.workdir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "localcluster.project", op, str(project), "--stack", stack, "--events", str(events)]
    argv += [f"--config={k}={v}" for k, v in (config or {}).items()]
    if diff:
        argv.append("--diff")
    env = engine.env({"PYTHONPATH": str(REPO)})
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, timeout=timeout, check=False)
    result = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 and proc.stdout.strip() else {}
    evs = [json.loads(line) for line in events.read_text().splitlines()] if events.exists() else []
    run = Run(proc.returncode, result, proc.stderr, evs)
    if check and proc.returncode != 0:
        raise AssertionError(f"{op} of {project} failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    return run
