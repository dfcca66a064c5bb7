"""The end-to-end tier: the real ``pulumi`` engine and a real API server on a local cluster.

One cluster per test session (``localcluster``: etcd, kube-apiserver, kube-controller-manager,
kube-scheduler and kwok with fake GPU nodes, all on loopback), stopped at the end whatever
happened. The tools are built from the pinned Go modules on first use (``scripts/tools.sh``;
``DYNAMO_TOOLS`` names a set built already). A tool that cannot be built fails the tier: it
is never skipped. Each test gets its own namespace and its own Pulumi state directory; the
helpers that run projects are in ``e2e.support``.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from localcluster.cluster import LocalCluster
from localcluster.crds import cluster_crds
from localcluster.engine import Engine
from localcluster.operators import (
    DYNAMO_BINARY_ENV,
    GROVE_BINARY_ENV,
    Controller,
    binary_from_env,
    start_grove,
    start_lws,
)
from localcluster.tools import ToolSet, ensure_tools


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


def _operator_binary(env: str, what: str) -> Path:
    """The operator binary ``env`` names; the test skips when none is given (CI), saying why."""
    binary = binary_from_env(env)
    if binary is None:
        pytest.skip(f"{env} is not set: the module proxy serves no {what} operator "
                    "(tests/fixtures/operator_recordings/README.md)")
    return binary


@pytest.fixture(scope="session")
def grove_binary() -> Path:
    return _operator_binary(GROVE_BINARY_ENV, "Grove")


@pytest.fixture(scope="session")
def dynamo_binary() -> Path:
    return _operator_binary(DYNAMO_BINARY_ENV, "Dynamo")


@pytest.fixture(scope="session")
def grove_controller(cluster: LocalCluster, grove_binary: Path) -> Iterator[Controller]:
    """A Grove operator binary beside the session's cluster (only when one is given)."""
    controller = start_grove(cluster, grove_binary)
    sys.stderr.write(f"\n[e2e] grove-operator ready after {controller.ready_after} s\n")
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
