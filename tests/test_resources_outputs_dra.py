"""GPU outputs count DRA claims by the renderer's rule, so they agree with the launch flags.

A component whose GPUs come only from ResourceClaims (TRT-LLM ``mpirun -n``, vLLM's multinode
flags) reports, in its ``gpus`` output, the graph's ``totalGpus`` and ``dynamo-pulumi preview``,
the count the launch was sized with: from the claim template beside the graph, or from the
platform fact ``cluster.resourceClaimGpus``. Containers sharing one pod claim share its devices.
A claim nothing resolves offline is no failure where no launch needs it: it counts 0 and a
warning names it and the two ways to provide it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from dra_support import claim_template, dra_graph

from dynamo_pulumi.cli import main
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.outputs import summarize
from dynamo_pulumi.planning.plan import GraphPlan, plan_graph
from dynamo_pulumi.render.backends.gpus import pod_gpu_count
from dynamo_pulumi.resources import DynamoGraphDeployment

GROVE = {"orchestrators": {"grove": {"enabled": True}}}
LWS = {"orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": True}}}
PATHWAYS = pytest.mark.parametrize("orchestrators", [GROVE, LWS], ids=["Grove", "LWS"])

TWO_GPUS = claim_template("two-gpus", 2)
TRTLLM = ["-m", "dynamo.trtllm"]
VLLM_MP = ["-m", "dynamo.vllm", "--tensor-parallel-size", "8"]
MP = "{nvidia.com/vllm-distributed-executor-backend: mp}"


def _graph(framework: str, args: list[str], template: str = "two-gpus", nodes: int = 2) -> str:
    return dra_graph(framework, args, annotations=MP, template=template, nodes=nodes)


def _platform(orchestrators: dict[str, Any], stated: dict[str, int] | None = None) -> dict[str, Any]:
    return {**orchestrators, "cluster": {"resourceClaimGpus": stated}} if stated else dict(orchestrators)


def _leader_args(plan: GraphPlan) -> str:
    """The worker leader's main-container command line, as rendered on either pathway."""
    for planned in plan.all_objects():
        if planned.kind == "LeaderWorkerSet":
            pod = planned.obj["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]
        elif planned.kind == "PodCliqueSet":
            leader = next(c for c in planned.obj["spec"]["template"]["cliques"] if c["name"] == "agg-ldr")
            pod = leader["spec"]["podSpec"]
        else:
            continue
        main_container = next(c for c in pod["containers"] if c["name"] == "main")
        return " ".join([*main_container.get("command", []), *main_container.get("args", [])])
    raise AssertionError("no multinode workload rendered")


@PATHWAYS
def test_trtllm_gpus_come_from_the_claim_template_beside_the_graph_as_mpirun_does(
    orchestrators: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "graph.yaml"
    path.write_text(_graph("trtllm", TRTLLM) + "---" + TWO_GPUS)
    plan = plan_graph(path, _platform(orchestrators))
    summary = summarize(plan)
    assert "--oversubscribe -n 4 " in _leader_args(plan)  # 2 nodes x 2 GPUs
    assert summary.components["agg"].gpus == 4
    assert summary.total_gpus == 4
    assert plan.warnings == []


@PATHWAYS
def test_vllm_gpus_come_from_the_platform_fact_as_the_multinode_flags_do(orchestrators: dict[str, Any]) -> None:
    plan = plan_graph(_graph("vllm", VLLM_MP), _platform(orchestrators, {"two-gpus": 4}))
    assert "--nnodes 2" in _leader_args(plan)  # tensor parallel 8 over 4 GPUs per node
    assert summarize(plan).components["agg"].gpus == 8
    assert summarize(plan).total_gpus == 8


def test_the_platform_fact_wins_over_the_template_beside_the_graph_in_the_outputs_too() -> None:
    plan = plan_graph(_graph("trtllm", TRTLLM) + "---" + TWO_GPUS, _platform(GROVE, {"two-gpus": 1}))
    assert "--oversubscribe -n 2 " in _leader_args(plan)
    assert summarize(plan).total_gpus == 2


def test_component_and_graph_outputs_count_the_claim_template_a_program_passes_as_objects() -> None:
    graph = yaml.safe_load(_graph("trtllm", TRTLLM))
    template = yaml.safe_load(TWO_GPUS)

    def program() -> DynamoGraphDeployment:
        return DynamoGraphDeployment("dra-test", graph, namespace="default", platform=GROVE, objects=[template])

    _, dgd = run_program(program, preview=True)
    assert dgd.components["agg"].summary.gpus == 4
    assert dgd.summary.total_gpus == 4


def test_preview_prints_the_claim_gpus_in_its_total(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "graph.yaml"
    path.write_text(_graph("trtllm", TRTLLM) + "---" + TWO_GPUS)
    platform = tmp_path / "platform.yaml"
    platform.write_text(yaml.safe_dump(GROVE))
    assert main(["preview", str(path), "--platform", str(platform)]) == 0
    assert "GPUs requested:   4" in capsys.readouterr().out


def test_containers_sharing_one_pod_claim_count_its_gpus_once() -> None:
    """Intra-pod GMS: ``main`` and its client containers name the same claim."""
    pod = {
        "resourceClaims": [{"name": "shared", "resourceClaimTemplateName": "two-gpus"}],
        "containers": [
            {"name": "main", "resources": {"claims": [{"name": "shared"}]}},
            {"name": "loader", "resources": {"claims": [{"name": "shared"}, {"name": "shared", "request": "gpu"}]}},
            {"name": "metrics", "resources": {"limits": {"nvidia.com/gpu": "1"}}},
        ],
    }
    from dynamo_pulumi.render.backends.dra_claims import DraInventory

    assert pod_gpu_count(pod, DraInventory.of(yaml.safe_load_all(TWO_GPUS), "default")) == 2 + 1


def test_intra_pod_gms_engines_count_the_rendered_claim_template_once() -> None:
    main_container = {"name": "main", "image": "vllm:1.4.0", "command": ["python3", "-m", "dynamo.vllm"],
                      "resources": {"limits": {"nvidia.com/gpu": "2"}}}
    graph = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
             "metadata": {"name": "g", "namespace": "default",
                          "annotations": {"nvidia.com/dynamo-kube-discovery-mode": "container"}},
             "spec": {"components": [{"name": "worker", "type": "worker", "replicas": 3,
                                      "experimental": {"gpuMemoryService": {}, "failover": {}},
                                      "podTemplate": {"spec": {"containers": [main_container]}}}]}}
    summary = summarize(plan_graph(graph))
    assert summary.components["worker"].gpus == 3 * 2  # two engines, one shared claim per pod


def test_an_unresolvable_claim_no_launch_needs_counts_zero_with_a_warning_naming_it() -> None:
    plan = plan_graph(_graph("vllm", ["-m", "dynamo.vllm"], template="eight-gpus", nodes=1), GROVE)
    (warning,) = plan.warnings
    assert summarize(plan).components["agg"].gpus == 0
    assert "component 'agg'" in warning
    assert "ResourceClaimTemplate 'eight-gpus'" in warning
    assert "same file as the graph" in warning
    assert "cluster.resourceClaimGpus" in warning


@pytest.mark.parametrize(("multinode", "gpus"), [(None, 3 * 2), ({"nodeCount": 2}, 3 * 2 * 2)],
                         ids=["single-node", "two nodes"])
def test_inter_pod_gms_counts_each_grove_shared_rank_claim_once_per_group_replica(
    multinode: dict[str, int] | None, gpus: int
) -> None:
    """Grove creates one claim per scaling-group replica and rank, shared by the rank's weight
    server, engines and shadows; their pod specs carry no GPUs of their own."""
    main_container = {"name": "main", "image": "vllm:1.4.0", "command": ["python3", "-m", "dynamo.vllm"],
                      "resources": {"limits": {"nvidia.com/gpu": "2"}}}
    component: dict[str, Any] = {
        "name": "worker", "type": "worker", "replicas": 3,
        "experimental": {"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod", "numShadows": 1}},
        "podTemplate": {"spec": {"containers": [main_container]}},
    }
    if multinode:
        component["multinode"] = multinode
    graph = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
             "metadata": {"name": "g", "namespace": "default"},
             "spec": {"backendFramework": "vllm", "components": [component]}}
    plan = plan_graph(graph, GROVE)
    assert summarize(plan).components["worker"].gpus == gpus
    assert plan.warnings == []
