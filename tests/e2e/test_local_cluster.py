"""The local cluster itself: fake GPU nodes the real scheduler uses, and a clean stop."""

from __future__ import annotations

import json
import os
import time

from localcluster.cluster import LocalCluster
from localcluster.nodes import NodePool


def _pod(name: str, gpus: int, product: str | None = None) -> dict:
    spec: dict = {"containers": [{"name": "main", "image": "busybox",
                                  "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}]}
    if product:
        spec["nodeSelector"] = {"nvidia.com/gpu.product": product}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _wait_for(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("condition not reached")


def test_gpu_nodes_advertise_their_gpus_and_product(cluster: LocalCluster):
    nodes = json.loads(cluster.kubectl("get", "nodes", "-o", "json"))["items"]
    gpu = [n for n in nodes if "nvidia.com/gpu" in n["status"]["allocatable"]]
    assert len(gpu) == 3
    assert {n["status"]["allocatable"]["nvidia.com/gpu"] for n in gpu} == {"8"}
    assert {n["metadata"]["labels"]["nvidia.com/gpu.product"] for n in gpu} == {"NVIDIA-H100-80GB-HBM3"}
    assert all(c["status"] == "True" for n in nodes for c in n["status"]["conditions"] if c["type"] == "Ready")


def test_the_scheduler_binds_a_gpu_pod_and_kwok_makes_it_ready(cluster: LocalCluster, namespace: str):
    cluster.apply([{**_pod("one-gpu", 1), "metadata": {"name": "one-gpu", "namespace": namespace}}])

    def ready():
        pod = json.loads(cluster.kubectl("get", "pod", "one-gpu", "-n", namespace, "-o", "json"))
        conds = {c["type"]: c["status"] for c in pod["status"].get("conditions", [])}
        return pod if conds.get("Ready") == "True" else None

    pod = _wait_for(ready)
    assert pod["spec"]["nodeName"].startswith("gpu-h100-")


def test_a_gpu_product_no_node_has_is_unschedulable_with_the_schedulers_reason(cluster: LocalCluster, namespace: str):
    cluster.apply([{**_pod("b200", 1, "NVIDIA-B200"), "metadata": {"name": "b200", "namespace": namespace}}])

    def unschedulable():
        pod = json.loads(cluster.kubectl("get", "pod", "b200", "-n", namespace, "-o", "json"))
        conds = [c for c in pod["status"].get("conditions", []) if c["type"] == "PodScheduled"]
        return conds[0] if conds and conds[0].get("reason") == "Unschedulable" else None

    cond = _wait_for(unschedulable)
    assert "didn't match Pod's node affinity/selector" in cond["message"]


def test_a_stopped_cluster_leaves_no_process(tools, tmp_path):
    c = LocalCluster(tmp_path / "c", tools, pools=(NodePool(name="gpu", count=1, gpus=1),))
    c.start()
    pids = [child.pid for child in c.children.started]
    assert len(pids) == 5
    c.stop()
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        raise AssertionError(f"process {pid} is still running after stop()")
