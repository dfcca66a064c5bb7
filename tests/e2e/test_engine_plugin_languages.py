"""The ``dynamo`` provider plugin from three languages, through the real engine on the local cluster.

* YAML: ``examples/plugin-yaml`` as written, run by ``pulumi up`` with the real
  ``pulumi-language-yaml`` host;
* TypeScript: ``examples/plugin-typescript`` with its SDK generated from ``schema.json`` by
  ``pulumi-gen-sdk --language nodejs --local`` (the code generator ``pulumi package gen-sdk
  --local`` runs, see :mod:`localcluster.nodejs`), ``@pulumi/pulumi`` and TypeScript from npm, run by
  the Node.js Automation API's inline program (the Node.js host is not served here);
* Python: a program with ``ReadinessOptions(provider="plugin")`` (``localcluster.project``).

The two example programs construct ``dynamo:index:DynamoGraphDeployment`` in the plugin, whose
component registers ``dynamo:index:GraphReadiness`` as its child, so the engine names it with the
parent's type chain (``...::dynamo:index:DynamoGraphDeployment$dynamo:index:GraphReadiness::...``)
and sends that URN to Check, Create, ... of the same plugin. ``up`` returns only after that
resource saw every worker ready, so the Deployments are Available when it does.

Moving a Python stack from the dynamic readiness resource to the plugin changes no resource: the
readiness resource's alias carries it over to the plugin's type and the plugin's Diff finds the
same inputs; only the default providers change (the dynamo one created, pulumi-python's deleted).
The next change (one more worker) is the plugin's to wait for: its Update returns once the new
worker is ready, with the progress line under the readiness resource.
"""

from __future__ import annotations

import json
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.support import run_project
from localcluster import nodejs as node
from localcluster.cluster import LocalCluster
from localcluster.engine import Engine
from localcluster.tools import REPO, ToolSet

EXAMPLES = REPO / "examples"
#: The directory holding ``pulumi-resource-dynamo`` (this venv's), as the examples' ``plugins:`` name it.
PLUGIN_DIR = Path(sys.executable).parent
READINESS = "dynamo:index:GraphReadiness"
#: The readiness resource's URN type under the graph component.
NESTED = f"dynamo:index:DynamoGraphDeployment${READINESS}"
GRAPH = EXAMPLES / "aggregated-vllm" / "graph.yaml"  # a CPU frontend, two one-GPU vLLM workers
TIMEOUT = "3m"  # a broken wait fails the test in minutes, not in the examples' 45


@pytest.fixture
def program_namespace(cluster: LocalCluster) -> Iterator[str]:
    """A namespace the program creates itself (both examples own their Namespace), deleted after."""
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", "--ignore-not-found", check=False)


def _deployments(cluster: LocalCluster, namespace: str) -> dict[str, bool]:
    """Each Deployment of the namespace by name: whether it is Available with every replica ready."""
    items = json.loads(cluster.kubectl("get", "deployments", "-n", namespace, "-o", "json"))["items"]
    out = {}
    for dep in items:
        conds = {c["type"]: c["status"] for c in dep.get("status", {}).get("conditions", [])}
        out[dep["metadata"]["name"]] = (conds.get("Available") == "True"
                                        and dep["status"].get("readyReplicas") == dep["spec"]["replicas"])
    return out


def _assert_graph_served(cluster: LocalCluster, namespace: str, outputs: dict[str, Any], gpus: int = 2) -> None:
    deployments = _deployments(cluster, namespace)
    names = sorted(deployments)
    assert len(names) == 2 and names[0] == "vllm-agg-frontend" and names[1].startswith("vllm-agg-vllmworker-"), names
    assert all(deployments.values()), f"up returned before every worker was ready: {deployments}"
    assert outputs["state"] == "successful", outputs
    assert outputs["totalGpus"] == gpus
    assert outputs["frontendUrl"] == f"http://vllm-agg-frontend.{namespace}.svc.cluster.local:8000"


def _copy_example(name: str, into: Path) -> Path:
    """A copy of the example whose ``plugins:`` path is this venv's bin directory."""
    folder = into / name
    shutil.copytree(EXAMPLES / name, folder)
    node.point_plugin(folder / "Pulumi.yaml", PLUGIN_DIR)
    return folder


def test_the_yaml_program_deploys_the_graph_through_the_plugin(
        engine: Engine, cluster: LocalCluster, program_namespace: str, tmp_path: Path):
    project = _copy_example("plugin-yaml", tmp_path)
    engine.cli("stack", "init", "e2e", cwd=project)
    engine.cli("config", "set-all", "--plaintext", f"namespace={program_namespace}", "--plaintext",
               f"readinessTimeout={TIMEOUT}", "--stack", "e2e", cwd=project)

    engine.cli("up", "--yes", "--skip-preview", "--stack", "e2e", cwd=project)  # as the Automation API runs it

    outputs = json.loads(engine.cli("stack", "output", "--json", "--stack", "e2e", cwd=project).stdout)
    _assert_graph_served(cluster, program_namespace, outputs)
    state = json.loads(engine.cli("stack", "export", "--stack", "e2e", cwd=project).stdout)
    (readiness,) = [r["urn"] for r in state["deployment"]["resources"] if r["type"] == READINESS]
    assert f"::{NESTED}::" in readiness, readiness


def test_the_typescript_program_deploys_the_graph_through_the_plugin(
        engine: Engine, tools: ToolSet, cluster: LocalCluster, program_namespace: str, tmp_path: Path):
    project = node.project(EXAMPLES / "plugin-typescript", tmp_path / "plugin-typescript", tools,
                           plugin_dir=PLUGIN_DIR, log=sys.stderr)
    events = tmp_path / "events.jsonl"

    code, result, log = node.run(engine, "up", project, config={"namespace": program_namespace,
                                                                "readinessTimeout": TIMEOUT}, events=events)

    assert code == 0, f"up failed ({code}):\n{log[-6000:]}"
    _assert_graph_served(cluster, program_namespace, result["outputs"])
    steps = [json.loads(line) for line in events.read_text().splitlines()]
    created = {s["outputs"]["type"]: s["outputs"]["urn"] for s in steps if "outputs" in s}
    assert f"::{NESTED}::" in created[READINESS], created[READINESS]


MOVING_PROGRAM = f'''
import pulumi
import yaml

from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions

config = pulumi.Config()
spec = yaml.safe_load(open({str(GRAPH)!r}))
for component in spec["spec"]["components"]:
    if component["name"] == "VllmWorker":
        component["replicas"] = config.get_int("workers") or component["replicas"]
graph = DynamoGraphDeployment(
    "vllm-agg", spec, namespace=config.require("namespace"),
    readiness=ReadinessOptions(timeout={TIMEOUT!r}, provider=config.require("transport")))
pulumi.export("state", graph.readiness.state)
pulumi.export("totalGpus", graph.total_gpus)
pulumi.export("frontendUrl", graph.frontend_url)
'''


def test_a_python_stack_moves_to_the_plugin_changing_nothing_then_waits_through_it(
        engine: Engine, cluster: LocalCluster, namespace: str, tmp_path: Path):
    project = tmp_path / "moving"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: plugin-move\nruntime: python\n")
    (project / "__main__.py").write_text(MOVING_PROGRAM)
    config = {"namespace": namespace, "kubernetes:kubeconfig": str(cluster.kubeconfig)}

    dynamic = run_project(engine, "up", project, config={**config, "transport": "dynamic"})
    _assert_graph_served(cluster, namespace, dynamic.result["outputs"])
    before = {s["urn"]: s["type"] for s in dynamic.steps("outputs")}

    moved = run_project(engine, "up", project, config={**config, "transport": "plugin"})

    steps = moved.steps("pre")
    kubernetes = {s["urn"]: s["op"] for s in steps if s["type"].startswith("kubernetes:")}
    assert kubernetes and set(kubernetes.values()) == {"same"}, {u: op for u, op in kubernetes.items() if op != "same"}
    assert set(kubernetes) == {u for u, t in before.items() if t.startswith("kubernetes:")}
    # The alias carries the readiness resource over to the plugin's type; the plugin's Diff finds
    # the same inputs, so nothing at all changes: only the default providers do.
    changed = {(s["type"], s["op"]) for s in steps if s["op"] != "same"}
    assert changed == {("pulumi:providers:dynamo", "create"), ("pulumi:providers:pulumi-python", "delete")}, changed
    (readiness,) = [s for s in steps if s["type"] == READINESS]
    assert f"::{NESTED}::" in readiness["urn"] and readiness["op"] == "same", readiness
    resources = [u for u, t in before.items() if not t.startswith("pulumi:providers:")]  # what a summary counts
    assert moved.result["summary"] == {"same": len(resources)}, moved.result["summary"]
    _assert_graph_served(cluster, namespace, moved.result["outputs"])

    # From now on the plugin waits for this Python program's graph: one more worker is an
    # in-place update of its Deployment, and up returns once the plugin saw the new pod ready.
    scaled = run_project(engine, "up", project, config={**config, "transport": "plugin", "workers": "3"})
    ops = {(s["type"], s["op"]) for s in scaled.steps("pre") if s["op"] != "same"}
    assert ops == {("kubernetes:apps/v1:Deployment", "update"), (READINESS, "update")}, ops
    _assert_graph_served(cluster, namespace, scaled.result["outputs"], gpus=3)
    progress = [e["diagnostic"]["message"] for e in scaled.events
                if "diagnostic" in e and e["diagnostic"]["urn"] == readiness["urn"]]
    assert any(line.endswith("vllm-agg: VllmWorker: 3/3 ready\n") for line in progress), progress
