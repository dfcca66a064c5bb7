"""Rule-level tests of the Grove building blocks: role expansion, minimums, startup ordering,
override composition, GMS wiring helpers and PCS-level fields."""

from __future__ import annotations

from typing import Any

import pytest
from grove_fixtures import component, graph, main_container

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.go_duration import format_go_duration, parse_go_duration
from dynamo_pulumi.model.pcs_naming import grove_component_resource_name, pcs_name_for_dgd, pod_clique_names
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove import render_pod_clique_set
from dynamo_pulumi.render.grove.cliques import clique_min_available
from dynamo_pulumi.render.grove.gms import rank_claim_template_name
from dynamo_pulumi.render.grove.podcliqueset import termination_delay
from dynamo_pulumi.render.grove.provider_overrides import compose_overrides, effective_min_available
from dynamo_pulumi.render.grove.roles import ServiceRole, expand_roles
from dynamo_pulumi.render.grove.settings import grove_settings
from dynamo_pulumi.render.grove.startup_order import startup_dependencies
from dynamo_pulumi.render.pod.gms import apply_intra_pod_gms, standalone_claim_templates

GROVE = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})


def _comp(**fields: Any) -> DynamoComponentDeploymentSharedSpec:
    return DynamoComponentDeploymentSharedSpec.model_validate(component("Svc", **fields))


# --- role expansion ---------------------------------------------------------------------------------

SHAPES = [
    ({}, [("Svc", "main", 1, 0)]),
    ({"replicas": 3}, [("Svc", "main", 3, 0)]),
    ({"multinode": {"nodeCount": 4}}, [("Svc-ldr", "leader", 1, 0), ("Svc-wkr", "worker", 3, 0)]),
    ({"replicas": 3, "experimental": {"grove": {"forceScalingGroup": True}}}, [("Svc", "main", 1, 0)]),
    ({"experimental": {"gpuMemoryService": {"mode": "InterPod"}}},
     [("Svc-gms-0", "gms", 1, 0), ("Svc", "main", 1, 0)]),
    ({"multinode": {"nodeCount": 2},
      "experimental": {"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod"}}},
     [("Svc-gms-0", "gms", 1, 0), ("Svc-ldr", "leader", 2, 0), ("Svc-gms-1", "gms", 1, 1),
      ("Svc-wkr-1", "worker", 2, 1)]),
]


@pytest.mark.parametrize(("fields", "expected"), SHAPES)
def test_role_expansion_follows_the_component_shape(fields: dict[str, Any], expected: list[tuple]) -> None:
    roles = expand_roles("Svc", _comp(**fields))
    assert [(r.name, r.role, r.replicas, r.rank) for r in roles] == expected


@pytest.mark.parametrize(("fields", "_expected"), SHAPES)
def test_role_expansion_agrees_with_pcs_naming(fields: dict[str, Any], _expected: list[tuple]) -> None:
    comp = _comp(**fields)
    assert [r.clique_name for r in expand_roles(comp.name, comp)] == pod_clique_names(comp)


# --- minAvailable -------------------------------------------------------------------------------------


def test_multinode_clique_min_available_equals_its_replicas() -> None:
    comp = _comp(multinode={"nodeCount": 5}, minAvailable=1)
    assert clique_min_available(comp, ServiceRole("Svc-wkr", "worker", 4)) == 4


def test_inter_pod_failover_multinode_engines_keep_min_available_one() -> None:
    comp = _comp(multinode={"nodeCount": 2},
                 experimental={"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod"}})
    assert clique_min_available(comp, ServiceRole("Svc-ldr", "leader", 2)) == 1


def test_scaling_group_member_ignores_component_minimum() -> None:
    comp = _comp(replicas=4, minAvailable=3, experimental={"grove": {"forceScalingGroup": True}})
    assert clique_min_available(comp, ServiceRole("Svc", "main", 1)) == 1


def test_native_minimum_from_provider_override_is_used_when_legacy_field_is_unset() -> None:
    pclq = _comp(providerOverride={"apiVersion": "grove.io/v1alpha1", "value": {"spec": {"minAvailable": 2}}})
    pcsg = _comp(multinode={"nodeCount": 2},
                 providerOverride={"apiVersion": "grove.io/v1alpha1", "value": {"minAvailable": 3}})
    assert (effective_min_available(pclq), effective_min_available(pcsg)) == (2, 3)
    assert effective_min_available(_comp(minAvailable=4)) == 4
    assert effective_min_available(_comp()) == 1


# --- startup ordering ---------------------------------------------------------------------------------


def test_trtllm_gms_leader_waits_for_its_gms_and_all_workers() -> None:
    comp = _comp(multinode={"nodeCount": 2}, experimental={"gpuMemoryService": {"mode": "InterPod"}})
    deps = startup_dependencies(expand_roles("c", comp), "trtllm", 2, True)
    assert deps == {"c-ldr": ["c-gms-0", "c-wkr-1"], "c-wkr-1": ["c-gms-1"]}


@pytest.mark.parametrize("backend", ["vllm", "sglang"])
def test_vllm_and_sglang_multinode_have_no_startup_dependencies(backend: str) -> None:
    comp = _comp(multinode={"nodeCount": 3})
    assert startup_dependencies(expand_roles("c", comp), backend, 3, False) == {}


def test_explicit_startup_type_flips_for_the_whole_pcs() -> None:
    trt = component("trt", multinode={"nodeCount": 2}, container=main_container(command=["python3", "-m", "dynamo.trtllm"]))
    pcs = render_pod_clique_set(graph([component("frontend", "frontend"), trt], backendFramework="trtllm"),
                                GROVE, "n", worker_hash="h")
    assert pcs["spec"]["template"]["cliqueStartupType"] == "CliqueStartupTypeExplicit"


# --- overrides ----------------------------------------------------------------------------------------


def test_override_with_missing_destination_is_a_render_error() -> None:
    dgd = graph([component("worker", providerOverride={
        "apiVersion": "grove.io/v1alpha1", "target": "PodCliqueScalingGroupConfig",
        "value": {"topologyConstraint": {"pack": {"required": "rack"}}}})])
    pcs = {"spec": {"template": {"cliques": [{"name": "worker"}]}}}
    with pytest.raises(RenderError, match='no podCliqueScalingGroups entry named "worker"'):
        compose_overrides(dgd, pcs)


def test_multinode_role_override_with_missing_clique_names_its_own_path() -> None:
    override = {"apiVersion": "grove.io/v1alpha1", "target": "PodCliqueTemplateSpec",
                "value": {"topologyConstraint": {"pack": {"required": "host"}}}}
    dgd = graph([component("worker", multinode={"nodeCount": 2, "worker": {"providerOverride": override}})])
    pcs = {"spec": {"template": {"cliques": [{"name": "worker-ldr"}]}}}
    with pytest.raises(RenderError, match='no cliques entry named "worker-wkr') as raised:
        compose_overrides(dgd, pcs)
    assert "spec.components[0].multinode.worker.providerOverride" in str(raised.value)


def test_rolling_update_override_is_copied_onto_the_clique() -> None:
    dgd = graph([component("Worker", providerOverride={
        "apiVersion": "grove.io/v1alpha1", "value": {"rollingUpdate": {"maxUnavailable": 2}}})])
    clique = render_pod_clique_set(dgd, GROVE, "n", worker_hash="h")["spec"]["template"]["cliques"][0]
    assert clique["rollingUpdate"] == {"maxUnavailable": 2}


# --- GMS helpers --------------------------------------------------------------------------------------


def test_rank_claim_template_names_are_normalized_without_graph_prefix() -> None:
    assert rank_claim_template_name("my-svc", 0) == "my-svc-gpu-rank-0"
    assert rank_claim_template_name("Llama.3", 2) == "llama-3-gpu-rank-2"


def test_standalone_claim_template_is_skipped_without_gpus_and_uses_device_class() -> None:
    dgd = graph([
        component("nogpu", experimental={"gpuMemoryService": {}}),
        component("Big", experimental={"gpuMemoryService": {"deviceClassName": "gpu.nvidia.com/h100"}},
                  container=main_container(gpus=8)),
        component("plain", container=main_container(gpus=8)),
    ])
    (rct,) = standalone_claim_templates(dgd, "n")
    assert rct["metadata"]["name"] == "g-big-gpu"
    assert rct["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "gpu.nvidia.com/h100"


def test_intra_pod_gms_wires_extra_client_containers() -> None:
    comp = _comp(experimental={"gpuMemoryService": {"extraClientContainers": ["helper"]}})
    pod: dict[str, Any] = {"containers": [
        {"name": "main", "image": "img", "resources": {"limits": {"nvidia.com/gpu": "2", "cpu": "1"}}},
        {"name": "helper", "image": "h", "resources": {"limits": {"nvidia.com/gpu": "1"}}},
    ]}
    apply_intra_pod_gms(pod, comp, "g", "Svc")
    helper = pod["containers"][1]
    assert helper["resources"] == {"claims": [{"name": "intrapod-shared-gpu"}]}
    assert {"name": "GMS_SOCKET_DIR", "value": "/gms-intrapod-control"} in helper["env"]
    assert pod["containers"][0]["resources"]["limits"] == {"cpu": "1"}
    assert pod["volumes"] == [{"name": "gms-intrapod-control", "emptyDir": {}}]
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_intra_pod_gms_with_unknown_extra_client_is_a_render_error() -> None:
    comp = _comp(experimental={"gpuMemoryService": {"extraClientContainers": ["ghost"]}})
    with pytest.raises(RenderError, match='"ghost"'):
        apply_intra_pod_gms({"containers": [{"name": "main"}]}, comp, "g", "Svc")


# --- PCS fields ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [("15m", "15m0s"), ("1h", "1h0m0s"), ("90s", "1m30s"),
                                                ("1h30m", "1h30m0s"), ("45s", "45s")])
def test_termination_delay_is_serialised_like_go_durations(text: str, expected: str) -> None:
    assert format_go_duration(parse_go_duration(text)) == expected


def test_invalid_duration_is_a_render_error() -> None:
    platform = Platform.model_validate({"orchestrators": {"grove": {"terminationDelay": "fifteen minutes"}}})
    with pytest.raises(RenderError, match="invalid duration") as err:
        termination_delay(grove_settings(platform))
    assert err.value.path == "orchestrators.grove.terminationDelay"


def test_priority_class_and_spec_metadata_reach_the_pcs() -> None:
    dgd = graph([component("worker")], priorityClassName="high", labels={"team": "a"},
                spec_annotations={"owner": "x"})
    pcs = render_pod_clique_set(dgd, GROVE, "n", worker_hash="h")
    assert pcs["spec"]["template"]["priorityClassName"] == "high"
    assert pcs["metadata"]["labels"] == {"team": "a", "nvidia.com/dynamo-graph-deployment-name": "g"}
    assert pcs["metadata"]["annotations"] == {"owner": "x"}
    assert pcs["metadata"]["namespace"] == "n"


def test_rendering_is_deterministic_and_leaves_the_graph_untouched() -> None:
    dgd = graph([component("worker", multinode={"nodeCount": 2}, container=main_container(gpus=4))])
    before = dgd.model_dump()
    first = render_pod_clique_set(dgd, GROVE, "n", worker_hash="h")
    assert render_pod_clique_set(dgd, GROVE, "n", worker_hash="h") == first
    assert dgd.model_dump() == before


def test_grove_component_resource_name_uses_the_pcs_name_and_lowercase_component() -> None:
    dgd = graph([component("Decode", multinode={"nodeCount": 2})], name="g")
    assert grove_component_resource_name(pcs_name_for_dgd(dgd), "Decode") == "g-0-decode"
    long = graph([component("decode-worker-component", multinode={"nodeCount": 2})],
                 name="a-graph-name-that-is-long-enough")
    name = grove_component_resource_name(pcs_name_for_dgd(long), "decode-worker-component")
    assert name.endswith("-0-decode-worker-component") and not name.startswith("a-graph-name-that-is-long-enough-")


# --- kvTransferPolicy with a ClusterTopologyBinding ----------------------------------------------------


def _kv_graph(domain: str = "rack") -> Any:
    policy = {"clusterTopologyName": "grove-topology", "domain": domain}
    return graph([component("frontend", "frontend"), component("worker")],
                 experimental={"kvTransferPolicy": policy})


def test_cluster_topology_levels_become_downward_api_items_on_worker_cliques() -> None:
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}},
                                        "cluster": {"clusterTopologies": {"grove-topology": ["zone", "rack"]}}})
    cliques = render_pod_clique_set(_kv_graph(), platform, "n", worker_hash="h")["spec"]["template"]["cliques"]
    worker = cliques[1]
    volume = next(v for v in worker["spec"]["podSpec"]["volumes"] if v["name"] == "topology-labels")
    assert volume["downwardAPI"]["items"] == [
        {"path": "zone", "fieldRef": {"fieldPath": "metadata.labels['nvidia.com/dynamo-topology.zone']"}},
        {"path": "rack", "fieldRef": {"fieldPath": "metadata.labels['nvidia.com/dynamo-topology.rack']"}},
    ]
    assert worker["annotations"]["nvidia.com/topology-cluster-topology-name"] == "grove-topology"
    assert "nvidia.com/topology-cluster-topology-name" not in cliques[0].get("annotations", {})


def test_unknown_cluster_topology_binding_is_a_render_error() -> None:
    with pytest.raises(RenderError, match="ClusterTopologyBinding resource that was not found"):
        render_pod_clique_set(_kv_graph(), GROVE, "n", worker_hash="h")


def test_policy_domain_outside_the_binding_levels_is_a_render_error() -> None:
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}},
                                        "cluster": {"clusterTopologies": {"grove-topology": ["zone"]}}})
    with pytest.raises(RenderError, match='domain "rack" does not exist'):
        render_pod_clique_set(_kv_graph(), platform, "n", worker_hash="h")


# --- opaque leaves ------------------------------------------------------------------------------------


class Unresolved:
    """Stands in for a ``pulumi.Output``: an object the renderer must pass through untouched."""


def test_opaque_leaf_values_pass_through_grove_cliques_as_the_same_objects() -> None:
    image, selector, value = Unresolved(), Unresolved(), Unresolved()
    container = main_container(gpus=4, command=["python3", "-m", "dynamo.vllm"])
    container["image"] = image
    container["env"] = [{"name": "TOKEN", "value": value}]
    worker = component("worker", multinode={"nodeCount": 2}, container=container,
                       experimental={"gpuMemoryService": {"mode": "InterPod"}})
    worker["podTemplate"]["spec"]["nodeSelector"] = selector
    pcs = render_pod_clique_set(graph([worker], backendFramework="vllm"), GROVE, "n", worker_hash="h")
    for clique in pcs["spec"]["template"]["cliques"]:
        pod = clique["spec"]["podSpec"]
        assert pod["containers"][0]["image"] is image
        assert pod["nodeSelector"] is selector
        assert next(e for e in pod["containers"][0]["env"] if e["name"] == "TOKEN")["value"] is value
        assert pod["initContainers"][-1]["image"] is image


def test_completed_restart_annotates_every_clique_with_the_restart_id() -> None:
    dgd = graph([component("frontend", "frontend"), component("worker", multinode={"nodeCount": 2})],
                restart={"id": "r-2"})
    cliques = render_pod_clique_set(dgd, GROVE, "n", worker_hash="h")["spec"]["template"]["cliques"]
    assert {c["annotations"]["nvidia.com/restartAt"] for c in cliques} == {"r-2"}


@pytest.mark.parametrize(("text", "expected"), [("1.5s", "1.5s"), ("2m30.25s", "2m30.25s"), (" 30m ", "30m0s")])
def test_termination_delay_keeps_what_go_keeps(text: str, expected: str) -> None:
    """The operator reads the setting as a metav1.Duration: a fraction survives Duration.String."""
    platform = Platform.model_validate({"orchestrators": {"grove": {"terminationDelay": text}}})
    assert termination_delay(grove_settings(platform)) == expected


@pytest.mark.parametrize(("text", "words"), [("-5s", "must not be negative"), ("", 'time: invalid duration ""')])
def test_termination_delay_go_or_the_operator_refuses_is_a_render_error(text: str, words: str) -> None:
    """A negative delay fails the operator's configuration validation (validation.go); an empty one
    fails Go's parse."""
    platform = Platform.model_validate({"orchestrators": {"grove": {"terminationDelay": text}}})
    with pytest.raises(RenderError, match=words) as err:
        termination_delay(grove_settings(platform))
    assert err.value.path == "orchestrators.grove.terminationDelay"
