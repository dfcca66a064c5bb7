"""Replica counts a scaling adapter owns are no prediction (issue 9, part 3 and 4): the planner or
an HPA scales the adapter and the operator writes the new count into the DCD and the workload, so
the drift check must not report them, and render mode must not reset the adapter's own count."""

from __future__ import annotations

import copy

from resources_fixtures import NS, graph_doc
from test_resources_tree import _grove_plan

from dynamo_pulumi.floor.expansion import without_paths
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.operator_mode import plan_prediction
from dynamo_pulumi.planning.plan import plan_graph
from dynamo_pulumi.readiness.drift import drift, object_id
from dynamo_pulumi.resources import DynamoGraphDeployment

SCALED_KINDS = ("Deployment", "DynamoComponentDeployment", "DynamoGraphDeploymentScalingAdapter")


def _scaled(objects: list[dict], replicas: int) -> dict:
    """The operator's objects after the planner scaled decode to ``replicas``, keyed as the drift
    check reads them back."""
    out = copy.deepcopy(objects)
    for obj in out:
        if obj["kind"] in SCALED_KINDS and "decode" in obj["metadata"]["name"]:
            obj.setdefault("spec", {})["replicas"] = replicas
    return {object_id(obj): obj for obj in out}


def test_a_planner_scaled_component_is_not_drift():
    predicted = plan_prediction(plan_graph(graph_doc(scaling_adapter=True), namespace=NS, mode="operator"))
    actual = _scaled(predicted, 5)
    assert drift(predicted, actual) == []


def test_without_an_adapter_a_changed_replica_count_still_is_drift():
    predicted = plan_prediction(plan_graph(graph_doc(), namespace=NS, mode="operator"))
    findings = drift(predicted, _scaled(predicted, 5))
    assert {f["path"] for f in findings} == {"spec.replicas"}
    assert {f["object"].split("/")[0] for f in findings} == {"Deployment", "DynamoComponentDeployment"}


def test_on_grove_the_scaled_cliques_replicas_are_left_out_of_the_prediction():
    plan = _grove_plan(scaling_adapter=True)
    (pcs,) = [o for o in plan_prediction(plan) if o["kind"] == "PodCliqueSet"]
    cliques = pcs["spec"]["template"]["cliques"]
    assert "replicas" not in cliques[1]["spec"] and cliques[0]["spec"]["replicas"] == 1


def test_render_mode_leaves_the_adapters_own_replicas_to_the_adapter():
    plan = plan_graph(graph_doc(scaling_adapter=True), namespace=NS)
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", plan), preview=False)
    (adapter,) = rec.by_type("kubernetes:nvidia.com/v1alpha1:DynamoGraphDeploymentScalingAdapter")
    assert adapter.ignore_changes == ("spec.replicas",)


def test_dropping_a_path_copies_only_along_it_and_skips_missing_paths():
    obj = {"spec": {"template": {"cliques": [{"spec": {"replicas": 1}}, {"spec": {"replicas": 2}}]}}, "kind": "X"}
    out = without_paths(obj, ["spec.template.cliques[1].spec.replicas", "spec.nothing.here", "spec.template.cliques[7].x"])
    assert out["spec"]["template"]["cliques"] == [{"spec": {"replicas": 1}}, {"spec": {}}]
    assert obj["spec"]["template"]["cliques"][1]["spec"] == {"replicas": 2}
