"""A graph that cannot be scheduled fails ``pulumi up`` at its deadline with one message, and the
fixed graph's ``up`` finishes it.

The root program (``Pulumi.yaml`` + ``__main__.py``, copied so the CLI writes its stack file
elsewhere) deploys the embedded graph with the worker pinned to a GPU product no node has
(``nvidia.com/gpu.product: NVIDIA-B200``; the fake nodes are H100s) and a 15-second readiness
deadline. The real scheduler refuses the pod; our wait ends at the deadline with one message
naming the graph, the component and the scheduler's reason, and no Python traceback. Pinned to the
product the nodes have, the next ``up`` replaces the worker (a new revision) and waits it ready.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

from dynamo_pulumi.program.graph_program import default_graph_path
from e2e.support import root_project, run_project
from localcluster.cluster import LocalCluster
from localcluster.engine import Engine

TIMEOUT_SECONDS = 15
READINESS = "dynamo:GraphReadiness"
SCHEDULER = re.compile(r"Unschedulable: 0/\d+ nodes are available: \d+ node\(s\) didn't match Pod's node affinity/selector")


def _graph(path: Path, product: str) -> Path:
    doc = yaml.safe_load(default_graph_path().read_text())
    worker = next(c for c in doc["spec"]["components"] if c["name"] == "VllmWorker")
    worker["podTemplate"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.product": product}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _readiness_steps(run, kind: str) -> list[dict]:
    return [e for e in run.events if kind in e and e[kind]["type"].endswith(READINESS)]


def test_an_unschedulable_worker_fails_at_the_deadline_in_one_message_and_the_fix_finishes_it(
        engine: Engine, cluster: LocalCluster, namespace: str, tmp_path: Path):
    project = root_project(tmp_path / "root")
    config = {"dynamo-pulumi:namespace": namespace, "dynamo-pulumi:timeout": f"{TIMEOUT_SECONDS}s",
              "kubernetes:kubeconfig": str(cluster.kubeconfig),
              "dynamo-pulumi:graph": str(_graph(tmp_path / "b200.yaml", "NVIDIA-B200"))}

    failed = run_project(engine, "up", project, config=config, check=False)
    assert failed.code != 0
    (started,) = _readiness_steps(failed, "pre")
    (ended,) = _readiness_steps(failed, "failed")
    waited = ended["t"] - started["t"]
    assert TIMEOUT_SECONDS - 1 <= waited <= TIMEOUT_SECONDS + 10, f"the wait took {waited:.1f} s"

    errors = [e["diagnostic"]["message"] for e in failed.events
              if "diagnostic" in e and e["diagnostic"]["severity"] == "error"
              and (e["diagnostic"]["urn"] or "").endswith(f"::{namespace}/vllm-agg")]
    assert len(errors) == 1, errors
    (message,) = errors
    sys.stdout.write(f"\n[e2e] the failed up, its wait ended after {waited:.1f} s:\nerror: {message}\n")
    lines = message.strip().splitlines()
    assert lines[0] == f"DynamoGraphDeployment {namespace}/vllm-agg not ready after {TIMEOUT_SECONDS}s:", message
    assert len(lines) == 2 and lines[1].lstrip().startswith("VllmWorker: 0/1 ready (Deployment vllm-agg-vllmworker-"), message
    assert SCHEDULER.search(lines[1]), message
    assert "Traceback" not in failed.log and "FailedCreate" not in failed.log, failed.log[-3000:]

    config["dynamo-pulumi:graph"] = str(_graph(tmp_path / "h100.yaml", "NVIDIA-H100-80GB-HBM3"))
    fixed = run_project(engine, "up", project, config=config)
    assert "VllmWorker: 1/1 ready" in fixed.log
    summary = fixed.result["summary"]
    assert summary.get("replace") == 2 and summary.get("create") == 1, summary  # the new worker revision; the wait
    pods = cluster.kubectl("get", "pods", "-n", namespace, "-l", "nvidia.com/dynamo-component=VllmWorker",
                           "-o", "jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{'\\n'}{end}")
    running = [line.split()[0] for line in pods.strip().splitlines() if line.endswith(" Running")]
    assert len(running) == 1 and running[0].startswith("gpu-h100-"), pods
