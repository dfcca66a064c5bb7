"""The readiness resource's inputs predicted from a plan (readiness/plan_inputs.py): equal to what
the components register, and the step ``dynamo-pulumi diff`` predicts for it.

The real engine's plan (tests/e2e/test_engine_diff.py) showed an update of the readiness resource
beside every changed workload, which ``diff`` did not list; and an update (a new wait) for a
change of replicas a scaling adapter owns, which updates nothing else.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from update_rule_cases import ADAPTED, BASE, PLATFORM

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.plan import GraphPlan, plan_graph
from dynamo_pulumi.readiness.plan_inputs import (
    PLUGIN_READINESS_TYPE,
    READINESS_TYPE,
    plan_inputs,
    readiness_changes,
)
from dynamo_pulumi.resources import DynamoComponentDeployment, DynamoGraphDeployment

COMPARED = ("namespace", "graph", "kind", "mode", "targets", "revision", "pod_selector", "expansion", "predicted")


#: The component pathway (Deployments, worker names carrying the worker hash) and Grove (one
#: PodCliqueSet, the hash in labels only).
PATHWAYS = {"deployments": None, "grove": PLATFORM}


def _plan(doc: dict[str, Any], mode: str = "render", pathway: str = "deployments") -> GraphPlan:
    return plan_graph(copy.deepcopy(doc), PATHWAYS[pathway], None, "", None, mode=mode)


def _decode(doc: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in doc["spec"]["components"] if c["name"] == "decode")


def _changed(doc: dict[str, Any], **fields: Any) -> dict[str, Any]:
    new = copy.deepcopy(doc)
    _decode(new).update(fields)
    return new


@pytest.mark.parametrize("pathway", PATHWAYS)
@pytest.mark.parametrize("mode", ["render", "operator"])
@pytest.mark.parametrize("doc", [BASE, ADAPTED], ids=["plain", "scaling-adapter"])
def test_the_prediction_is_what_the_component_registers(mode, doc, pathway):
    plan = _plan(doc, mode, pathway)
    rec, _ = run_program(lambda: DynamoGraphDeployment("g", plan), preview=False)
    (registered,) = rec.by_type(READINESS_TYPE)
    predicted = plan_inputs(plan)
    assert {k: registered.inputs[k] for k in COMPARED} == {k: predicted[k] for k in COMPARED}


#: A standalone DCD (its pods selected by the component label, not a graph's).
DCD = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
       "metadata": {"name": "solo", "namespace": "ns"},
       "spec": {"backendFramework": "vllm", "type": "worker", "replicas": 1,
                "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/dynamo/vllm:1.0.0",
                                                         "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}}


@pytest.mark.parametrize("mode", ["render", "operator"])
def test_a_standalone_components_prediction_is_what_it_registers(mode):
    plan = plan_graph(copy.deepcopy(DCD), None, None, "", None, mode=mode)
    rec, _ = run_program(lambda: DynamoComponentDeployment("solo", plan), preview=False)
    (registered,) = rec.by_type(READINESS_TYPE)
    predicted = plan_inputs(plan)
    assert predicted["pod_selector"] == "nvidia.com/dynamo-component=solo"
    assert {k: registered.inputs[k] for k in COMPARED} == {k: predicted[k] for k in COMPARED}


def test_a_worker_change_updates_the_readiness_resource_with_what_it_watches():
    old, new = _plan(BASE), _plan(_changed(BASE, replicas=3))
    (change,) = readiness_changes(old, new)
    assert (change.action, change.type, change.pulumi_name, change.owner) == ("update", READINESS_TYPE, "ns/g", "g")
    assert (change.old_name, change.new_name) == ("g", "g")
    assert [f.path for f in change.fields] == ["revision"]
    renamed = copy.deepcopy(BASE)  # a new worker revision: the workers get new names
    _decode(renamed)["podTemplate"]["spec"]["containers"][0]["args"] = ["--max-model-len", "4096"]
    (change,) = readiness_changes(old, _plan(renamed))
    paths = [f.path for f in change.fields]
    assert "revision" in paths and any(p.startswith("targets[") and p.endswith(".name") for p in paths)
    assert not change.delete_before_replace and change.reasons == []


@pytest.mark.parametrize("pathway", PATHWAYS)
@pytest.mark.parametrize("mode", ["render", "operator"])
def test_replicas_a_scaling_adapter_owns_are_no_new_wait(mode, pathway):
    """Not sent (ignore_changes), so nothing is updated and nothing needs to be waited for."""
    old, new = _plan(ADAPTED, mode, pathway), _plan(_changed(ADAPTED, replicas=5), mode, pathway)
    (change,) = readiness_changes(old, new)
    assert change.action == "same", [f.path for f in change.fields]


def test_the_same_plan_is_same_and_a_graph_on_one_side_is_created_or_deleted():
    plan = _plan(BASE)
    assert [c.action for c in readiness_changes(plan, _plan(BASE))] == ["same"]
    made = [(c.action, c.pulumi_name, c.owner, c.old_name, c.new_name) for c in readiness_changes(None, plan)]
    assert made == [("create", "ns/g", "g", "", "g")]
    gone = [(c.action, c.pulumi_name, c.owner, c.old_name, c.new_name) for c in readiness_changes(plan, None)]
    assert gone == [("delete", "ns/g", "g", "g", "")]
    assert readiness_changes(None, None) == []


def test_a_renamed_graph_creates_a_new_readiness_resource_and_deletes_the_old():
    renamed = copy.deepcopy(BASE)
    renamed["metadata"]["name"] = "h"
    changes = readiness_changes(_plan(BASE), _plan(renamed), PLUGIN_READINESS_TYPE)
    assert [(c.action, c.pulumi_name, c.type) for c in changes] == [
        ("create", "ns/h", PLUGIN_READINESS_TYPE), ("delete", "ns/g", PLUGIN_READINESS_TYPE)]


def test_a_mode_change_replaces_it_creating_the_new_one_first():
    (change,) = readiness_changes(_plan(BASE), _plan(BASE, "operator"))
    assert change.action == "replace" and not change.delete_before_replace
    assert change.reasons == ["the readiness resource watches another graph (mode changes): the new one is "
                              "created and waited for before the old one is deleted"]
    mode = next(f for f in change.fields if f.path == "mode")
    assert (mode.old, mode.new) == ("render", "operator")
