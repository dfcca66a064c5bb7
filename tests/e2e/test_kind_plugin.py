"""End to end through the ``dynamo`` plugin: the YAML and TypeScript examples previewed by the
Pulumi CLI against kind (skipped when kind, kubectl, the CLI, or node/npm for TypeScript, are
absent).

The CLI starts ``pulumi-resource-dynamo`` (found through ``plugins:`` in each ``Pulumi.yaml``:
the directory of this test's Python, whose venv has the console script), asks for its schema,
and constructs the graph; the server-side dry run checks every rendered object. The previewed
resources must be what the Python component registers for the same graph.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} on PATH")


def _sh(*cmd: str, env: dict[str, str], cwd: Path) -> str:
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=1200)
    assert result.returncode == 0, f"{' '.join(cmd)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _project(tmp_path: Path, example: str) -> Path:
    """A copy of the example whose ``plugins:`` path is this venv's bin directory."""
    folder = tmp_path / example
    shutil.copytree(EXAMPLES / example, folder)
    project = yaml.safe_load((folder / "Pulumi.yaml").read_text())
    project["plugins"]["providers"][0]["path"] = str(Path(sys.executable).parent)
    (folder / "Pulumi.yaml").write_text(yaml.safe_dump(project, sort_keys=False))
    return folder


def _env(tmp_path: Path, folder: Path, context: str) -> dict[str, str]:
    env = {**os.environ, "PULUMI_BACKEND_URL": f"file://{tmp_path}", "PULUMI_CONFIG_PASSPHRASE": "e2e",
           "PULUMI_SKIP_UPDATE_CHECK": "true"}
    _sh("pulumi", "stack", "init", "e2e", "--non-interactive", env=env, cwd=folder)
    _sh("pulumi", "config", "set", "kubernetes:context", context, env=env, cwd=folder)
    _sh("pulumi", "config", "set", "dynamo:context", context, env=env, cwd=folder)
    _sh("pulumi", "config", "set", "namespace", "default", env=env, cwd=folder)
    return env


def _previewed(env: dict[str, str], folder: Path) -> set[tuple[str, str]]:
    steps = json.loads(_sh("pulumi", "preview", "--json", "--non-interactive", env=env, cwd=folder))["steps"]
    return {(s["newState"]["type"], s["urn"].rsplit("::", 1)[-1]) for s in steps
            if s.get("newState") and not s["newState"]["type"].startswith(("pulumi:pulumi:", "pulumi:providers:"))}


def _oracle() -> set[tuple[str, str]]:
    graph = EXAMPLES / "aggregated-vllm" / "graph.yaml"
    recording, _ = run_program(lambda: DynamoGraphDeployment(
        "vllm-agg", graph, namespace="default", readiness=ReadinessOptions(timeout="45m", provider="plugin")))
    return {(r.type, r.name) for r in recording.resources if r.type != "pulumi:pulumi:Stack"}


@pytest.fixture(scope="module")
def kind_context():
    _need("kind", "kubectl", "pulumi")
    cluster = os.environ.get("E2E_KIND_CLUSTER", "dynamo-pulumi-e2e")
    if cluster not in subprocess.run(["kind", "get", "clusters"], capture_output=True, text=True).stdout.split():
        subprocess.run(["kind", "create", "cluster", "--name", cluster, "--wait", "120s"], check=True)
    return f"kind-{cluster}"


def test_the_yaml_program_previews_the_graph_through_the_plugin(tmp_path, kind_context):
    folder = _project(tmp_path, "plugin-yaml")
    previewed = _previewed(_env(tmp_path, folder, kind_context), folder)
    assert _oracle() <= previewed
    assert ("kubernetes:core/v1:Namespace", "namespace") in previewed


def test_the_typescript_program_previews_the_graph_through_the_plugin(tmp_path, kind_context):
    _need("node", "npm")
    folder = _project(tmp_path, "plugin-typescript")
    env = {**os.environ}
    _sh("pulumi", "package", "gen-sdk", str(REPO / "schema.json"), "--language", "nodejs", "--out", "sdks",
        env=env, cwd=folder)
    (folder / "sdks" / "nodejs").rename(folder / "sdks" / "dynamo")
    _sh("npm", "install", env=env, cwd=folder)
    previewed = _previewed(_env(tmp_path, folder, kind_context), folder)
    assert _oracle() <= previewed
