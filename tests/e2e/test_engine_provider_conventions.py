"""A graph deployed as a pulumi-kubernetes user writes it, through the real engine (issue 25).

The program (``tests/e2e/programs/conventions``) passes an explicit ``k8s.Provider`` built from
the local cluster's kubeconfig, while the ambient ``$KUBECONFIG`` of the engine, the language
host, the Kubernetes provider and the readiness provider points at a closed loopback port: only
what the provider decides reaches the cluster.

* items 1, 2 and 5 (one stack, two ``up``s): the children land in the provider's namespace (the
  graph names none) on the provider's cluster, the readiness resource watches that namespace on
  that cluster (it would fail on the ambient one), and a ``transforms=[...]`` that rewrites the
  worker's image, run by the engine, is what readiness waits for: the second ``up``, where only
  the transform changes, updates the readiness resource (``revision``) and returns only once
  the transformed worker's pods, held unready by kwok for a while, are ready;
* item 3: with ``enable_server_side_apply=False`` the ``up`` fails at registration with one
  error, no traceback, and nothing is created;
* item 6: ``adopt=True`` with the rendered objects already applied by kubectl: the engine
  imports each of them (step ``import``), creates none of them again, and the wait finishes; its
  readiness resource is the ``dynamo`` plugin's (item 1 for the second transport: the plugin
  waits on the provider's cluster too, not on the ambient one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dynamo_pulumi.planning.plan import plan_graph
from dynamo_pulumi.program.graph_program import default_graph_path
from e2e.support import Run, project_copy, run_project
from localcluster.cluster import LocalCluster
from localcluster.engine import Engine
from localcluster.tools import ToolSet

PROGRAM = Path(__file__).resolve().parent / "programs" / "conventions"
READINESS = "dynamo:GraphReadiness"
PLUGIN_READINESS = "dynamo:index:GraphReadiness"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
#: How the Automation API's inline host repeats a program's error (the Python language host does not).
INLINE_HOST = "an unhandled error occurred: "
#: How long kwok holds the transformed worker's new pods unready.
DELAY_SECONDS = 6
#: A kubeconfig whose cluster is not there: nothing listens on port 9 of the loopback.
NOWHERE = {
    "apiVersion": "v1", "kind": "Config", "current-context": "nowhere",
    "clusters": [{"name": "nowhere", "cluster": {"server": "https://127.0.0.1:9", "insecure-skip-tls-verify": True}}],
    "users": [{"name": "nobody", "user": {"token": "none"}}],
    "contexts": [{"name": "nowhere", "context": {"cluster": "nowhere", "user": "nobody"}}],
}


def _engine(tools: ToolSet, tmp_path: Path) -> Engine:
    """An engine whose ambient connection (``$KUBECONFIG``) leads nowhere."""
    nowhere = tmp_path / "nowhere.kubeconfig"
    nowhere.write_text(json.dumps(NOWHERE))
    return Engine(tools, tmp_path / "engine", nowhere)


def _steps(run: Run, kind: str, type_suffix: str) -> list[dict[str, Any]]:
    """The step events of one type that change something (not ``same``), with their time."""
    return [{**e[kind], "t": e["t"]} for e in run.events
            if kind in e and e[kind]["type"].endswith(type_suffix) and e[kind]["op"] != "same"]


def _deployments(cluster: LocalCluster, namespace: str) -> dict[str, dict[str, Any]]:
    status, body = cluster.request("GET", f"/apis/apps/v1/namespaces/{namespace}/deployments")
    assert status == 200, body
    return {item["metadata"]["name"]: item for item in body["items"]}


def _errors(run: Run) -> list[str]:
    return [e["diagnostic"]["message"] for e in run.events
            if "diagnostic" in e and e["diagnostic"]["severity"] == "error"]


def _worker(deployments: dict[str, dict[str, Any]]) -> dict[str, Any]:
    (worker,) = [d for name, d in deployments.items() if "vllmworker" in name]
    return worker


def _image(deployment: dict[str, Any]) -> str:
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return str(container["image"])


def _available(deployment: dict[str, Any]) -> bool:
    status = deployment.get("status") or {}
    return (status.get("updatedReplicas") == status.get("availableReplicas") == deployment["spec"]["replicas"]
            and status.get("observedGeneration") == deployment["metadata"]["generation"])


def test_the_provider_decides_cluster_and_namespace_and_readiness_follows_a_transform(
        tools: ToolSet, cluster: LocalCluster, namespace: str, tmp_path: Path):
    engine = _engine(tools, tmp_path)
    project = project_copy(PROGRAM, tmp_path / "conventions")
    config = {"kubeconfig_file": str(cluster.kubeconfig), "namespace": namespace, "mirror": "mirror-a.example"}

    first = run_project(engine, "up", project, config=config)
    readiness = first.result["outputs"]["readiness"]
    # items 1 and 2: the provider's cluster and namespace, for the children and for the wait
    assert readiness["state"] == "successful" and readiness["ambient"] is False, readiness
    assert readiness["namespace"] == namespace
    assert {t["namespace"] for t in readiness["targets"]} == {namespace}, readiness["targets"]
    deployments = _deployments(cluster, namespace)
    assert {t["name"] for t in readiness["targets"]} == set(deployments), deployments.keys()
    assert not [n for n in _deployments(cluster, "default") if n.startswith("vllm-agg")]
    assert f"DynamoGraphDeployment {namespace}/vllm-agg: VllmWorker: 1/1 ready" in first.log
    # item 5: the engine ran the transform, and the wait saw that object
    worker = _worker(deployments)
    assert _image(worker) == "mirror-a.example/nvidia/ai-dynamo/vllm-runtime:1.3.1"
    assert _available(worker), worker["status"]

    config.update({"mirror": "mirror-b.example", "ready_delay": f"{DELAY_SECONDS}s"})
    second = run_project(engine, "up", project, config=config)
    (changed,) = _steps(second, "pre", DEPLOYMENT)  # only the transform changed: one object
    assert changed["op"] == "update" and "vllmworker" in changed["urn"], changed
    (waited,) = _steps(second, "pre", READINESS)
    assert waited["op"] == "update", waited
    (done,) = _steps(second, "outputs", READINESS)
    # kwok holds the new pods unready for DELAY_SECONDS after the update: the up waited for them
    rollout = done["t"] - changed["t"]
    assert rollout >= DELAY_SECONDS, f"the readiness wait ended {rollout:.1f} s after the worker's update began"
    worker = _worker(_deployments(cluster, namespace))
    assert _image(worker) == "mirror-b.example/nvidia/ai-dynamo/vllm-runtime:1.3.1"
    assert _available(worker), worker["status"]
    assert second.result["outputs"]["readiness"]["revision"] != readiness["revision"]


def test_server_side_apply_off_is_one_error_at_registration_and_creates_nothing(
        tools: ToolSet, cluster: LocalCluster, namespace: str, tmp_path: Path):
    engine = _engine(tools, tmp_path)
    project = project_copy(PROGRAM, tmp_path / "no-ssa")
    config = {"kubeconfig_file": str(cluster.kubeconfig), "namespace": namespace, "case": "no-ssa"}
    failed = run_project(engine, "up", project, config=config, check=False)
    assert failed.code != 0
    # the inline program's host repeats a program's error as "an unhandled error occurred: ..."
    (message,) = {e.removeprefix(INLINE_HOST).strip() for e in _errors(failed)}
    print(f"\n[e2e] server-side apply off:\nerror: {message}")
    assert message.startswith('DynamoGraphDeployment "vllm-agg": provider "local" has server-side apply off'), message
    assert "enable_server_side_apply=True" in message and "Traceback" not in failed.log, failed.log[-3000:]
    assert not [s for s in failed.steps("pre") if s["type"].startswith("kubernetes:") and "Provider" not in s["type"]]
    assert _deployments(cluster, namespace) == {}


def test_adopt_imports_the_rendered_objects_that_exist(
        tools: ToolSet, cluster: LocalCluster, namespace: str, tmp_path: Path):
    plan = plan_graph(default_graph_path(), namespace=namespace, name="vllm-agg")
    # as kubectl, before Pulumi knew of them (JSON: kubectl's YAML reads some quoted strings as booleans)
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List",
                                                          "items": [p.obj for p in plan.all_objects()]}))
    engine = _engine(tools, tmp_path)
    project = project_copy(PROGRAM, tmp_path / "adopt")
    config = {"kubeconfig_file": str(cluster.kubeconfig), "namespace": namespace, "case": "adopt",
              "readiness_provider": "plugin"}
    run = run_project(engine, "up", project, config=config)
    kubernetes = [s for s in run.steps("pre") if s["type"].startswith("kubernetes:") and "Provider" not in s["type"]]
    imported = {s["urn"].rsplit("::", 1)[-1] for s in kubernetes if s["op"] == "import"}
    expected = {p.pulumi_name for p in plan.all_objects() if not p.shared}
    assert imported == expected, sorted(kubernetes, key=lambda s: s["urn"])
    assert not [s for s in kubernetes if s["op"] == "create" and not s["type"].endswith("Patch")], kubernetes
    # the import reads the server's defaults as inputs: an update of our fields follows, no await of its own
    assert {s["op"] for s in kubernetes if not s["type"].endswith("Patch")} <= {"import", "update"}, kubernetes
    assert "Finding Pods to direct traffic to" not in run.log, run.log[-3000:]
    (waited,) = _steps(run, "outputs", PLUGIN_READINESS)
    assert waited["op"] == "create" and run.result["outputs"]["readiness"]["state"] == "successful", waited
