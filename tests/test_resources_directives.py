"""``pulumi.com/`` annotations are directives to the Pulumi Kubernetes provider (issue 25, item 4):
applied to the objects they are set on, never copied into a pod template nor hashed into the
worker revision, and the user's value wins over ours. Under mocks, on real renderings."""

from __future__ import annotations

import copy
import json

import pytest
from resources_fixtures import graph_doc

from dynamo_pulumi.mocks import Recording, run_program
from dynamo_pulumi.planning.directives import split
from dynamo_pulumi.planning.plan import plan_graph
from dynamo_pulumi.resources import DynamoGraphDeployment

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
READINESS = "pulumi-python:dynamic/dynamo:GraphReadiness"


def _doc(spec_annotations=None, decode_template=None, own=None):
    doc = copy.deepcopy(graph_doc())
    if spec_annotations is not None:
        doc["spec"]["annotations"] = dict(spec_annotations)
    if decode_template is not None:
        decode = doc["spec"]["components"][1]
        decode["podTemplate"].setdefault("metadata", {})["annotations"] = dict(decode_template)
    if own is not None:
        doc["metadata"]["annotations"] = dict(own)
    return doc


def _run(doc, **kwargs) -> Recording:
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", doc, **kwargs), preview=False)
    return rec


def _objects(rec: Recording):
    return [r for r in rec.resources if r.custom and r.type.startswith("kubernetes:")]


def _annotations(registration) -> dict:
    return registration.inputs["metadata"].get("annotations") or {}


def _templates(value):
    """Every pod template's annotations anywhere in an object (Deployment, LWS, PodCliqueSet)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("template", "podTemplate", "leaderTemplate", "workerTemplate") and isinstance(item, dict):
                yield (item.get("metadata") or {}).get("annotations") or {}
            yield from _templates(item)
    elif isinstance(value, list):
        for item in value:
            yield from _templates(item)


def _workers(rec: Recording):
    return sorted(r.object_name for r in rec.by_type(DEPLOYMENT))


def test_a_changed_timeout_directive_renames_no_worker_and_replaces_nothing():
    before = _run(_doc({"pulumi.com/timeoutSeconds": "600"}))
    after = _run(_doc({"pulumi.com/timeoutSeconds": "900"}))
    plain = _run(_doc())
    assert _workers(before) == _workers(after) == _workers(plain)
    readiness = [r.by_type(READINESS)[0].inputs["revision"] for r in (before, after, plain)]
    assert len(set(readiness)) == 1  # a directive is no change of what runs: no new wait


def test_directives_of_spec_annotations_go_on_every_object_and_into_no_pod_template():
    rec = _run(_doc({"pulumi.com/timeoutSeconds": "600", "team": "ml"}))
    for obj in _objects(rec):
        assert _annotations(obj).get("pulumi.com/timeoutSeconds") == "600", obj.name
        for template in _templates(obj.inputs):
            assert not any(k.startswith("pulumi.com/") for k in template), obj.name
    deployment = rec.by_type(DEPLOYMENT)[0]
    assert "team" in next(_templates(deployment.inputs))  # other annotations travel as the operator copies them


def test_a_pod_template_directive_directs_only_that_components_objects():
    rec = _run(_doc(decode_template={"pulumi.com/patchForce": "true"}))
    for obj in _objects(rec):
        decode = "decode" in obj.name
        assert (_annotations(obj).get("pulumi.com/patchForce") == "true") is decode, obj.name
        for template in _templates(obj.inputs):
            assert "pulumi.com/patchForce" not in template


def test_a_components_directive_wins_over_the_graphs():
    rec = _run(_doc({"pulumi.com/timeoutSeconds": "600"}, decode_template={"pulumi.com/timeoutSeconds": "60"}))
    values = {obj.name: _annotations(obj)["pulumi.com/timeoutSeconds"] for obj in _objects(rec)}
    assert {v for k, v in values.items() if "decode" in k} == {"60"}
    assert {v for k, v in values.items() if "decode" not in k} == {"600"}


def test_the_users_skip_await_false_wins_and_the_worker_is_awaited_with_the_graph_deadline():
    rec = _run(_doc({"pulumi.com/skipAwait": "false"}))
    worker = next(r for r in rec.by_type(DEPLOYMENT) if "decode" in r.name)
    assert _annotations(worker)["pulumi.com/skipAwait"] == "false"
    assert worker.custom_timeouts == ("3600s", "3600s", "3600s")
    service = next(r for r in rec.by_type("kubernetes:core/v1:Service") if "decode" in r.name)
    assert _annotations(service)["pulumi.com/skipAwait"] == "false"  # not overwritten to "true"


def test_without_a_directive_the_worker_skips_the_provider_await_as_before():
    rec = _run(_doc())
    worker = next(r for r in rec.by_type(DEPLOYMENT) if "decode" in r.name)
    assert _annotations(worker)["pulumi.com/skipAwait"] == "true" and worker.custom_timeouts == ("", "", "")


def test_the_users_timeout_seconds_is_not_overridden_by_custom_timeouts():
    rec = _run(_doc({"pulumi.com/timeoutSeconds": "600"}))
    frontend = next(r for r in rec.by_type(DEPLOYMENT) if "frontend" in r.name)
    assert _annotations(frontend)["pulumi.com/timeoutSeconds"] == "600"
    assert frontend.custom_timeouts == ("", "", "")  # customTimeouts would win over the annotation
    rec = _run(_doc())
    frontend = next(r for r in rec.by_type(DEPLOYMENT) if "frontend" in r.name)
    assert frontend.custom_timeouts == ("3600s", "3600s", "3600s")


def test_the_users_patch_field_manager_reaches_a_shared_patch():
    rec = _run(_doc({"pulumi.com/patchFieldManager": "mine"}))
    (patch,) = rec.by_type("kubernetes:core/v1:ServiceAccountPatch")
    assert _annotations(patch)["pulumi.com/patchFieldManager"] == "mine"


def test_a_directive_on_the_graphs_own_metadata_is_a_warning_in_render_mode():
    plan = plan_graph(_doc(own={"pulumi.com/skipAwait": "true"}))
    (warning,) = [w for w in plan.warnings if "pulumi.com/" in w]
    assert warning.startswith("pulumi.com/skipAwait on the DynamoGraphDeployment's metadata.annotations: in render")
    assert not any("pulumi.com/skipAwait" in (p.obj["metadata"].get("annotations") or {}) for p in plan.all_objects())


def test_operator_mode_sends_no_spec_directive_keeps_the_own_ones_and_says_so():
    doc = _doc({"pulumi.com/timeoutSeconds": "600", "team": "ml"}, own={"pulumi.com/waitFor": "condition=Ready"})
    plan = plan_graph(doc, mode="operator")
    (warning,) = [w for w in plan.warnings if "pulumi.com/" in w]
    assert "pulumi.com/timeoutSeconds in the spec: in operator mode Pulumi registers only" in warning
    rec = _run(doc, mode="operator")
    (cr,) = rec.by_type("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment")
    assert cr.inputs["spec"]["annotations"] == {"team": "ml"}
    assert _annotations(cr)["pulumi.com/waitFor"] == "condition=Ready"
    assert not any("pulumi.com/" in json.dumps(p) for p in rec.by_type(READINESS)[0].inputs["predicted"])


def test_v1alpha1_service_directives_leave_the_conversion_payload_too():
    alpha = {
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "llm", "namespace": "team-a"},
        "spec": {"backendFramework": "vllm", "services": {
            "Frontend": {"componentType": "frontend", "replicas": 1,
                         "annotations": {"pulumi.com/timeoutSeconds": "60", "keep": "me"},
                         "extraPodSpec": {"mainContainer": {"image": "nvcr.io/dynamo/frontend:1.0.0"}}},
        }},
    }
    wire = plan_graph(alpha).graph.to_wire()
    payload = json.loads(wire["metadata"]["annotations"]["nvidia.com/dgd-spec"])
    assert payload["spec"]["services"]["Frontend"]["annotations"] == {"keep": "me"}
    rec = _run(alpha)
    for obj in _objects(rec):
        frontend = "frontend" in obj.name
        assert (_annotations(obj).get("pulumi.com/timeoutSeconds") == "60") is frontend, obj.name


@pytest.mark.parametrize("where", ["spec", "template"])
def test_split_takes_out_exactly_the_directives(where):
    doc = _doc({"pulumi.com/a": "1", "b": "2"}) if where == "spec" else _doc(decode_template={"pulumi.com/a": "1", "b": "2"})
    wire, directives = split(doc)
    holder = wire["spec"]["annotations"] if where == "spec" else wire["spec"]["components"][1]["podTemplate"]["metadata"]["annotations"]
    assert holder == {"b": "2"}
    assert (directives.graph if where == "spec" else directives.components["decode"]) == {"pulumi.com/a": "1"}
    assert doc != wire  # the input is not changed in place


def test_a_directive_joins_the_annotations_the_operator_puts_on_an_object():
    rec = _run(_doc({"pulumi.com/timeoutSeconds": "600", "team": "ml"}))
    frontend = next(r for r in rec.by_type(DEPLOYMENT) if "frontend" in r.name)
    assert {"team": "ml", "pulumi.com/timeoutSeconds": "600"}.items() <= _annotations(frontend).items()


def _dcd(template_annotations, component: str | None = None):
    from test_resources_tree import DCD_DOC

    doc = copy.deepcopy(DCD_DOC)
    doc["spec"]["podTemplate"]["metadata"] = {"annotations": dict(template_annotations)}
    if component:
        doc["spec"]["name"] = component  # the component's own name, not the object's
    return doc


def test_a_standalone_components_directive_directs_every_object_it_owns_and_no_pod_template():
    from dynamo_pulumi.resources import DynamoComponentDeployment

    def run(value, component=None):
        rec, _ = run_program(lambda: DynamoComponentDeployment(
            "solo", _dcd({"pulumi.com/timeoutSeconds": value, "keep": "me"}, component)), preview=False)
        return rec

    assert {_annotations(o).get("pulumi.com/timeoutSeconds") for o in _objects(run("5", "worker"))} == {"5"}
    rec = run("600")
    objects = _objects(rec)
    assert {o.type for o in objects} == {DEPLOYMENT, "kubernetes:core/v1:Service"}
    for obj in objects:
        assert _annotations(obj).get("pulumi.com/timeoutSeconds") == "600", obj.name
        for template in _templates(obj.inputs):
            assert "pulumi.com/timeoutSeconds" not in template and template.get("keep") == "me"
    assert _workers(rec) == _workers(run("900"))


def test_a_v1alpha1_standalone_components_directives_leave_its_conversion_payload():
    alpha = {
        "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment",
        "metadata": {"name": "solo", "namespace": "team-a"},
        "spec": {"backendFramework": "vllm", "componentType": "frontend", "replicas": 1,
                 "annotations": {"pulumi.com/timeoutSeconds": "60", "keep": "me"},
                 "extraPodSpec": {"mainContainer": {"image": "nvcr.io/dynamo/frontend:1.0.0"}}},
    }
    annotations = plan_graph(alpha).graph.to_wire()["metadata"]["annotations"]
    raw = annotations["nvidia.com/dcd-spec"]
    payload = json.loads(raw)
    assert payload["spec"]["annotations"] == {"keep": "me"}
    assert raw == json.dumps(payload, separators=(",", ":"))  # the conversion webhook's compact form


def test_the_warnings_say_where_a_directive_belongs():
    own = plan_graph(_doc(own={"pulumi.com/skipAwait": "true", "pulumi.com/patchForce": "true"}))
    assert [w for w in own.warnings if "pulumi.com/" in w] == [
        "pulumi.com/patchForce, pulumi.com/skipAwait on the DynamoGraphDeployment's metadata.annotations: in "
        "render mode no registered object stands for the DynamoGraphDeployment, so nothing takes them; put them "
        "in spec.annotations for every rendered object, or in a component's podTemplate for its objects"]
    spec = plan_graph(_doc({"pulumi.com/b": "1"}, decode_template={"pulumi.com/a": "1"}), mode="operator")
    assert [w for w in spec.warnings if "pulumi.com/" in w] == [
        "pulumi.com/a, pulumi.com/b in the spec: in operator mode Pulumi registers only the DynamoGraphDeployment "
        "itself, so no object takes these directives and they are not sent (the operator would copy them into "
        "every pod template and hash them into the worker names); put them on the DynamoGraphDeployment's "
        "metadata.annotations to direct the custom resource"]
    assert not [w for w in plan_graph(_doc()).warnings if "pulumi.com/" in w]
