"""GPU placement helpers: one argument puts the GPU components on a GPU node pool."""

from __future__ import annotations

import pulumi
from resources_fixtures import GRAPH, graph_doc

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import (
    DynamoGraphDeployment,
    GpuPlacement,
    eks_gpu_node_group,
    gke_gpu_node_pool,
)


def _pod_specs(rec):
    specs = {}
    for reg in rec.by_type("kubernetes:apps/v1:Deployment"):
        specs[reg.name.rsplit("-", 1)[-1]] = reg.inputs["spec"]["template"]["spec"]
    return specs


def test_placement_goes_to_gpu_components_only():
    placement = gke_gpu_node_pool("nvidia-l4")
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, graph_doc(), placement=placement))
    specs = _pod_specs(rec)
    assert specs["decode"]["nodeSelector"]["cloud.google.com/gke-accelerator"] == "nvidia-l4"
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"} in specs[
        "decode"
    ]["tolerations"]
    assert "cloud.google.com/gke-accelerator" not in (specs["frontend"].get("nodeSelector") or {})


def test_node_pool_outputs_flow_into_the_workload():
    def program():
        label = pulumi.Output.from_input("gpu-pool-7")
        return DynamoGraphDeployment(GRAPH, graph_doc(), placement=eks_gpu_node_group({"pool": label}))

    rec, _ = run_program(program, preview=False)
    decode = _pod_specs(rec)["decode"]
    assert decode["nodeSelector"]["pool"] == "gpu-pool-7"
    assert {"key": "nvidia.com/gpu", "effect": "NoSchedule", "operator": "Exists"} in decode["tolerations"]


def test_user_written_node_selector_wins_over_the_pool():
    doc = graph_doc()
    doc["spec"]["components"][1]["podTemplate"]["spec"]["nodeSelector"] = {"pool": "mine"}
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, doc, placement=GpuPlacement(node_selector={"pool": "theirs"})))
    assert _pod_specs(rec)["decode"]["nodeSelector"]["pool"] == "mine"


def test_explicit_component_list_overrides_detection():
    wire = graph_doc()
    placed = GpuPlacement(node_selector={"a": "b"}, components=["Frontend"]).apply(wire)
    assert placed == ["Frontend"]
    assert wire["spec"]["components"][0]["podTemplate"]["spec"]["nodeSelector"] == {"a": "b"}
    assert "nodeSelector" not in wire["spec"]["components"][1]["podTemplate"]["spec"]


def test_a_component_requesting_the_gpu_resource_is_a_gpu_component():
    frontend = {"name": "f", "type": "frontend", "podTemplate": {"spec": {"containers": [
        {"name": "main", "resources": {"limits": {"amd.com/gpu": 1}}}]}}}
    assert GpuPlacement(gpu_resource_name="amd.com/gpu").targets(frontend)
    assert not GpuPlacement().targets(frontend)


def test_pool_gpu_resource_name_replaces_the_default_gpu_resource():
    wire = graph_doc()
    wire["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]["resources"] = {
        "limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1", "cpu": "4"}}
    GpuPlacement(gpu_resource_name="nvidia.com/mig-3g.40gb").apply(wire)
    resources = wire["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"nvidia.com/mig-3g.40gb": "1"},
                         "requests": {"nvidia.com/mig-3g.40gb": "1", "cpu": "4"}}
