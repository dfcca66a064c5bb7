"""``examples/aggregated-vllm`` through the real engine, as a user runs it: ``pulumi up`` returns when
the graph serves, its outputs are right, ``refresh`` finds no drift, ``destroy`` removes it all.

The example is the one Python example on the component pathway that runs here unchanged: it
creates its own Namespace and deploys the aggregated graph (a CPU frontend, two single-GPU vLLM
workers) into it; the real Deployment controller and kwok make its pods ready on the fake H100
nodes. The others cannot run as they are: ``multinode-grove`` needs the Grove operator to expand
its PodCliqueSet into pods, ``disaggregated-planner`` and ``operator-mode`` the Dynamo operator
(and the latter a chart download), ``eks-gpu-node-group`` and ``gke-gpu-node-pool`` a cloud
account and their providers' plugins. Their graphs do run here, as far as the API server can
take them without those operators: tests/e2e/test_engine_diff.py deploys the Grove and planner
graphs (stored and judged by their CRDs, not waited for) beside this one.

The example runs from a copy (the CLI writes its stack file beside ``Pulumi.yaml``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.support import project_copy, run_project
from localcluster.cluster import LocalCluster
from localcluster.engine import Engine
from localcluster.tools import REPO

EXAMPLE = REPO / "examples" / "aggregated-vllm"


@pytest.fixture
def example_namespace(cluster: LocalCluster) -> Iterator[str]:
    """A name for the Namespace the example creates itself (removed after, whatever happened)."""
    name = f"e2e-example-{uuid.uuid4().hex[:6]}"
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", "--ignore-not-found", check=False)


def _pods(cluster: LocalCluster, namespace: str) -> list[dict]:
    return json.loads(cluster.kubectl("get", "pods", "-n", namespace, "-o", "json"))["items"]


def _ready(pod: dict) -> bool:
    return any(c["type"] == "Ready" and c["status"] == "True" for c in pod.get("status", {}).get("conditions", []))


def test_the_aggregated_example_serves_when_up_returns_and_destroy_removes_it(
        engine: Engine, cluster: LocalCluster, example_namespace: str, tmp_path: Path):
    project = project_copy(EXAMPLE, tmp_path / "aggregated-vllm")
    config = {"namespace": example_namespace, "kubernetes:kubeconfig": str(cluster.kubeconfig)}

    up = run_project(engine, "up", project, config=config)
    pods = _pods(cluster, example_namespace)
    workers = [p for p in pods if p["metadata"]["labels"].get("nvidia.com/dynamo-component") == "VllmWorker"]
    assert len(workers) == 2 and len(pods) == 3, [p["metadata"]["name"] for p in pods]
    assert all(_ready(p) for p in pods), "pulumi up returned before kwok reported every pod Ready"
    deployments = json.loads(cluster.kubectl("get", "deployments", "-n", example_namespace, "-o", "json"))["items"]
    for d in deployments:
        conditions = {c["type"]: c["status"] for c in d["status"].get("conditions", [])}
        assert conditions.get("Available") == "True" and d["status"].get("readyReplicas") == d["spec"]["replicas"]
    assert all(p["spec"].get("nodeName", "").startswith("gpu-h100-") for p in workers)
    assert "VllmWorker: 2/2 ready" in up.log

    outputs = up.result["outputs"]
    assert outputs["totalGpus"] == 2
    assert outputs["frontendUrl"] == f"http://vllm-agg-frontend.{example_namespace}.svc.cluster.local:8000"
    assert outputs["dynamoNamespace"] == f"{example_namespace}-vllm-agg"
    worker = outputs["components"]["VllmWorker"]
    assert (worker["gpus"], worker["replicas"], worker["workloadKind"]) == (2, 2, "Deployment")
    assert worker["workloadNames"] == [d["metadata"]["name"] for d in deployments if "vllmworker" in d["metadata"]["name"]]

    refresh = run_project(engine, "refresh", project, config=config)
    assert set(refresh.result["summary"]) == {"same"}, refresh.result["summary"]

    destroy = run_project(engine, "destroy", project, config=config)
    assert set(destroy.result["summary"]) == {"delete"}
    assert destroy.result["summary"]["delete"] == up.result["summary"]["create"]
    # The example owns its Namespace, so destroy removes it last, with the namespace-shared planner
    # RBAC that outlives the graph itself (retained on delete; the root program's test shows it).
    gone = cluster.kubectl("get", "namespace", example_namespace, check=False)
    assert gone == "", f"the Namespace is still there after destroy: {gone}"
