"""Operator mode under Pulumi mocks: the DGD/DCD custom resource is registered with the spec as
written and no rendered workload; render mode registers the workloads and no DGD; an immutable
change replaces the DGD through its replacement trigger; adoption imports the custom resource."""

from __future__ import annotations

import copy

import pytest
from update_rule_cases import (
    BASE,
    IMMUTABLE_CASES,
    MULTINODE,
    MUTABLE_CASES,
    ONCE_SET_CASES,
    PLATFORM,
    RuleCase,
)

from dynamo_pulumi.errors import GraphValidationError, InputError
from dynamo_pulumi.mocks import Recording, run_program
from dynamo_pulumi.planning.operator_mode import operator_expansion
from dynamo_pulumi.planning.plan import plan_graph
from dynamo_pulumi.resources import DCD_TYPE, DynamoComponentDeployment, DynamoGraphDeployment

DGD_CR = "kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment"
READINESS_TYPE = "pulumi-python:dynamic/dynamo:GraphReadiness"
DCD_CR = "kubernetes:nvidia.com/v1beta1:DynamoComponentDeployment"
PLANNER = {"name": "Planner", "type": "planner", "podTemplate": {"spec": {"containers": [{
    "name": "main", "image": "nvcr.io/nvidia/ai-dynamo/dynamo-planner:1.3.1",
    "command": ["python3", "-m", "dynamo.planner"], "args": ["--config", '{"environment": "kubernetes"}']}]}}}


def _run(doc, **kwargs) -> tuple[Recording, DynamoGraphDeployment]:
    return run_program(lambda: DynamoGraphDeployment("g", doc, platform=PLATFORM, **kwargs))


def _cr(rec: Recording):
    (cr,) = rec.by_type(DGD_CR)
    return cr


def _kubernetes_objects(rec: Recording):
    return [r for r in rec.resources if r.custom and r.type.startswith("kubernetes:")]


def test_operator_mode_registers_the_dgd_custom_resource_and_no_rendered_workload():
    rec, _ = _run(BASE, mode="operator")
    cr = _cr(rec)
    assert [r.type for r in _kubernetes_objects(rec)] == [DGD_CR]
    assert rec.by_type(DCD_TYPE) == []
    assert cr.parent_urn == rec.named("g").urn
    assert cr.inputs["apiVersion"] == "nvidia.com/v1beta1" and cr.inputs["kind"] == "DynamoGraphDeployment"
    assert cr.inputs["metadata"] == {"name": "g", "namespace": "ns"}
    assert cr.inputs["spec"] == BASE["spec"]  # as written: the operator's webhook defaults it
    assert cr.delete_before_replace
    (readiness,) = rec.by_type(READINESS_TYPE)
    assert readiness.inputs["mode"] == "operator" and cr.urn in readiness.dependencies


def test_preview_diff_shows_the_compact_expansion_not_the_full_predicted_objects():
    rec, _ = _run(BASE, mode="operator")
    (readiness,) = rec.by_type(READINESS_TYPE)
    assert readiness.inputs["expansion"] and readiness.inputs["predicted"]
    assert readiness.hide_diffs == ("predicted",)


def test_render_mode_registers_the_workloads_and_no_dgd():
    rec, _ = _run(BASE)
    assert rec.by_type(DGD_CR) == []
    assert rec.by_type("kubernetes:grove.io/v1alpha1:PodCliqueSet") or rec.by_type("kubernetes:apps/v1:Deployment")


def test_operator_mode_predicts_the_expansion_and_the_outputs_from_it():
    _, top = _run(BASE, mode="operator")
    entries = operator_expansion(top.plan)
    assert "PodCliqueSet" in {e["kind"] for e in entries}  # Grove on: the operator makes a PodCliqueSet
    assert all(len(e["digest"]) == 16 for e in entries)
    assert top.summary.total_gpus == 2  # two decode replicas of one GPU, as render mode says
    _, rendered = _run(BASE)
    assert operator_expansion(rendered.plan) == []


def _trigger(doc) -> dict:
    rec, _ = _run(doc, mode="operator")
    return _cr(rec).replacement_trigger


@pytest.mark.parametrize("case", IMMUTABLE_CASES, ids=lambda c: c.id)
def test_an_immutable_change_changes_the_replacement_trigger(case: RuleCase):
    assert _trigger(case.old) != _trigger(case.new)


@pytest.mark.parametrize("case", ONCE_SET_CASES, ids=lambda c: c.id)
def test_a_value_set_where_none_was_changes_the_trigger_under_the_rules_name(case: RuleCase):
    """What ``diff --mode operator`` must then show as a replacement (test_cli_mode_verdicts)."""
    before, after = _trigger(case.old), _trigger(case.new)
    assert [key for key in after if before.get(key) != after[key] and case.rule in key]


@pytest.mark.parametrize("case", MUTABLE_CASES, ids=lambda c: c.id)
def test_a_mutable_change_keeps_the_replacement_trigger(case: RuleCase):
    assert _trigger(case.old) == _trigger(case.new)


def test_scaling_adapter_replicas_stay_out_of_the_diff():
    doc = copy.deepcopy(BASE)
    doc["spec"]["components"][1]["scalingAdapter"] = {}
    rec, _ = _run(doc, mode="operator")
    assert _cr(rec).ignore_changes == ("spec.components[1].replicas",)


def test_adoption_imports_the_custom_resource_by_namespace_and_name():
    rec, _ = _run(BASE, mode="operator", adopt=True)
    assert _cr(rec).import_id == "ns/g"
    rec, _ = _run(BASE, mode="operator")
    assert _cr(rec).import_id == ""


def test_adopting_with_the_spec_as_applied_plans_no_replacement():
    """``kubectl apply`` of the same file stored the same spec, so the import sees no difference
    and the trigger (a pure function of the spec) is what the next run computes too."""
    rec, _ = _run(BASE, mode="operator", adopt=True)
    assert _cr(rec).inputs["spec"] == BASE["spec"]
    assert _cr(rec).replacement_trigger == _trigger(copy.deepcopy(BASE))


def test_a_planner_graph_is_refused_in_render_mode_and_registered_in_operator_mode():
    doc = copy.deepcopy(BASE)
    doc["spec"]["components"].append(PLANNER)
    recording = Recording()
    with pytest.raises(GraphValidationError, match='mode="operator"'):
        run_program(lambda: DynamoGraphDeployment("g", doc, platform=PLATFORM), recording=recording)
    assert recording.resources == []
    rec, _ = _run(doc, mode="operator")
    assert _cr(rec).inputs["spec"]["components"][2]["type"] == "planner"


def test_a_standalone_dcd_in_operator_mode_registers_the_dcd_custom_resource():
    dcd = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
           "metadata": {"name": "w", "namespace": "ns"},
           "spec": {"backendFramework": "vllm", **{k: v for k, v in BASE["spec"]["components"][1].items() if k != "name"}}}
    rec, _ = run_program(lambda: DynamoComponentDeployment("w", dcd, mode="operator"))
    (cr,) = rec.by_type(DCD_CR)
    assert [r.type for r in _kubernetes_objects(rec)] == [DCD_CR]
    assert cr.inputs["spec"]["backendFramework"] == "vllm" and cr.replacement_trigger


def test_a_plan_made_for_one_mode_is_not_registered_in_the_other():
    plan = plan_graph(BASE, PLATFORM, mode="render")
    with pytest.raises(InputError, match="plan it again with mode='operator'"):
        run_program(lambda: DynamoGraphDeployment("g", plan, mode="operator"))


def test_an_unknown_mode_is_an_input_error():
    with pytest.raises(InputError, match="mode must be one of"):
        run_program(lambda: DynamoGraphDeployment("g", BASE, mode="helm"))


LPX = {"name": "L", "type": "lpx", "lpx": {"buildId": "builds/llama"},
       "roles": [{"name": "agent", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "lpx-agent:1.0.0"}]}}}]}
LPX_PLATFORM = {"lpx": {"enabled": True}, "orchestrators": {"grove": {"enabled": True}}}


def test_an_lpx_graph_registers_in_operator_mode_with_an_empty_prediction_and_a_warning():
    doc = copy.deepcopy(BASE)
    doc["spec"]["components"] = [doc["spec"]["components"][0], LPX]
    with pytest.raises(GraphValidationError, match="LPX controller"):
        plan_graph(doc, LPX_PLATFORM, mode="render")
    plan = plan_graph(doc, LPX_PLATFORM, mode="operator")
    assert plan.all_objects() == [] and operator_expansion(plan) == []
    assert any("cannot be predicted offline" in w for w in plan.warnings)
    rec, _ = run_program(lambda: DynamoGraphDeployment("g", plan))
    assert _cr(rec).inputs["spec"]["components"][1]["type"] == "lpx"


def test_an_output_the_rendering_reads_is_fine_in_operator_mode_and_reaches_the_custom_resource():
    """Render mode cannot render a GPU count known only at deploy time (the multinode launch reads
    it); in operator mode the operator reads the real value, so the DGD is sent with the Output
    and only the prediction is missing."""
    import pulumi

    def program(mode: str):
        doc = copy.deepcopy(MULTINODE)
        limits = doc["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]["resources"]["limits"]
        limits["nvidia.com/gpu"] = pulumi.Output.from_input("1")
        return DynamoGraphDeployment("g", doc, platform=PLATFORM, mode=mode)

    with pytest.raises(GraphValidationError, match=r"a pulumi\.Output's value cannot be read at preview time"):
        run_program(lambda: program("render"))
    rec, top = run_program(lambda: program("operator"))
    container = _cr(rec).inputs["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert any("cannot be predicted offline" in w for w in top.plan.warnings)


def test_the_root_program_takes_the_mode_from_stack_config():
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "__main__.py"
    rec, _ = run_program(lambda: runpy.run_path(str(root), run_name="__main__"), config={"dynamo-pulumi:mode": "operator"})
    assert [r.type for r in _kubernetes_objects(rec)] == [DGD_CR]


OWNED_DCD = """
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: llama-frontend
  namespace: prod
  uid: 0b9d3c1e
  ownerReferences: [{apiVersion: nvidia.com/v1beta1, kind: DynamoGraphDeployment, name: llama, uid: u1, controller: true}]
spec:
  name: frontend
  type: frontend
  podTemplate: {spec: {containers: [{name: main, image: "frontend:1.4.0"}]}}
"""


def _parent_env(plan) -> str:
    (deployment,) = [p.obj for p in plan.all_objects() if p.kind == "Deployment"]
    (main,) = deployment["spec"]["template"]["spec"]["containers"]
    return next(e["value"] for e in main["env"] if e["name"] == "DYN_PARENT_DGD_K8S_NAME")


def test_the_prediction_renders_the_custom_resource_as_sent_without_owner_references():
    """The owner reference decides a DCD's parent graph (render mode), but operator mode never
    sends it, so the operator, and therefore the prediction, see a DCD of no graph."""
    from dynamo_pulumi.planning.operator_mode import custom_resource_document

    operator = plan_graph(OWNED_DCD, mode="operator")
    assert custom_resource_document(operator)["metadata"] == {"name": "llama-frontend", "namespace": "prod"}
    assert _parent_env(operator) == "llama-frontend"
    assert any("metadata.ownerReferences is not sent in operator mode" in w for w in operator.warnings)
    render = plan_graph(OWNED_DCD, mode="render")
    assert _parent_env(render) == "llama"
    assert not any("ownerReferences" in w for w in render.warnings)
