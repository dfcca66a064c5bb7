"""Outputs of the ComponentResources: workload kinds/names, Services, replicas, GPUs, URLs."""

from __future__ import annotations

from resources_fixtures import GRAPH, HASH, NS, small_plan

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.outputs import summarize
from dynamo_pulumi.render.backends.gpus import pod_gpu_count
from dynamo_pulumi.resources import DynamoGraphDeployment


def test_component_outputs_name_the_workload_service_replicas_and_gpus():
    summary = summarize(small_plan())
    decode = summary.components["decode"]
    assert decode.workload_kind == "Deployment"
    assert decode.workload_names == [f"{GRAPH}-decode-{HASH}"]
    assert decode.service_name == f"{GRAPH}-decode-{HASH}"
    assert decode.replicas == 2
    assert decode.gpus == 4  # 2 replicas x 2 GPUs
    assert summary.components["Frontend"].gpus == 0


def test_graph_outputs_give_namespace_url_and_total_gpus():
    summary = summarize(small_plan())
    assert summary.dynamo_namespace == f"{NS}-{GRAPH}"
    assert summary.frontend_url == f"http://{GRAPH}-frontend.{NS}.svc.cluster.local:8000"
    assert summary.total_gpus == 4


def test_outputs_resolve_on_the_component_resources():
    def program():
        dgd = DynamoGraphDeployment(GRAPH, small_plan())
        return dgd

    _, dgd = run_program(program, preview=False)
    assert dgd.components["decode"].summary.gpus == 4
    assert dgd.summary.total_gpus == 4


def test_pod_gpus_counts_only_gpu_resources_of_regular_containers():
    pod = {"containers": [
        {"resources": {"limits": {"nvidia.com/gpu": "2", "cpu": "8"}}},
        {"resources": {"requests": {"amd.com/gpu": 1}}},
        {"resources": {}},
    ], "initContainers": [{"resources": {"limits": {"nvidia.com/gpu": 8}}}]}
    assert pod_gpu_count(pod) == 3


def test_leaderworkerset_gpus_count_leader_and_workers():
    from dynamo_pulumi.planning.outputs import _pods_of_workload

    lws = {"kind": "LeaderWorkerSet", "spec": {"replicas": 2, "leaderWorkerTemplate": {
        "size": 3,
        "workerTemplate": {"spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": 8}}}]}},
    }}}
    assert sum(n * pod_gpu_count(p) for n, p in _pods_of_workload(lws, "x")) == 2 * 3 * 8


def test_gpu_totals_agree_between_grove_and_leaderworkerset_pathways():
    from pathlib import Path

    from dynamo_pulumi.program.graph_program import plan

    graph = Path(__file__).resolve().parent.parent / "examples" / "multinode-grove" / "graph.yaml"
    grove = summarize(plan(graph, "x", {"orchestrators": {"grove": {"enabled": True}}}))
    lws = summarize(plan(graph, "x", {"orchestrators": {"lws": {"enabled": True}}}))
    assert grove.components["decode"].workload_kind == "PodCliqueSet"
    assert lws.components["decode"].workload_kind == "LeaderWorkerSet"
    # 2 nodes x 8 GPUs for each of prefill and decode
    assert grove.components["decode"].gpus == lws.components["decode"].gpus == 16
    assert grove.total_gpus == lws.total_gpus == 32
