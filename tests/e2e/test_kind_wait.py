"""End to end waiting against kind (skipped when kind, kubectl or the Pulumi CLI is absent).

kind has no GPUs and the graph's images are large, so nothing here becomes ready: what is checked
is that a stuck graph fails *with its reasons* and within its deadline, through every front end.

Run with::

    kind create cluster --name dynamo-pulumi-e2e     # optional: the fixture creates it
    .venv/bin/python -m pytest tests/e2e -m e2e -q
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_kind_pulumi import REPO, _need, _sh, kind_cluster, pulumi_env  # noqa: F401 (fixtures)

from dynamo_pulumi.program import default_graph_path

pytestmark = pytest.mark.e2e


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dynamo_pulumi", *args], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=600)


def test_wait_on_kind_fails_with_a_reason_per_component(kind_cluster):  # noqa: F811
    rendered = _cli("render", str(default_graph_path()), "-n", "default").stdout
    subprocess.run(["kubectl", "--context", kind_cluster, "apply", "-f", "-"], input=rendered, text=True,
                   check=True, capture_output=True)
    try:
        result = _cli("wait", str(default_graph_path()), "-n", "default", "--context", kind_cluster, "--timeout", "90s")
        assert result.returncode == 1
        assert "not ready after 1m30s" in result.stderr and "Traceback" not in result.stderr
        lines = [line for line in result.stderr.splitlines() if line.startswith("  ")]
        assert lines and all(": " in line and "/" in line for line in lines)
        status = _cli("status", str(default_graph_path()), "-n", "default", "--context", kind_cluster)
        assert status.returncode == 1 and "COMPONENT" in status.stdout
    finally:
        subprocess.run(["kubectl", "--context", kind_cluster, "delete", "-f", "-", "--wait=false"], input=rendered,
                       text=True, capture_output=True)


def test_pulumi_up_fails_at_the_graph_deadline_with_reasons(pulumi_env):  # noqa: F811
    _need("pulumi")
    _sh("pulumi", "config", "set", "dynamo-pulumi:timeout", "2m", env=pulumi_env)
    result = subprocess.run(["pulumi", "up", "--yes", "--non-interactive", "--skip-preview"], capture_output=True,
                            text=True, env=pulumi_env, cwd=REPO, timeout=900)
    output = result.stdout + result.stderr
    try:
        # Deployments are awaited by pulumi-kubernetes itself (with the graph's deadline, never its
        # 10-minute default) and fail with their pods' errors; other kinds fail in the readiness
        # resource with one line per component. Either way the reason is named.
        assert result.returncode != 0
        assert any(word in output for word in ("ImagePull", "ErrImagePull", "Unschedulable", "Insufficient", "unready"))
    finally:
        subprocess.run(["pulumi", "destroy", "--yes", "--non-interactive"], capture_output=True, text=True,
                       env=pulumi_env, cwd=REPO, timeout=900)
