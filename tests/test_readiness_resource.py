"""Under Pulumi mocks: one readiness resource per graph, after its children, with the inputs
the provider needs (what to watch, a revision of it, the deadline, a secret kubeconfig)."""

from __future__ import annotations

import base64
import copy

import pulumi
import pytest
from resources_fixtures import GRAPH, HASH, NS, graph_doc, rendered, small_plan
from test_resources_tree import unknown_output

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.mocks import is_unknown, run_program
from dynamo_pulumi.planning.plan import plan_from_rendered
from dynamo_pulumi.resources import DynamoGraphDeployment, ReadinessOptions

READINESS_TYPE = "pulumi-python:dynamic/dynamo:GraphReadiness"
KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters: []\n"
SECRET_SIG = "4dabf18193072939515e22adb298388d"


def _run(readiness: ReadinessOptions | None = None, plan=None, preview: bool = False):
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, plan or small_plan(), readiness=readiness), preview=preview)
    return rec, rec.by_type(READINESS_TYPE)


def test_each_graph_registers_one_readiness_resource_under_the_graph():
    rec, found = _run()
    assert len(found) == 1
    assert found[0].parent_urn == rec.named(GRAPH).urn
    assert found[0].name == f"{NS}/{GRAPH}"


def test_the_readiness_resource_depends_on_every_kubernetes_child():
    rec, (readiness,) = _run()
    children = {r.urn for r in rec.resources if r.custom and r.type != READINESS_TYPE}
    assert children and children <= set(readiness.dependencies)


def test_it_watches_the_rendered_workloads_by_their_hash_named_object_names():
    _, (readiness,) = _run()
    targets = {(t["kind"], t["name"], t["component"]) for t in readiness.inputs["targets"]}
    assert targets == {("Deployment", f"{GRAPH}-frontend", "Frontend"), ("Deployment", f"{GRAPH}-decode-{HASH}", "decode")}
    assert readiness.inputs["mode"] == "render" and readiness.inputs["kind"] == "DynamoGraphDeployment"
    assert readiness.inputs["pod_selector"] == f"nvidia.com/dynamo-graph-deployment-name={GRAPH}"
    assert readiness.inputs["expansion"] == [] and readiness.inputs["predicted"] == []


def test_default_deadline_is_sixty_minutes_and_waiting_is_on():
    _, (readiness,) = _run()
    assert readiness.inputs["timeout_seconds"] == 3600 and readiness.inputs["wait"] is True


def test_timeout_and_wait_come_from_the_options():
    _, (readiness,) = _run(ReadinessOptions(wait=False, timeout="1h30m"))
    assert readiness.inputs["timeout_seconds"] == 5400 and readiness.inputs["wait"] is False


def test_an_explicit_kubeconfig_is_a_secret_input():
    _, (readiness,) = _run(ReadinessOptions(kubeconfig=KUBECONFIG, context="prod"))
    assert readiness.inputs["kubeconfig"][SECRET_SIG] and readiness.inputs["kubeconfig"]["value"] == KUBECONFIG
    assert readiness.inputs["context"] == "prod"


def test_stack_config_kubeconfig_is_used_when_none_is_given():
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, small_plan()), preview=False,
                         config={"kubernetes:kubeconfig": KUBECONFIG, "kubernetes:context": "ctx"})
    (readiness,) = rec.by_type(READINESS_TYPE)
    assert readiness.inputs["kubeconfig"]["value"] == KUBECONFIG and readiness.inputs["context"] == "ctx"


def test_the_provider_is_pickled_by_reference_not_by_value():
    _, (readiness,) = _run()
    provider = readiness.inputs["__provider"]
    blob = base64.b64decode(provider["value"] if isinstance(provider, dict) else provider)
    assert b"dynamo_pulumi.cluster.provider" in blob and b"ReadinessProvider" in blob and len(blob) < 200


def test_a_worker_change_changes_targets_and_revision_but_not_identity():
    _, (before,) = _run()
    objects, components = rendered()
    changed = copy.deepcopy(objects)
    for obj in changed:
        if obj["kind"] == "Deployment" and "decode" in obj["metadata"]["name"]:
            obj["spec"]["template"]["spec"]["containers"][0]["image"] = "nvcr.io/dynamo/vllm:2.0.0"
    plan = plan_from_rendered(small_plan().graph, changed, components, NS)
    _, (after,) = _run(plan=plan)
    assert after.inputs["revision"] != before.inputs["revision"]
    assert (after.name, after.inputs["namespace"], after.inputs["graph"]) == (before.name, NS, GRAPH)


def _versioned(doc):
    for component in doc["spec"]["components"]:
        component["runtimeVersionOverride"] = "1.0.0"
    return doc


def test_revision_is_unknown_in_preview_when_a_workload_holds_an_unknown_output():
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, _versioned(graph_doc(image=unknown_output()))))
    (readiness,) = rec.by_type(READINESS_TYPE)
    assert is_unknown(readiness.inputs["revision"])


def test_revision_follows_the_resolved_value_of_an_output_image():
    def revision_for(image: str) -> str:
        doc = _versioned(graph_doc(image=pulumi.Output.from_input(image)))
        rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, doc), preview=False)
        return rec.by_type(READINESS_TYPE)[0].inputs["revision"]

    assert revision_for("repo/vllm:1") != revision_for("repo/vllm:2")


def test_a_bad_timeout_is_refused_before_anything_is_registered():
    with pytest.raises(InputError, match="timeout must be a duration"):
        ReadinessOptions(timeout="soon")
    with pytest.raises(InputError, match="positive"):
        ReadinessOptions(timeout=0)


def test_a_standalone_component_registers_its_own_readiness_resource():
    from test_resources_tree import DCD_DOC

    from dynamo_pulumi.resources import DynamoComponentDeployment

    rec, _ = run_program(lambda: DynamoComponentDeployment("solo", DCD_DOC), preview=False)
    (readiness,) = rec.by_type(READINESS_TYPE)
    assert readiness.inputs["kind"] == "DynamoComponentDeployment"
    assert [t["kind"] for t in readiness.inputs["targets"]] == ["Deployment"]
    assert readiness.inputs["pod_selector"] == "nvidia.com/dynamo-component=solo"
    deployment = rec.by_type("kubernetes:apps/v1:Deployment")[0]
    assert deployment.urn in readiness.dependencies


def test_components_of_a_graph_register_no_readiness_of_their_own():
    _, found = _run()
    assert len(found) == 1


def test_the_root_program_takes_wait_and_timeout_from_stack_config():
    from dynamo_pulumi.program.graph_program import main

    rec, _ = run_program(main, preview=False, config={"dynamo-pulumi:timeout": "2h", "dynamo-pulumi:wait": "false"})
    (readiness,) = rec.by_type(READINESS_TYPE)
    assert readiness.inputs["timeout_seconds"] == 7200 and readiness.inputs["wait"] is False


def test_operator_mode_registration_watches_the_custom_resource_and_carries_the_prediction():
    import pulumi_kubernetes as k8s

    from dynamo_pulumi.resources.readiness import ReadinessPlan, register_operator_readiness
    from dynamo_pulumi.resources.timeouts import Deadlines

    plan = small_plan()
    predicted = [p.obj for p in plan.all_objects()]
    expansion = [{"apiVersion": o["apiVersion"], "kind": o["kind"], "name": o["metadata"]["name"], "digest": "d"}
                 for o in predicted]

    class Graph(pulumi.ComponentResource):
        def __init__(self) -> None:
            super().__init__("dynamo:index:DynamoGraphDeployment", GRAPH)
            cr = k8s.apiextensions.CustomResource(
                "cr", api_version="nvidia.com/v1beta1", kind="DynamoGraphDeployment",
                metadata={"name": GRAPH, "namespace": NS}, opts=pulumi.ResourceOptions(parent=self))
            targets = [{"api_version": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
                        "namespace": NS, "name": GRAPH, "component": "", "group": GRAPH}]
            readiness = ReadinessPlan(ReadinessOptions(timeout="20m"), deadlines=Deadlines(1200, 1200, 1200))
            self.readiness = register_operator_readiness(self, plan, readiness, cr, targets, "spec-digest",
                                                         expansion, predicted)

    rec, _ = run_program(Graph, preview=False)
    (readiness,) = rec.by_type(READINESS_TYPE)
    assert readiness.inputs["mode"] == "operator" and readiness.inputs["revision"] == "spec-digest"
    assert readiness.inputs["targets"] == [{"api_version": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
                                            "namespace": NS, "name": GRAPH, "component": "", "group": GRAPH}]
    assert readiness.inputs["expansion"] == expansion and len(readiness.inputs["predicted"]) == len(predicted)
    assert rec.named("cr").urn in readiness.dependencies and readiness.inputs["timeout_seconds"] == 1200


def test_a_connection_never_prints_its_kubeconfig():
    from dynamo_pulumi.cluster.connection import Connection

    text = repr(Connection(kubeconfig=KUBECONFIG, context="prod"))
    assert "clusters" not in text and "<given>" in text and "prod" in text
