"""The root program through the real engine: ``pulumi up`` waits until the graph serves, ``refresh``
sees no drift, ``destroy`` leaves nothing behind.

The graph is the embedded default (a CPU frontend and a one-GPU vLLM worker); the real Deployment
controller and kwok make its pods ready on a fake H100 node. ``up`` returns only after our
readiness resource saw every worker ready, so the Deployments are already Available when it does.
"""

from __future__ import annotations

import json

from e2e.support import root_project, run_project
from localcluster.cluster import LocalCluster
from localcluster.engine import Engine


def _workloads(cluster: LocalCluster, namespace: str) -> list[dict]:
    return json.loads(cluster.kubectl("get", "deployments", "-n", namespace, "-o", "json"))["items"]


def _available(dep: dict) -> bool:
    conds = {c["type"]: c["status"] for c in dep.get("status", {}).get("conditions", [])}
    return conds.get("Available") == "True" and dep["status"].get("readyReplicas") == dep["spec"]["replicas"]


def test_up_waits_for_the_graph_then_refresh_has_no_drift_and_destroy_leaves_nothing(
        engine: Engine, cluster: LocalCluster, namespace: str, tmp_path):
    root = root_project(tmp_path / "root")
    config = {"dynamo-pulumi:namespace": namespace, "kubernetes:kubeconfig": str(cluster.kubeconfig)}
    up = run_project(engine, "up", root, config=config)

    deployments = _workloads(cluster, namespace)
    names = sorted(d["metadata"]["name"] for d in deployments)
    assert names[0] == "vllm-agg-frontend" and names[1].startswith("vllm-agg-vllmworker-"), names
    assert all(_available(d) for d in deployments), "up returned before every worker was ready"
    outputs = up.result["outputs"]
    assert outputs["totalGpus"] == 1
    assert outputs["frontendUrl"] == f"http://vllm-agg-frontend.{namespace}.svc.cluster.local:8000"

    refresh = run_project(engine, "refresh", root, config=config)
    assert set(refresh.result["summary"]) == {"same"}, refresh.result["summary"]

    run_project(engine, "destroy", root, config=config)
    left = cluster.kubectl("get", "all,serviceaccounts,roles,rolebindings,configmaps", "-n", namespace,
                           "-o", "name")
    ours = sorted(n for n in left.split() if not n.endswith(("/default", "/kube-root-ca.crt")))
    # The planner's namespace-shared ServiceAccount and RoleBinding outlive the graph, as the
    # operator leaves them (retained on delete; README "Namespace-shared objects").
    assert ours == ["rolebinding.rbac.authorization.k8s.io/planner-serviceaccount-binding",
                    "serviceaccount/planner-serviceaccount"], f"destroy left {ours}"
