"""The GPU cost of a change: per component and in total, before and after, with the GPU product the
spec or placement names (``dynamo_pulumi.diff.gpu_delta``)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_pulumi.diff.gpu_delta import (
    UNKNOWN_PRODUCT,
    ComponentGpus,
    GpuDelta,
    change_line,
    diff_lines,
    gpu_delta,
    gpu_product,
    gpu_resource,
    summary_lines,
)
from dynamo_pulumi.program.graph_program import plan

GRAPH = Path(__file__).resolve().parent / "fixtures" / "programs" / "disagg" / "graph.yaml"
H100 = "NVIDIA-H100-80GB-HBM3"


def _graph() -> dict[str, Any]:
    return yaml.safe_load(GRAPH.read_text())


def _component(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in doc["spec"]["components"] if c["name"] == name)


def _plan(tmp_path: Path, doc: dict[str, Any], name: str = "g.yaml") -> Any:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc))
    return plan(path, "ns")


# --- product and resource -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "product"),
    [
        ({"nodeSelector": {"nvidia.com/gpu.product": H100}}, H100),
        ({"nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"}}, "nvidia-l4"),
        ({"nodeSelector": {"node.kubernetes.io/instance-type": "p5.48xlarge"}}, "p5.48xlarge"),
        ({"nodeSelector": {"karpenter.k8s.aws/instance-gpu-name": "h100"}}, "h100"),
        ({"nodeSelector": {"beta.kubernetes.io/instance-type": "Standard_ND96asr_v4"}}, "Standard_ND96asr_v4"),
        # the GPU product is more precise than the machine that carries it
        ({"nodeSelector": {"node.kubernetes.io/instance-type": "p5.48xlarge", "nvidia.com/gpu.product": H100}}, H100),
        ({"nodeSelector": {"dynamo.nvidia.com/pool": "gpu"}}, ""),
        ({}, ""),
        ({"nodeSelector": {"nvidia.com/gpu.product": "__dynamo_pulumi_output_0123456789ab__"}}, UNKNOWN_PRODUCT),
    ],
    ids=["gfd", "gke", "instance-type", "karpenter", "beta-instance-type", "product-first", "other-label", "none",
         "output"],
)
def test_the_product_comes_from_the_node_selector(pod, product):
    assert gpu_product([{"containers": [], **pod}]) == product


def _affinity(key: str, operator: str, values: list[str]) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": key, "operator": operator, "values": values}]}
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}}


def test_the_product_comes_from_required_node_affinity_in_too():
    assert gpu_product([_affinity("nvidia.com/gpu.product", "In", [H100, "NVIDIA-H200"])]) == f"{H100} | NVIDIA-H200"
    assert gpu_product([_affinity("nvidia.com/gpu.product", "NotIn", [H100])]) == ""
    assert gpu_product([_affinity("topology.kubernetes.io/zone", "In", ["a"])]) == ""


def test_the_first_pod_naming_a_product_wins():
    pods = [{"nodeSelector": {}}, {"nodeSelector": {"nvidia.com/gpu.product": "B200"}}]
    assert gpu_product(pods) == "B200"


@pytest.mark.parametrize(
    ("resources", "name"),
    [
        ({"limits": {"nvidia.com/gpu": "1", "cpu": "2"}}, "nvidia.com/gpu"),
        ({"requests": {"nvidia.com/mig-3g.40gb": "1"}}, "nvidia.com/mig-3g.40gb"),
        ({"limits": {"amd.com/gpu": "8"}}, "amd.com/gpu"),
        ({"limits": {"cpu": "1"}}, "nvidia.com/gpu"),
        ({}, "nvidia.com/gpu"),
    ],
)
def test_the_resource_is_the_gpu_name_the_pods_ask_for(resources, name):
    assert gpu_resource([{"containers": [{"name": "main", "resources": resources}]}]) == name


# --- before and after ------------------------------------------------------------------------------------


def test_more_replicas_cost_their_gpus_on_that_component_only(tmp_path):
    old = _graph()
    new = copy.deepcopy(old)
    _component(new, "decode")["replicas"] = 4
    delta = gpu_delta(_plan(tmp_path, old, "a.yaml"), _plan(tmp_path, new, "b.yaml"))
    (changed,) = delta.changed
    assert changed == ComponentGpus("decode", 8, 16, "nvidia.com/gpu", H100, "replicas 2 => 4")
    assert change_line(changed) == f"+8 nvidia.com/gpu ({H100}) on decode: replicas 2 => 4"
    assert (delta.before, delta.after) == (9, 17)
    assert diff_lines(delta)[-1] == "GPUs: 9 => 17 (+8)"


def test_more_gpus_per_replica_say_so(tmp_path):
    old = _graph()
    new = copy.deepcopy(old)
    _component(new, "prefill")["podTemplate"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "2"
    (changed,) = gpu_delta(_plan(tmp_path, old, "a.yaml"), _plan(tmp_path, new, "b.yaml")).changed
    assert (changed.component, changed.delta, changed.cause) == ("prefill", 1, "GPUs per replica 1 => 2")


def test_a_component_removed_or_a_graph_created_counts_from_or_to_zero(tmp_path):
    old = _graph()
    new = copy.deepcopy(old)
    new["spec"]["components"] = [c for c in new["spec"]["components"] if c["name"] != "prefill"]
    delta = gpu_delta(_plan(tmp_path, old, "a.yaml"), _plan(tmp_path, new, "b.yaml"))
    assert [(c.component, c.before, c.after, c.cause) for c in delta.changed] == [("prefill", 1, 0, "removed")]
    assert change_line(delta.changed[0]) == f"-1 nvidia.com/gpu ({H100}) on prefill: removed"
    created = gpu_delta(None, _plan(tmp_path, old, "a.yaml"))
    assert [(c.component, c.before, c.cause) for c in created.components] == [
        ("Frontend", 0, "added"), ("decode", 0, "added"), ("prefill", 0, "added")]
    assert summary_lines(created) == [f"  decode: 8 nvidia.com/gpu ({H100})", f"  prefill: 1 nvidia.com/gpu ({H100})"]


def test_an_unchanged_graph_says_unchanged(tmp_path):
    graph = _plan(tmp_path, _graph())
    delta = gpu_delta(graph, graph)
    assert delta.changed == () and diff_lines(delta) == ["GPUs: 9 (unchanged)"]


def test_json_has_every_field_filled_or_absent():
    delta = GpuDelta((ComponentGpus("decode", 8, 16, "nvidia.com/gpu", H100, "replicas 2 => 4"),
                      ComponentGpus("Frontend", 0, 0)))
    assert delta.as_json() == {
        "before": 8, "after": 16, "delta": 8, "partial": False,
        "components": [
            {"component": "decode", "before": 8, "after": 16, "delta": 8, "resource": "nvidia.com/gpu",
             "product": H100, "cause": "replicas 2 => 4"},
            {"component": "Frontend", "before": 0, "after": 0, "delta": 0, "resource": "nvidia.com/gpu"},
        ],
    }
    assert delta.requested_json() == {"total": 16, "partial": False, "components": [
        {"component": "decode", "gpus": 16, "resource": "nvidia.com/gpu", "product": H100},
        {"component": "Frontend", "gpus": 0, "resource": "nvidia.com/gpu"},
    ]}


def test_a_negative_total_is_signed():
    delta = GpuDelta((ComponentGpus("decode", 16, 8, cause="replicas 4 => 2"),))
    assert diff_lines(delta) == ["-8 nvidia.com/gpu on decode: replicas 4 => 2", "GPUs: 16 => 8 (-8)"]


def test_grove_cliques_give_the_product_of_their_component(tmp_path):
    doc = _graph()
    for name in ("decode", "prefill"):
        _component(doc, name)["multinode"] = {"nodeCount": 2}
    _component(doc, "prefill")["podTemplate"]["spec"]["nodeSelector"]["nvidia.com/gpu.product"] = "NVIDIA-B200"
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(doc))
    grove = plan(path, "ns", {"orchestrators": {"grove": {"enabled": True}}})
    delta = gpu_delta(None, grove)
    decode = next(c for c in delta.components if c.component == "decode")
    assert decode.product == H100 and decode.after == 16  # 2 replicas x 2 nodes x 4 GPUs
    prefill = next(c for c in delta.components if c.component == "prefill")
    assert prefill.product == "NVIDIA-B200"  # each component's own cliques


# --- edges ------------------------------------------------------------------------------------------------


def test_scaling_to_zero_names_the_replicas_only(tmp_path):
    old = _graph()
    new = copy.deepcopy(old)
    _component(new, "decode")["replicas"] = 0
    (changed,) = gpu_delta(_plan(tmp_path, old, "a.yaml"), _plan(tmp_path, new, "b.yaml")).changed
    assert (changed.delta, changed.cause) == (-8, "replicas 2 => 0")


def test_replicas_and_gpus_per_replica_changed_together_are_both_named(tmp_path):
    old = _graph()
    new = copy.deepcopy(old)
    decode = _component(new, "decode")
    decode["replicas"] = 4
    decode["podTemplate"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "8"
    decode["podTemplate"]["spec"]["containers"][0]["args"][-1] = "8"
    (changed,) = gpu_delta(_plan(tmp_path, old, "a.yaml"), _plan(tmp_path, new, "b.yaml")).changed
    assert changed.cause == "replicas 2 => 4, GPUs per replica 4 => 8"


def test_gpus_per_replica_may_be_fractional():
    from dynamo_pulumi.diff.gpu_delta import per_replica
    from dynamo_pulumi.planning.outputs import ComponentSummary

    def summary(replicas: int, gpus: int) -> ComponentSummary:
        return ComponentSummary("decode", "Deployment", [], None, replicas, gpus)

    assert [per_replica(summary(2, 3)), per_replica(summary(2, 4)), per_replica(summary(0, 0))] == ["1.5", 2, None]


def test_a_mig_profile_is_the_resource_of_the_delta(tmp_path):
    doc = _graph()
    limits = _component(doc, "prefill")["podTemplate"]["spec"]["containers"][0]["resources"]["limits"]
    limits["nvidia.com/mig-3g.40gb"] = limits.pop("nvidia.com/gpu")
    prefill = next(c for c in gpu_delta(None, _plan(tmp_path, doc)).components if c.component == "prefill")
    assert (prefill.resource, prefill.before, prefill.after) == ("nvidia.com/mig-3g.40gb", 0, 1)


def test_unchanged_components_have_no_cause_and_a_line_without_one_has_no_colon(tmp_path):
    graph = _plan(tmp_path, _graph())
    assert {c.cause for c in gpu_delta(graph, graph).components} == {""}
    assert change_line(ComponentGpus("decode", 0, 1)) == "+1 nvidia.com/gpu on decode"


def test_gpus_moved_between_components_show_a_zero_total_change():
    delta = GpuDelta((ComponentGpus("decode", 8, 4, cause="replicas 2 => 1"),
                      ComponentGpus("prefill", 1, 5, cause="replicas 1 => 5")))
    assert diff_lines(delta)[-1] == "GPUs: 9 => 9 (+0)"


def test_pod_specs_are_found_inside_lists_too():
    from dynamo_pulumi.diff.gpu_delta import _pod_specs

    assert list(_pod_specs({"items": [{"spec": {"containers": []}}]})) == [{"containers": []}]
