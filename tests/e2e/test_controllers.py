"""The controllers started beside the local cluster on demand: LWS (pinned, in CI), and Grove and
the Dynamo operator when a binary is given (``GROVE_OPERATOR_BIN``, ``DYNAMO_OPERATOR_BIN``; the
module proxy serves neither, see tests/fixtures/operator_recordings/README.md).

Each is reached by the API server on loopback: webhooks registered with a URL and the cluster's
CA, and for the Dynamo operator also the CRD conversion webhook (a v1alpha1 object is stored as
v1beta1 and read back as v1alpha1 through it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dynamo_pulumi.platform import Platform
from localcluster.cluster import LocalCluster
from localcluster.dynamo_operator import start_dynamo_operator
from localcluster.operators import Controller


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.3)


def get(cluster: LocalCluster, *args: str) -> dict[str, Any]:
    return json.loads(cluster.kubectl("get", *args, "-o", "json"))


def lws(name: str, size: int) -> dict[str, Any]:
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": name},
            "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": size, "workerTemplate": {"spec": {
                "containers": [{"name": "main", "image": "busybox:1.36"}]}}}}}


def test_lws_webhooks_are_served_on_loopback_and_label_the_group_pods(
        cluster: LocalCluster, lws_controller: Controller, namespace: str):
    hooks = [h for kind in ("mutatingwebhookconfigurations", "validatingwebhookconfigurations")
             for c in get(cluster, kind)["items"] if c["metadata"]["name"].startswith("lws-")
             for h in c["webhooks"]]
    assert hooks and all(h["clientConfig"]["url"].startswith(f"https://127.0.0.1:{lws_controller.webhook_port}/")
                         for h in hooks)
    assert {h["name"] for h in hooks if h.get("objectSelector")} == {"mpod.kb.io", "vpod.kb.io"}

    cluster.kubectl("apply", "-n", namespace, "-f", "-", input=json.dumps(lws("pair", 2)))
    stored = get(cluster, "lws", "pair", "-n", namespace)
    assert stored["spec"]["rolloutStrategy"]["type"] == "RollingUpdate"  # the defaulting webhook ran

    def labelled() -> list[dict[str, Any]]:
        pods = get(cluster, "pods", "-n", namespace)["items"]
        return pods if len(pods) == 2 else []

    pods = wait_for("the leader and its worker", labelled)
    assert sorted(p["metadata"]["labels"]["leaderworkerset.sigs.k8s.io/worker-index"] for p in pods) == ["0", "1"]

    def available() -> bool:
        conds = get(cluster, "lws", "pair", "-n", namespace).get("status", {}).get("conditions", [])
        return any(c["type"] == "Available" and c["status"] == "True" for c in conds)

    wait_for("the LWS to be Available", available)


def test_grove_defaults_a_podcliqueset_and_makes_its_cliques(cluster: LocalCluster, namespace: str,
                                                              grove_controller: Controller):
    pcs = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "one"},
           "spec": {"replicas": 1, "template": {"cliques": [{"name": "w", "spec": {
               "roleName": "w", "replicas": 1,
               "podSpec": {"containers": [{"name": "main", "image": "busybox:1.36"}]}}}]}}}
    cluster.kubectl("apply", "-n", namespace, "-f", "-", input=json.dumps(pcs))
    stored = get(cluster, "pcs", "one", "-n", namespace)
    assert "terminationDelay" in stored["spec"]["template"]  # the defaulting webhook ran

    def ready() -> bool:
        items = get(cluster, "podcliques", "-n", namespace)["items"]
        return bool(items) and all(i.get("status", {}).get("readyReplicas") == 1 for i in items)

    wait_for("the clique's pod to be ready", ready, timeout=90)


ALPHA_DGD = {
    "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment", "metadata": {"name": "tiny"},
    "spec": {"services": {"Frontend": {"componentType": "frontend", "replicas": 1, "extraPodSpec": {
        "mainContainer": {"image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"}}}}},
}


def test_the_dynamo_operator_converts_admits_and_reconciles(cluster: LocalCluster, namespace: str,
                                                             dynamo_binary: Path):
    operator = start_dynamo_operator(cluster, dynamo_binary, Platform())
    try:
        cluster.kubectl("apply", "-n", namespace, "-f", "-", input=json.dumps(ALPHA_DGD))
        beta = get(cluster, "dynamographdeployments.v1beta1.nvidia.com", "tiny", "-n", namespace)
        assert beta["apiVersion"] == "nvidia.com/v1beta1" and beta["spec"]["components"][0]["name"] == "Frontend"
        assert beta["metadata"]["annotations"]["nvidia.com/dynamo-operator-origin-version"] == "1.6.0"
        wait_for("the frontend Deployment", lambda: get(cluster, "deployments", "-n", namespace)["items"])
    finally:
        operator.stop()
