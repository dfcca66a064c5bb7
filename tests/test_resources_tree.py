"""The resource tree the ComponentResources register, checked under Pulumi mocks
(hand-written rendered objects, so these rules hold whatever the renderer does)."""

from __future__ import annotations

import asyncio
import copy

import pulumi
import pulumi_kubernetes as k8s
import pytest
from resources_fixtures import GRAPH, HASH, NS, graph_doc, rendered, small_plan

from dynamo_pulumi.errors import GraphValidationError, InputError
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.mocks import Recording, is_unknown, run_program
from dynamo_pulumi.planning.plan import plan_from_rendered
from dynamo_pulumi.resources import DCD_TYPE, DGD_TYPE, DynamoComponentDeployment, DynamoGraphDeployment

#: The readiness resource is no Kubernetes object (tested in test_readiness_resource.py).
READINESS_TYPE = "pulumi-python:dynamic/dynamo:GraphReadiness"


def _run(plan=None, opts=None, preview=True):
    return run_program(lambda: DynamoGraphDeployment(GRAPH, plan or small_plan(), opts=opts), preview=preview)


def test_graph_registers_components_and_objects_under_the_right_parents():
    rec, _ = _run()
    dgd = rec.named(GRAPH)
    assert dgd.type == DGD_TYPE and not dgd.custom
    dcds = rec.by_type(DCD_TYPE)
    assert sorted(d.name for d in dcds) == [f"{NS}/{GRAPH}-decode", f"{NS}/{GRAPH}-frontend"]
    assert all(d.parent_urn == dgd.urn for d in dcds)
    graph_children = {(r.type, r.name) for r in rec.children_of(dgd.urn) if r.custom and r.type != READINESS_TYPE}
    assert graph_children == {
        ("kubernetes:core/v1:ServiceAccount", f"{NS}/{GRAPH}-k8s-service-discovery"),
        ("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", f"{NS}/{GRAPH}-k8s-service-discovery-binding"),
    }
    decode = next(d for d in dcds if d.name.endswith("decode"))
    assert {(r.type, r.object_name) for r in rec.children_of(decode.urn)} == {
        ("kubernetes:apps/v1:Deployment", f"{GRAPH}-decode-{HASH}"),
        ("kubernetes:core/v1:Service", f"{GRAPH}-decode-{HASH}"),
    }


def test_pulumi_names_drop_the_worker_hash_but_object_names_keep_it():
    rec, _ = _run()
    deployment = next(r for r in rec.by_type("kubernetes:apps/v1:Deployment") if "decode" in r.name)
    assert deployment.name == f"{NS}/{GRAPH}-decode"
    assert deployment.object_name == f"{GRAPH}-decode-{HASH}"


def test_objects_are_never_auto_named():
    rec, _ = _run()
    for reg in rec.resources:
        if reg.custom and reg.type != READINESS_TYPE:
            assert reg.object_name, f"{reg.type} {reg.name} has no metadata.name"
            assert reg.inputs["metadata"]["namespace"] == NS


def test_provider_in_opts_reaches_every_child():
    def program():
        provider = k8s.Provider("cluster")
        return DynamoGraphDeployment(GRAPH, small_plan(), opts=pulumi.ResourceOptions(provider=provider))

    rec, _ = run_program(program)
    objects = [r for r in rec.resources if r.custom and r.type.startswith("kubernetes:") and "providers" not in r.type]
    assert objects
    assert all("pulumi:providers:kubernetes::cluster" in r.provider for r in objects)


def test_providers_list_in_opts_reaches_every_child():
    def program():
        provider = k8s.Provider("cluster")
        return DynamoGraphDeployment(GRAPH, small_plan(), opts=pulumi.ResourceOptions(providers=[provider]))

    rec, _ = run_program(program)
    objects = [r for r in rec.resources if r.type.startswith("kubernetes:") and "providers" not in r.type]
    assert all("::cluster::" in r.provider for r in objects)


def test_scaling_adapter_makes_pulumi_ignore_the_workload_replicas():
    rec, _ = _run(small_plan(scaling_adapter=True))
    decode = next(r for r in rec.by_type("kubernetes:apps/v1:Deployment") if "decode" in r.name)
    frontend = next(r for r in rec.by_type("kubernetes:apps/v1:Deployment") if "frontend" in r.name)
    assert decode.ignore_changes == ("spec.replicas",)
    assert frontend.ignore_changes == ()


def test_without_scaling_adapter_replicas_are_managed():
    rec, _ = _run(small_plan(scaling_adapter=False))
    # only what the API server assigns (a Service's clusterIP, see test_resources_adoption) is ignored
    assert all(r.ignore_changes == (("spec.clusterIP",) if r.type == "kubernetes:core/v1:Service" else ())
               for r in rec.resources)


def _grove_plan(scaling_adapter: bool):
    objects, _ = rendered()
    objects = [o for o in objects if o["kind"] not in ("Deployment",)]
    pcs = {
        "apiVersion": "grove.io/v1alpha1",
        "kind": "PodCliqueSet",
        "metadata": {"name": GRAPH, "namespace": NS},
        "spec": {
            "replicas": 1,
            "template": {
                "cliques": [
                    {"name": "frontend", "labels": {"nvidia.com/dynamo-component": "Frontend"},
                     "spec": {"replicas": 1, "minAvailable": 1, "roleName": "frontend", "podSpec": {"containers": []}}},
                    {"name": "decode", "labels": {"nvidia.com/dynamo-component": "decode"},
                     "spec": {"replicas": 2, "minAvailable": 1, "roleName": "decode",
                              "podSpec": {"containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}}},
                ]
            },
        },
    }
    graph = load_graph(graph_doc(scaling_adapter))
    return plan_from_rendered(graph, [pcs, *objects], [], NS)


def test_podcliqueset_is_a_custom_resource_with_replace_rules_and_delete_first():
    rec, _ = _run(_grove_plan(scaling_adapter=False))
    pcs = rec.by_type("kubernetes:grove.io/v1alpha1:PodCliqueSet")[0]
    assert pcs.parent_name == GRAPH
    assert "spec.template.cliques[*].spec.minAvailable" in pcs.replace_on_changes
    assert "spec.template.cliques[*].spec.startsAfter" in pcs.replace_on_changes
    assert "spec.template.cliques[*].name" in pcs.replace_on_changes
    assert pcs.delete_before_replace is True
    assert pcs.inputs["apiVersion"] == "grove.io/v1alpha1" and pcs.inputs["kind"] == "PodCliqueSet"


def test_scaling_adapter_on_grove_ignores_only_that_components_clique_replicas():
    rec, _ = _run(_grove_plan(scaling_adapter=True))
    pcs = rec.by_type("kubernetes:grove.io/v1alpha1:PodCliqueSet")[0]
    assert pcs.ignore_changes == ("spec.template.cliques[1].spec.replicas",)


def test_resource_claim_template_is_replaced_whole_and_deleted_first():
    objects, dcds = rendered()
    rct = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "gpus", "namespace": NS, "labels": {"nvidia.com/dynamo-component": "decode"}},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}},
    }
    plan = plan_from_rendered(load_graph(graph_doc()), [*objects, rct], dcds, NS)
    rec, _ = _run(plan)
    reg = rec.by_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")[0]
    assert reg.replace_on_changes == ("spec",) and reg.delete_before_replace is True


def test_leaderworkerset_is_a_custom_resource_under_its_component():
    objects, dcds = rendered()
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": f"{GRAPH}-decode-{HASH}-0", "namespace": NS,
                     "labels": {"nvidia.com/dynamo-component": "decode"}},
        "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 2, "workerTemplate": {"spec": {"containers": []}}}},
    }
    objects = [o for o in objects if not (o["kind"] == "Deployment" and "decode" in o["metadata"]["name"])]
    plan = plan_from_rendered(load_graph(graph_doc(scaling_adapter=True)), [*objects, lws], dcds, NS)
    rec, _ = _run(plan)
    reg = rec.by_type("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet")[0]
    assert reg.name == f"{NS}/{GRAPH}-decode-0"
    assert reg.parent_name == f"{NS}/{GRAPH}-decode"
    assert reg.ignore_changes == ("spec.replicas",)
    assert reg.replace_on_changes == ("spec.leaderWorkerTemplate.size",)


def unknown_output() -> pulumi.Output:
    """An Output whose value is not known (what preview gives for a not-yet-created resource)."""
    loop = asyncio.get_event_loop()
    value, known = loop.create_future(), loop.create_future()
    value.set_result(None)
    known.set_result(False)
    return pulumi.Output(set(), value, known)


def _versioned(doc):
    """An image that is an Output has no readable tag: admission then wants runtimeVersionOverride."""
    for component in doc["spec"]["components"]:
        component["runtimeVersionOverride"] = "1.0.0"
    return doc


def _decode_container(rec):
    decode = next(r for r in rec.by_type("kubernetes:apps/v1:Deployment") if "decode" in r.name)
    return next(c for c in decode.inputs["spec"]["template"]["spec"]["containers"] if c["name"] == "main")


def test_unknown_output_image_is_unknown_in_preview():
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, _versioned(graph_doc(image=unknown_output()))))
    assert is_unknown(_decode_container(rec)["image"])


def test_known_output_image_reaches_the_workload():
    image = "123.dkr.ecr.us-west-2.amazonaws.com/vllm:1.0.0"
    rec, _ = run_program(
        lambda: DynamoGraphDeployment(GRAPH, _versioned(graph_doc(image=pulumi.Output.from_input(image)))),
        preview=False,
    )
    assert _decode_container(rec)["image"] == image


def test_output_spliced_into_a_string_becomes_a_concatenation():
    def program():
        doc = _versioned(graph_doc())
        main = doc["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]
        main["args"] = ["--served-model-name", pulumi.Output.from_input("qwen")]
        main["env"] = [{"name": "HF_HOME", "value": pulumi.Output.concat("/models/", pulumi.Output.from_input("x"))}]
        return DynamoGraphDeployment(GRAPH, doc)

    rec, _ = run_program(program, preview=False)
    main = _decode_container(rec)
    assert "qwen" in main["args"]
    assert {"name": "HF_HOME", "value": "/models/x"} in main["env"]


def test_runs_do_not_leak_registrations_into_each_other():
    first, _ = _run()
    second, _ = _run()
    assert len(first.resources) == len(second.resources)
    assert [r.urn for r in first.resources if r.type == DGD_TYPE] == [r.urn for r in second.resources if r.type == DGD_TYPE]


@pytest.mark.parametrize(
    "break_graph",
    [
        lambda doc: doc["spec"]["components"].append(copy.deepcopy(doc["spec"]["components"][1])),
        lambda doc: doc["spec"]["components"][1].update(replicas=-1),
    ],
    ids=["duplicate-component", "negative-replicas"],
)
def test_invalid_graph_registers_nothing(break_graph):
    doc = graph_doc()
    break_graph(doc)
    recording = Recording()
    with pytest.raises(GraphValidationError) as excinfo:
        run_program(lambda: DynamoGraphDeployment(GRAPH, doc), recording=recording)
    assert "spec.components" in str(excinfo.value)
    assert recording.resources == []


def test_valid_graph_dict_registers_through_the_same_path():
    recording = Recording()
    run_program(lambda: DynamoGraphDeployment(GRAPH, graph_doc()), recording=recording)
    assert recording.by_type(DGD_TYPE)


def test_depends_on_of_the_graph_reaches_every_object():
    def program():
        namespace = k8s.core.v1.Namespace("ns", metadata={"name": NS})
        return DynamoGraphDeployment(GRAPH, small_plan(), opts=pulumi.ResourceOptions(depends_on=[namespace]))

    rec, _ = run_program(program)
    ns_urn = rec.named("ns").urn
    objects = [r for r in rec.resources if r.custom and r.name != "ns"]
    assert objects and all(ns_urn in r.dependencies for r in objects)



def test_workloads_are_created_after_the_service_account_and_rbac_their_pods_use():
    """Found with the real engine (tests/e2e/test_engine_failure.py): a worker Deployment created
    before its ServiceAccount leaves a FailedCreate warning and delays the pods."""
    rec, _ = _run()
    support = {r.urn for r in rec.resources if r.type in (
        "kubernetes:core/v1:ServiceAccount", "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding")}
    assert len(support) == 2
    for workload in rec.by_type("kubernetes:apps/v1:Deployment"):
        assert support <= set(workload.dependencies), workload.name
    graph_level = [r for r in rec.resources if r.urn in support]
    assert all(not (set(r.dependencies) & support) for r in graph_level)  # no cycle: they wait for nothing

DCD_DOC = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoComponentDeployment",
    "metadata": {"name": "solo", "namespace": NS},
    "spec": {
        "backendFramework": "vllm",
        "type": "worker",
        "replicas": 1,
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/dynamo/vllm:1.0.0",
                                                  "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}},
    },
}


def test_standalone_component_deployment_registers_its_workload_under_itself():
    rec, dcd = run_program(lambda: DynamoComponentDeployment("solo", DCD_DOC))
    (component,) = rec.by_type(DCD_TYPE)
    assert component.name == "solo" and component.parent_type == "pulumi:pulumi:Stack"
    kinds = {r.type for r in rec.children_of(component.urn)}
    assert "kubernetes:apps/v1:Deployment" in kinds
    assert dcd.summary.gpus == 1


def test_standalone_component_deployment_refuses_a_graph():
    recording = Recording()
    with pytest.raises(InputError, match="use DynamoGraphDeployment"):
        run_program(lambda: DynamoComponentDeployment("x", graph_doc()), recording=recording)
    assert recording.resources == []


def test_output_where_the_operator_reads_the_value_is_refused_with_its_path():
    def program():
        doc = _versioned(graph_doc())
        doc["spec"]["components"][1]["modelRef"] = {"name": pulumi.Output.from_input("Qwen/Qwen3-0.6B")}
        return DynamoGraphDeployment(GRAPH, doc)

    recording = Recording()
    with pytest.raises(InputError) as excinfo:
        run_program(program, recording=recording)
    message = str(excinfo.value)
    if "cannot be read at preview time" not in message:
        pytest.fail(f"unexpected error: {message}")
    assert "spec.components[1].modelRef.name" in message
    assert recording.resources == []


def test_a_run_leaves_no_pulumi_state_behind():
    from pulumi.runtime import settings

    _run()
    assert settings.get_root_resource() is None
    assert settings.get_monitor() is None
    assert pulumi.runtime.get_config("dynamo-pulumi:graph") is None
