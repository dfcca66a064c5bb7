"""CRD CEL rules (api-and-validation.md 4.1), reported as the API server reports them."""

from __future__ import annotations

from typing import Any

import pytest
from validation_graph_support import IMAGE, component, graph

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError
from dynamo_pulumi.validation import validate
from dynamo_pulumi.validation.cel import (
    validate_component_deployment_cel,
    validate_graph_cel,
)


def cel(path: str, node: str, message: str) -> FieldError:
    return FieldError(ErrorType.INVALID, path, message, node)


def test_valid_graph_has_no_cel_errors() -> None:
    assert validate_graph_cel(graph()) == []


# --- spec ----------------------------------------------------------------------------------------


def test_restart_is_rejected_on_create() -> None:
    assert validate_graph_cel(graph(restart={"id": "r1"})) == [
        cel(
            "spec",
            "object",
            "spec.restart must be unset on create; set spec.restart.id after creation to request a restart",
        )
    ]


def test_restart_is_allowed_on_update() -> None:
    assert validate_graph_cel(graph(restart={"id": "r1"}), old=graph()) == []


def test_cel_failure_stops_admission_before_the_webhook() -> None:
    # The restart rule fails; the webhook's "at least one component" is never reached.
    dgd = DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "g"}, "spec": {"components": [], "restart": {"id": "x"}}}
    )
    errors = validate(dgd).errors
    assert [e.path for e in errors] == ["spec"]


# --- components list -----------------------------------------------------------------------------


def test_two_epp_components_are_rejected() -> None:
    errors = validate_graph_cel(graph(component("a", type="epp"), component("b", type="epp")))
    assert cel("spec.components", "array", "at most one component may have type epp") in errors


def test_one_epp_component_is_allowed() -> None:
    errors = validate_graph_cel(graph(component("a", type="epp"), component("b")))
    assert not [e for e in errors if "epp" in e.detail]


def test_component_names_differing_only_in_case_are_rejected() -> None:
    assert validate_graph_cel(graph(component("Worker"), component("worker"))) == [
        cel("spec.components", "array", "component names must be unique case-insensitively")
    ]


def test_identical_component_names_are_a_list_map_duplicate() -> None:
    errors = validate_graph_cel(graph(component("w"), component("w")))
    assert errors[0] == FieldError(ErrorType.DUPLICATE, "spec.components[1]", "", {"name": "w"})
    assert str(errors[0]) == 'spec.components[1]: Duplicate value: {"name":"w"}'


# --- shared component spec -------------------------------------------------------------------------


def test_epp_config_on_a_non_epp_component_is_rejected() -> None:
    errors = validate_graph_cel(graph(component(eppConfig={"config": {}})))
    assert errors == [cel("spec.components[0]", "object", "eppConfig may only be set when type is epp")]


def test_epp_config_on_an_epp_component_is_allowed() -> None:
    assert validate_graph_cel(graph(component(type="epp", eppConfig={"config": {}}))) == []


def test_epp_config_needs_exactly_one_source() -> None:
    both = {"config": {}, "configMapRef": {"name": "c", "key": "k"}}
    for epp in (both, {}):
        errors = validate_graph_cel(graph(component(type="epp", eppConfig=epp)))
        assert errors == [
            cel(
                "spec.components[0].eppConfig",
                "object",
                "exactly one of configMapRef or config must be specified",
            )
        ]


@pytest.mark.parametrize(
    ("replicas", "min_available", "ok"),
    [(None, 1, True), (None, 2, False), (3, 3, True), (2, 3, False), (0, 5, True)],
)
def test_min_available_must_not_exceed_replicas_unless_zero(
    replicas: int | None, min_available: int, ok: bool
) -> None:
    fields: dict[str, Any] = {"minAvailable": min_available}
    if replicas is not None:
        fields["replicas"] = replicas
    errors = validate_graph_cel(graph(component(**fields)))
    expected = (
        []
        if ok
        else [
            cel(
                "spec.components[0]",
                "object",
                "minAvailable must be less than or equal to replicas unless replicas is 0",
            )
        ]
    )
    assert errors == expected


def test_checkpoint_job_with_checkpoint_ref_is_rejected() -> None:
    ckpt = {"checkpoint": {"enabled": True, "checkpointRef": "snap", "job": {}}}
    assert validate_graph_cel(graph(component(experimental=ckpt))) == [
        cel(
            "spec.components[0].experimental.checkpoint",
            "object",
            "checkpoint.job cannot be set when checkpointRef is specified",
        )
    ]


def test_checkpoint_job_with_empty_checkpoint_ref_is_allowed() -> None:
    ckpt = {"checkpoint": {"enabled": True, "checkpointRef": "", "job": {}}}
    assert validate_graph_cel(graph(component(experimental=ckpt))) == []


def test_gms_extra_client_containers_need_intra_pod_mode() -> None:
    gms_path = "spec.components[0].experimental.gpuMemoryService"
    inter = {"gpuMemoryService": {"mode": "InterPod", "extraClientContainers": ["x"]}}
    assert validate_graph_cel(graph(component(experimental=inter))) == [
        cel(gms_path, "object", "extraClientContainers is only supported with mode=IntraPod")
    ]
    defaulted_intra = {"gpuMemoryService": {"extraClientContainers": ["x"]}}
    assert validate_graph_cel(graph(component(experimental=defaulted_intra))) == []


def test_gms_extra_client_pods_are_reserved() -> None:
    gms_path = "spec.components[0].experimental.gpuMemoryService"
    pods = [{"name": "p", "podTemplate": {}}]
    intra = {"gpuMemoryService": {"extraClientPods": pods}}
    assert validate_graph_cel(graph(component(experimental=intra))) == [
        cel(gms_path, "object", "extraClientPods is only supported with mode=InterPod"),
        cel(gms_path, "object", "extraClientPods is reserved for inter-pod GMS and is not implemented yet"),
    ]
    inter = {"gpuMemoryService": {"mode": "InterPod", "extraClientPods": pods}}
    assert validate_graph_cel(graph(component(experimental=inter))) == [
        cel(gms_path, "object", "extraClientPods is reserved for inter-pod GMS and is not implemented yet")
    ]


def test_pod_template_backend_annotation_must_be_mp_or_ray() -> None:
    def with_annotation(value: str) -> dict[str, Any]:
        template = {
            "metadata": {"annotations": {"nvidia.com/vllm-distributed-executor-backend": value}},
            "spec": {"containers": [{"name": "main", "image": IMAGE}]},
        }
        return component(podTemplate=template)

    assert validate_graph_cel(graph(with_annotation("RAY"))) == []
    assert validate_graph_cel(graph(with_annotation("nccl"))) == [
        cel(
            "spec.components[0].podTemplate.metadata.annotations",
            "object",
            "podTemplate backend annotation must be mp or ray, case-insensitively",
        )
    ]


def test_sidecar_and_init_containers_need_an_image_but_main_does_not() -> None:
    template = {
        "spec": {
            "containers": [{"name": "main"}, {"name": "side", "image": ""}],
            "initContainers": [{"name": "init"}],
        }
    }
    assert validate_graph_cel(graph(component(podTemplate=template))) == [
        cel(
            "spec.components[0].podTemplate.spec.containers[1]",
            "object",
            "sidecar containers must specify a non-empty image",
        ),
        cel(
            "spec.components[0].podTemplate.spec.initContainers[0]",
            "object",
            "init containers must specify a non-empty image",
        ),
    ]


def test_lpx_component_cannot_use_a_scaling_adapter() -> None:
    lpx = {"name": "l", "type": "lpx", "lpx": {"buildId": "b"}}
    assert validate_graph_cel(graph(lpx)) == []
    assert validate_graph_cel(graph(lpx | {"scalingAdapter": {}})) == [
        cel("spec.components[0]", "object", "scalingAdapter is not supported when type is lpx")
    ]


# --- kvTransferPolicy ----------------------------------------------------------------------------


KVT = "spec.experimental.kvTransferPolicy"


def kvt(**policy: Any) -> DynamoGraphDeployment:
    return graph(experimental={"kvTransferPolicy": {"domain": "rack", **policy}})


def test_kv_transfer_policy_with_label_key_is_valid() -> None:
    assert validate_graph_cel(kvt(labelKey="topology.kubernetes.io/rack")) == []


def test_kv_transfer_policy_needs_exactly_one_source() -> None:
    message = "exactly one of labelKey or clusterTopologyName is required"
    assert validate_graph_cel(kvt()) == [cel(KVT, "object", message)]
    assert validate_graph_cel(kvt(labelKey="a", clusterTopologyName="t")) == [cel(KVT, "object", message)]


def test_preferred_enforcement_requires_a_weight() -> None:
    assert validate_graph_cel(kvt(labelKey="a", enforcement="preferred")) == [
        cel(KVT, "object", "preferredWeight is required when enforcement is preferred")
    ]
    assert validate_graph_cel(kvt(labelKey="a", enforcement="preferred", preferredWeight=0.5)) == []


def test_weight_only_with_preferred_enforcement() -> None:
    assert validate_graph_cel(kvt(labelKey="a", preferredWeight=0.5)) == [
        cel(KVT, "object", "preferredWeight may only be set when enforcement is preferred")
    ]


def test_label_key_prefix_is_at_most_253_characters() -> None:
    prefix = ".".join(["a" * 60] * 5)  # 304 characters, each label valid
    errors = validate_graph_cel(kvt(labelKey=prefix[:253] + "/k"))
    assert errors == []
    assert validate_graph_cel(kvt(labelKey=prefix[:254].rstrip(".") + "a/k")) == [
        cel(f"{KVT}.labelKey", "string", "labelKey prefix must be 253 characters or less")
    ]


# --- transition rules ----------------------------------------------------------------------------


def test_min_available_is_immutable_once_set() -> None:
    old = graph(component(replicas=2, minAvailable=1))
    assert validate_graph_cel(graph(component(replicas=2, minAvailable=1)), old=old) == []
    assert validate_graph_cel(graph(component(replicas=2, minAvailable=2)), old=old) == [
        cel("spec.components[0]", "object", "minAvailable is immutable after creation")
    ]


def test_legacy_min_available_may_be_removed_to_migrate_to_the_native_form() -> None:
    """Seed: the *effective* minimum is immutable, including when migrating to the native form, so
    CEL cannot reject removing the legacy field (the webhook compares effective values)."""
    old = graph(component(replicas=2, minAvailable=2))
    assert validate_graph_cel(graph(component(replicas=2)), old=old) == []


def test_min_available_may_be_added_later() -> None:
    assert validate_graph_cel(graph(component(minAvailable=1)), old=graph(component())) == []


def test_type_is_immutable_once_set() -> None:
    assert validate_graph_cel(graph(component(type="prefill")), old=graph(component())) == [
        cel("spec.components[0]", "object", "type is immutable after it is set")
    ]
    untyped = component()
    del untyped["type"]
    assert validate_graph_cel(graph(component()), old=graph(untyped)) == []


def test_transition_rules_match_components_by_name_not_position() -> None:
    old = graph(component("a", type="prefill"), component("b", type="decode"))
    new = graph(component("b", type="decode"), component("a", type="prefill"))
    assert validate_graph_cel(new, old=old) == []


# --- DCD -----------------------------------------------------------------------------------------


def dcd(**spec: Any) -> DynamoComponentDeployment:
    base = {"type": "worker", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}
    return DynamoComponentDeployment.model_validate({"metadata": {"name": "w"}, "spec": base | spec})


def test_dcd_rules_are_reported_at_spec() -> None:
    assert validate_component_deployment_cel(dcd()) == []
    assert validate_component_deployment_cel(dcd(eppConfig={"config": {}})) == [
        cel("spec", "object", "eppConfig may only be set when type is epp")
    ]


def test_dcd_type_transition_is_checked() -> None:
    assert validate_component_deployment_cel(dcd(type="decode"), old=dcd()) == [
        cel("spec", "object", "type is immutable after it is set")
    ]


# --- converted v1alpha1 objects ------------------------------------------------------------------


def test_alpha_source_skips_beta_only_cel_rules() -> None:
    dgd = graph(component("Worker"), component("worker"))
    beta = validate(dgd).errors
    assert cel("spec.components", "array", "component names must be unique case-insensitively") in beta
    alpha = validate(dgd, source_api_version="nvidia.com/v1alpha1").errors
    assert all(e.detail != "component names must be unique case-insensitively" for e in alpha)


def test_alpha_source_still_rejects_restart_on_create() -> None:
    errors = validate(graph(restart={"id": "r"}), source_api_version="nvidia.com/v1alpha1").errors
    assert errors == [
        cel(
            "spec",
            "object",
            "spec.restart must be unset on create; set spec.restart.id after creation to request a restart",
        )
    ]


def test_identical_names_are_said_to_be_the_duplicate_above() -> None:
    """Issue 23: the second line of a duplicate name (the case rule's ``Invalid value: "array"``,
    which the API server prints too) names the names and points at the Duplicate value."""
    errors = validate_graph_cel(graph(component("w"), component("w")))
    assert errors[1] == cel("spec.components", "array", "component names must be unique case-insensitively")
    assert errors[1].fix == 'the same names as the Duplicate value above ("w"): rename one of each'
    [case] = validate_graph_cel(graph(component("Worker"), component("worker")))
    assert case.fix == 'these names differ only in case: "Worker", "worker"; rename one of each'
