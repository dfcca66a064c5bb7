"""V-LPX-SHARED (rule 26): LPX components, their roles and role templates."""

from __future__ import annotations

from typing import Any

from validation_component_support import (
    P,
    dcd_ctx,
    dgd_ctx,
    errors,
    grove_ctx,
    template,
    update_errors,
    worker,
)

from dynamo_pulumi.platform import Platform

LPX_PLATFORM = Platform.model_validate({"lpx": {"enabled": True}, "orchestrators": {"grove": {"enabled": True}}})


def ctx():  # type: ignore[no-untyped-def]
    return dgd_ctx(platform=LPX_PLATFORM)


def agent_template(**spec: Any) -> dict[str, Any]:
    return template({"name": "main", "image": "lpx-agent:1.0.0"}, **spec)


def lpx(**wire: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "engine",
        "type": "lpx",
        "lpx": {"buildId": "builds/llama"},
        "roles": [{"name": "agent", "podTemplate": agent_template()}],
    }
    base.update(wire)
    return {k: v for k, v in base.items() if v is not None}


def test_lpx_component_with_agent_template_is_valid() -> None:
    assert errors(lpx(), ctx()) == []


def test_lpx_component_requires_operator_lpx_setting() -> None:
    assert errors(lpx(), dgd_ctx()) == [f"{P}.type: Forbidden: LPX components require lpx.enabled=true"]


def test_lpx_component_template_belongs_to_roles() -> None:
    assert errors(lpx(podTemplate=template({"name": "main", "image": "x:1.0.0"})), ctx()) == [
        f"{P}.podTemplate: Forbidden: LPX Pod templates belong to roles"
    ]


def test_lpx_component_rejects_topology_constraint() -> None:
    assert errors(lpx(topologyConstraint={"packDomain": "rack"}), ctx()) == [
        f"{P}.topologyConstraint: Forbidden: LPX does not support Grove topologyConstraint"
    ]


def test_lpx_blank_build_id_is_required() -> None:
    assert errors(lpx(lpx={"buildId": "   "}), ctx()) == [
        f"{P}.lpx.buildId: Required value: LPX component requires a buildId"
    ]


def test_lpx_component_topology_override_is_forbidden() -> None:
    override = {"apiVersion": "grove.io/v1alpha1", "target": "PodCliqueScalingGroupConfig", "value": {"topologyConstraint": {}}}
    assert errors(lpx(providerOverride=override), grove_ctx(platform=LPX_PLATFORM)) == [
        f"{P}.providerOverride: Forbidden: LPX component does not support Grove topology overrides"
    ]


def test_lpx_component_availability_override_targets_scaling_group() -> None:
    override = {"apiVersion": "grove.io/v1alpha1", "target": "PodCliqueScalingGroupConfig", "value": {"minAvailable": 2}}
    assert errors(lpx(providerOverride=override), grove_ctx(platform=LPX_PLATFORM)) == []
    override["target"] = "PodCliqueTemplateSpec"
    assert errors(lpx(providerOverride=override), grove_ctx(platform=LPX_PLATFORM)) == [
        f'{P}.providerOverride.target: Invalid value: "PodCliqueTemplateSpec": must match the provider-context '
        'target "PodCliqueScalingGroupConfig"'
    ]


def test_local_partitions_ids_required_with_ids_mode_and_forbidden_with_all() -> None:
    base = {"buildId": "b"}
    assert errors(lpx(lpx=base | {"experimental": {"localPartitions": {"mode": "All"}}}), ctx()) == []
    assert errors(lpx(lpx=base | {"experimental": {"localPartitions": {"mode": "IDs", "ids": [0, 2]}}}), ctx()) == []
    assert errors(lpx(lpx=base | {"experimental": {"localPartitions": {"mode": "IDs"}}}), ctx()) == [
        f"{P}.lpx.experimental.localPartitions.ids: Required value: is required when mode is IDs"
    ]
    assert errors(lpx(lpx=base | {"experimental": {"localPartitions": {"mode": "All", "ids": [1]}}}), ctx()) == [
        f"{P}.lpx.experimental.localPartitions.ids: Forbidden: must not be set when mode is All"
    ]


def test_lpx_agent_role_requires_template_and_rejects_provider_override() -> None:
    roles = [{"name": "agent", "providerOverride": {"apiVersion": "grove.io/v1alpha1", "value": {}}}]
    assert errors(lpx(roles=roles), ctx()) == [
        f"{P}.roles[0].podTemplate: Required value: the LPX agent role requires a podTemplate",
        f"{P}.roles[0].providerOverride: Forbidden: LPX roles do not support provider overrides",
    ]


def test_lpx_requires_the_agent_role() -> None:
    roles = [{"name": "conductor", "podTemplate": agent_template()}]
    assert errors(lpx(roles=roles), ctx()) == [f'{P}.roles: Required value: must contain the "agent" role']


def test_lpx_role_template_needs_main_and_images() -> None:
    role_template = template({"name": "helper"}, init=[{"name": "setup", "image": " "}])
    assert errors(lpx(roles=[{"name": "conductor", "podTemplate": role_template}, {"name": "agent", "podTemplate": agent_template()}]), ctx()) == [
        f'{P}.roles[0].podTemplate.spec.containers: Required value: LPX conductor component requires a "main" runtime container',
        f"{P}.roles[0].podTemplate.spec.containers[0].image: Required value: must specify a non-empty image",
        f"{P}.roles[0].podTemplate.spec.initContainers[0].image: Required value: must specify a non-empty image",
    ]


def test_lpx_agent_container_name_is_reserved() -> None:
    role_template = template({"name": "main", "image": "a:1.0.0"}, {"name": "agent", "image": "b:1"})
    assert errors(lpx(roles=[{"name": "agent", "podTemplate": role_template}]), ctx()) == [
        f'{P}.roles[0].podTemplate.spec.containers[1].name: Forbidden: LPX reserves "agent" for the materialized role container'
    ]


def test_lpx_role_placement_is_lpx_owned() -> None:
    role_template = agent_template(schedulerName="volcano", hostname="h", nodeSelector={"a": "b"})
    assert errors(lpx(roles=[{"name": "agent", "podTemplate": role_template}]), ctx()) == [
        f"{P}.roles[0].podTemplate.spec.schedulerName: Forbidden: LPX owns role scheduler selection",
        f"{P}.roles[0].podTemplate.spec.hostname: Forbidden: LPX owns role addressing and placement",
        f"{P}.roles[0].podTemplate.spec.nodeSelector: Forbidden: LPX exclusively owns Agent node selection",
    ]


def test_lpx_agent_accepts_only_required_node_affinity() -> None:
    required = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}
    assert errors(lpx(roles=[{"name": "agent", "podTemplate": agent_template(affinity=required)}]), ctx()) == []
    # A valid WeightedPodAffinityTerm (podAffinityTerm and its topologyKey are required by the schema).
    term = {"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}
    preferred = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}}
    assert errors(lpx(roles=[{"name": "agent", "podTemplate": agent_template(affinity=preferred)}]), ctx()) == [
        f"{P}.roles[0].podTemplate.spec.affinity: Forbidden: node-local LPX supports only required nodeAffinity"
    ]


def test_switching_between_lpx_and_non_lpx_is_forbidden_on_update() -> None:
    """Rule 26: switching LPX <-> non-LPX on update is Forbidden (both directions)."""
    ctx_ = dgd_ctx("update", platform=LPX_PLATFORM)
    assert update_errors(lpx(), lpx(), ctx_) == []
    message = f"{P}.type: Forbidden: cannot change node topology between LPX and non-LPX after creation"
    assert update_errors(worker(), lpx(), ctx_) == [message]
    assert message in update_errors(lpx(), worker(), ctx_)


def test_lpx_conductor_role_needs_its_own_template() -> None:
    roles = [{"name": "agent", "podTemplate": agent_template()}, {"name": "conductor"}]
    assert errors(lpx(roles=roles), ctx()) == [
        f"{P}.roles[1].podTemplate: Required value: LPX conductor requires an explicit podTemplate"
    ]


def test_lpx_multinode_is_not_grandfathered() -> None:
    assert errors(lpx(multinode={"nodeCount": 2}), ctx()) == [
        f"{P}.multinode: Forbidden: multinode is supported only for worker, prefill, or decode components"
    ]
    stored = lpx(multinode={"nodeCount": 2})
    assert update_errors(stored, stored, dgd_ctx("update", platform=LPX_PLATFORM)) == [
        f"{P}.multinode: Forbidden: multinode is supported only for worker, prefill, or decode components"
    ]


def test_lpx_setting_off_freezes_existing_lpx_components() -> None:
    off = dgd_ctx("update")
    assert errors(lpx(), off) == []
    assert update_errors(lpx(), lpx(), off) == []
    assert update_errors(lpx(), lpx(replicas=3), off) == [f"{P}.type: Forbidden: LPX components require lpx.enabled=true"]


def test_standalone_dcd_cannot_be_lpx() -> None:
    wire = lpx()
    wire.pop("name")
    assert errors(wire, dcd_ctx(platform=LPX_PLATFORM)) == [
        "spec.type: Forbidden: LPX components are supported only for components embedded in a DynamoGraphDeployment"
    ]


REGISTRY_PLATFORM = Platform.model_validate(
    {"lpx": {"enabled": True, "modelRegistryURL": "s3://models"}, "orchestrators": {"grove": {"enabled": True}}}
)


def test_lpx_build_id_relative_to_configured_registry_is_valid() -> None:
    assert errors(lpx(), dgd_ctx(platform=REGISTRY_PLATFORM)) == []


def test_lpx_absolute_build_id_with_configured_registry_is_invalid() -> None:
    assert errors(lpx(lpx={"buildId": "s3://other/builds/llama"}), dgd_ctx(platform=REGISTRY_PLATFORM)) == [
        f'{P}.lpx.buildId: Invalid value: "s3://other/builds/llama": must be relative to the configured LPX '
        "model registry 's3://models'; absolute paths and URLs require an empty lpx.modelRegistryURL"
    ]


def test_lpx_absolute_build_id_without_registry_is_valid() -> None:
    assert errors(lpx(lpx={"buildId": "/models/builds/llama"}), ctx()) == []
