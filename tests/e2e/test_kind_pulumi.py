"""End to end against a real API server: kind + the Pulumi CLI (skipped when either is absent).

``pulumi preview`` of the root project runs the provider's server-side dry run, so every object
we render is checked by a real API server (schema, defaulting). Its resource list must equal
what the offline ``dynamo-pulumi preview`` prints. ``pulumi up`` is not run: the graph's images
need GPUs and would never become ready on kind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.program import deploy

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
CLUSTER = os.environ.get("E2E_KIND_CLUSTER", "dynamo-pulumi-e2e")


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} on PATH")


def _sh(*cmd: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> str:
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=900)
    assert result.returncode == 0, f"{' '.join(cmd)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def kind_cluster():
    _need("kind", "kubectl", "pulumi")
    existing = _sh("kind", "get", "clusters").split()
    created = CLUSTER not in existing
    if created:
        _sh("kind", "create", "cluster", "--name", CLUSTER, "--wait", "120s")
    yield f"kind-{CLUSTER}"
    if created:
        _sh("kind", "delete", "cluster", "--name", CLUSTER)


@pytest.fixture
def pulumi_env(tmp_path, kind_cluster):
    env = dict(os.environ)
    env.update(
        PULUMI_BACKEND_URL=f"file://{tmp_path}",
        PULUMI_CONFIG_PASSPHRASE="e2e",
        PULUMI_SKIP_UPDATE_CHECK="true",
    )
    _sh("pulumi", "stack", "init", "e2e", "--non-interactive", env=env)
    _sh("pulumi", "config", "set", "kubernetes:context", kind_cluster, env=env)
    _sh("pulumi", "config", "set", "dynamo-pulumi:namespace", "default", env=env)
    return env


def test_pulumi_preview_on_kind_matches_the_offline_preview(pulumi_env):
    out = _sh("pulumi", "preview", "--json", "--non-interactive", env=pulumi_env)
    steps = json.loads(out)["steps"]
    live = {(s["newState"]["type"], s["urn"].rsplit("::", 1)[-1]) for s in steps
            if s.get("newState") and not s["newState"]["type"].startswith(("pulumi:pulumi:", "pulumi:providers:"))}
    recording, _ = run_program(lambda: deploy(None, "default", export=False))
    offline = {(r.type, r.name) for r in recording.resources}
    assert live == offline
