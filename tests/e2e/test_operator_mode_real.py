"""Operator mode against the real Dynamo operator (skipped without ``DYNAMO_OPERATOR_BIN``: the
module proxy serves no operator; CI compares with its recorded outputs instead, see
tests/test_operator_agreement.py). The operator runs with Grove and LWS off.

* ``pulumi up`` creates the DGD and returns once the operator reports it ready; ``destroy``
  leaves no Dynamo object and no workload behind (the planner's namespace-shared ServiceAccount
  and RoleBinding stay, as the operator leaves them);
* a multinode graph, which this operator has no orchestrator for, is admitted and then failed
  by the operator: the wait shows its reason (``no multinode orchestrator available``) and,
  since the operator retries, runs to its deadline;
* a graph the operator's webhook refuses (inter-pod GMS without the Grove pathway, planned
  against a platform that claims Grove) fails ``up`` with the webhook's own message.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dynamo_pulumi.platform import Platform
from e2e.support import root_project, run_project
from localcluster.cluster import LocalCluster
from localcluster.dynamo_operator import start_dynamo_operator
from localcluster.engine import Engine
from localcluster.operators import Controller
from localcluster.tools import REPO

FIXTURES = REPO / "tests" / "fixtures" / "e2e"
LEFT_BY_THE_OPERATOR = {"serviceaccount/planner-serviceaccount",
                        "rolebinding.rbac.authorization.k8s.io/planner-serviceaccount-binding"}


@pytest.fixture(scope="module")
def operator(cluster: LocalCluster, dynamo_binary: Path) -> Iterator[Controller]:
    controller = start_dynamo_operator(cluster, dynamo_binary, Platform())
    sys.stderr.write(f"\n[e2e] dynamo-operator ready after {controller.ready_after} s\n")
    try:
        yield controller
    finally:
        controller.stop()


def _config(cluster: LocalCluster, namespace: str, graph: Path, **extra: str) -> dict[str, str]:
    return {"dynamo-pulumi:namespace": namespace, "kubernetes:kubeconfig": str(cluster.kubeconfig),
            "dynamo-pulumi:graph": str(graph), "dynamo-pulumi:mode": "operator", **extra}


def test_up_waits_for_the_operator_and_destroy_leaves_nothing(engine: Engine, cluster: LocalCluster,
                                                              operator: Controller, namespace: str, tmp_path: Path):
    root = root_project(tmp_path / "root")
    config = _config(cluster, namespace, REPO / "examples" / "aggregated-vllm" / "graph.yaml",
                     **{"dynamo-pulumi:timeout": "3m"})
    run_project(engine, "up", root, config=config)
    dgd = json.loads(cluster.kubectl("get", "dgd", "-n", namespace, "-o", "json"))["items"][0]
    assert dgd["status"]["state"] == "successful", dgd["status"]
    deployments = json.loads(cluster.kubectl("get", "deployments", "-n", namespace, "-o", "json"))["items"]
    assert deployments and all(d["status"].get("readyReplicas") == d["spec"]["replicas"] for d in deployments)

    run_project(engine, "destroy", root, config=config)
    kinds = "dgd,dcd,deployments,services,leaderworkersets,podcliquesets,roles,rolebindings,serviceaccounts,configmaps"
    left = set(cluster.kubectl("get", kinds, "-n", namespace, "-o", "name").split())
    left = {n for n in left if not n.endswith(("/default", "/kube-root-ca.crt"))}
    assert left <= LEFT_BY_THE_OPERATOR, f"destroy left {sorted(left - LEFT_BY_THE_OPERATOR)}"


def test_a_missing_orchestrator_is_shown_with_the_operators_reason(engine: Engine, cluster: LocalCluster,
                                                                   operator: Controller, namespace: str, tmp_path: Path):
    root = root_project(tmp_path / "root")
    config = _config(cluster, namespace, FIXTURES / "multinode-vllm.yaml", **{"dynamo-pulumi:timeout": "25s"})
    up = run_project(engine, "up", root, config=config, check=False)
    assert up.code != 0
    assert "no multinode orchestrator available" in up.log, up.log[-3000:]
    run_project(engine, "destroy", root, config=config)


def test_a_graph_the_webhook_refuses_fails_up_with_its_message(engine: Engine, cluster: LocalCluster,
                                                               operator: Controller, namespace: str, tmp_path: Path):
    root = root_project(tmp_path / "root")
    config = _config(cluster, namespace, FIXTURES / "gms-interpod.yaml",
                     **{"dynamo-pulumi:platform": str(FIXTURES / "platform-grove.yaml"),
                        "dynamo-pulumi:timeout": "1m"})
    up = run_project(engine, "up", root, config=config, check=False)
    assert up.code != 0
    assert "admission webhook" in up.log and "requires the Grove pathway" in up.log, up.log[-3000:]
    assert not json.loads(cluster.kubectl("get", "dgd", "-n", namespace, "-o", "json"))["items"]
