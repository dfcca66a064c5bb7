"""V-PO (rule 25): provider overrides at root, component and role scope."""

from __future__ import annotations

from typing import Any

from validation_component_support import P, dcd_ctx, dgd_ctx, errors, grove_ctx, update_errors, worker

from dynamo_pulumi.api.v1beta1 import ProviderOverride
from dynamo_pulumi.errors import Path
from dynamo_pulumi.validation.provider_override import validate_root_provider_override

TOPOLOGY = {"topologyConstraint": {"packDomain": "rack"}}


def po(
    target: str | None = "PodCliqueTemplateSpec", value: Any = None, api: str = "grove.io/v1alpha1"
) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": api, "value": TOPOLOGY if value is None else value}
    if target is not None:
        out["target"] = target
    return out


def multinode_worker(**wire: Any) -> dict[str, Any]:
    return worker(multinode={"nodeCount": 2}, **wire)


def test_component_override_with_expected_target_is_valid() -> None:
    assert errors(worker(providerOverride=po()), grove_ctx()) == []


def test_multinode_component_override_targets_scaling_group_config() -> None:
    assert errors(multinode_worker(providerOverride=po("PodCliqueScalingGroupConfig")), grove_ctx()) == []
    assert errors(multinode_worker(providerOverride=po("PodCliqueTemplateSpec")), grove_ctx()) == [
        f'{P}.providerOverride.target: Invalid value: "PodCliqueTemplateSpec": '
        'must match the provider-context target "PodCliqueScalingGroupConfig"'
    ]


def test_override_on_standalone_dcd_is_forbidden() -> None:
    wire = worker(providerOverride=po())
    del wire["name"]
    assert errors(wire, dcd_ctx()) == [
        "spec.providerOverride: Forbidden: provider overrides are supported only for components "
        "embedded in a DynamoGraphDeployment"
    ]


def test_override_before_provider_annotation_is_materialized_is_forbidden() -> None:
    assert errors(worker(providerOverride=po()), dgd_ctx("update")) == [
        f'{P}.providerOverride: Forbidden: requires controller-owned annotation "nvidia.com/workload-provider" '
        "to be materialized; wait for controller adoption and retry"
    ]


def test_override_with_component_provider_is_forbidden() -> None:
    assert errors(worker(providerOverride=po()), dgd_ctx(workload_provider="component")) == [
        f'{P}.providerOverride: Forbidden: requires workload provider "grove", but "component" is selected'
    ]


def test_override_api_version_must_be_grove() -> None:
    assert errors(worker(providerOverride=po(api="apps/v1")), grove_ctx()) == [
        f'{P}.providerOverride.apiVersion: Unsupported value: "apps/v1": supported values: "grove.io/v1alpha1"'
    ]


def test_override_without_target_after_defaulting_is_required() -> None:
    assert errors(worker(providerOverride=po(target=None)), grove_ctx()) == [
        f"{P}.providerOverride.target: Required value: must be defaulted from the provider context"
    ]


def test_override_value_with_dynamo_owned_field_is_forbidden() -> None:
    value = {"topologyConstraint": {"packDomain": "rack"}, "name": "x", "labels": {"a": "b"}}
    assert errors(worker(providerOverride=po(value=value)), grove_ctx()) == [
        f"{P}.providerOverride.value.labels: Forbidden: is Dynamo-owned or not enabled for provider override",
        f"{P}.providerOverride.value.name: Forbidden: is Dynamo-owned or not enabled for provider override",
    ]


def test_override_value_needs_one_delegated_field() -> None:
    assert errors(worker(providerOverride=po(value={})), grove_ctx()) == [
        f"{P}.providerOverride.value: Invalid value: null: topologyConstraint, minAvailable or rollingUpdate is required"
    ]


def test_override_value_of_wrong_grove_type_does_not_match_schema() -> None:
    assert errors(worker(providerOverride=po(value={"topologyConstraint": "rack"})), grove_ctx()) == [
        f"{P}.providerOverride.value: Invalid value: null: does not match the registered PodCliqueTemplateSpec "
        "schema: json: cannot unmarshal string into Go struct field PodCliqueTemplateSpec.topologyConstraint "
        "of type v1alpha1.TopologyConstraint"
    ]


def test_clique_native_minimum_must_be_positive_int32() -> None:
    assert errors(worker(providerOverride=po(value={"spec": {"minAvailable": 2}})), grove_ctx()) == []
    assert errors(worker(providerOverride=po(value={"spec": {"minAvailable": 0}})), grove_ctx()) == [
        f"{P}.providerOverride.value.spec.minAvailable: Invalid value: null: must be a positive 32-bit integer"
    ]


def test_scaling_group_minimum_null_is_required() -> None:
    value = {"minAvailable": None}
    assert errors(
        multinode_worker(providerOverride=po("PodCliqueScalingGroupConfig", value)), grove_ctx()
    ) == [f"{P}.providerOverride.value.minAvailable: Required value: is required"]


def test_rolling_update_accepts_only_max_unavailable() -> None:
    value = {"rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}}
    assert errors(worker(providerOverride=po(value=value)), grove_ctx()) == [
        f"{P}.providerOverride.value.rollingUpdate.maxSurge: Forbidden: is Dynamo-owned or not enabled for provider override"
    ]


def test_rollout_budget_above_replicas_is_invalid() -> None:
    value = {"rollingUpdate": {"maxUnavailable": 3}}
    assert errors(worker(replicas=3, providerOverride=po(value=value)), grove_ctx()) == []
    assert errors(worker(replicas=2, providerOverride=po(value=value)), grove_ctx()) == [
        f"{P}.providerOverride.value.rollingUpdate.maxUnavailable: Invalid value: 3: must not be greater than "
        "replicas (2); lower or remove the budget before scaling down"
    ]


def test_rollout_budget_under_on_delete_strategy_is_forbidden() -> None:
    ctx = grove_ctx(annotations={"nvidia.com/grove-update-strategy": "OnDelete"})
    assert errors(worker(providerOverride=po(value={"rollingUpdate": {"maxUnavailable": 1}})), ctx) == [
        f"{P}.providerOverride.value.rollingUpdate: Forbidden: must not be set when the update strategy is OnDelete"
    ]


def test_coherent_budget_below_min_available_is_invalid() -> None:
    ctx = grove_ctx(annotations={"nvidia.com/grove-update-strategy": "Coherent"})
    wire = worker(
        replicas=4, minAvailable=2, providerOverride=po(value={"rollingUpdate": {"maxUnavailable": 1}})
    )
    assert errors(wire, ctx) == [
        f"{P}.providerOverride.value.rollingUpdate.maxUnavailable: Invalid value: 1: must not be less than "
        "minAvailable (2) under the Coherent update strategy"
    ]


def test_role_override_on_multinode_role_is_valid_and_budget_is_forbidden() -> None:
    roles = [{"name": "leader", "providerOverride": po()}, {"name": "worker"}]
    assert errors(multinode_worker(roles=roles), grove_ctx()) == []
    roles[0]["providerOverride"] = po(value={"rollingUpdate": {"maxUnavailable": 1}})
    assert errors(multinode_worker(roles=roles), grove_ctx()) == [
        f"{P}.roles[0].providerOverride.value.rollingUpdate: Forbidden: member cliques use the owning "
        "component's rollingUpdate budget"
    ]


def test_role_override_on_inter_pod_gms_component_is_forbidden() -> None:
    roles = [{"name": "leader", "providerOverride": po()}, {"name": "worker"}]
    gpu_main = {"name": "main", "image": "img:1.5.0", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    wire = multinode_worker(
        roles=roles,
        podTemplate={"spec": {"containers": [gpu_main]}},
        experimental={"gpuMemoryService": {"mode": "InterPod"}},
    )
    assert errors(wire, grove_ctx()) == [
        f'{P}.roles[0].providerOverride: Forbidden: scope "roles.leader" is not supported for inter-pod GMS components'
    ]


def test_root_override_accepts_only_template_topology() -> None:
    ctx = grove_ctx()
    good = ProviderOverride.model_validate(
        {
            "apiVersion": "grove.io/v1alpha1",
            "target": "PodCliqueSet",
            "value": {"spec": {"template": TOPOLOGY}},
        }
    )
    assert validate_root_provider_override(good, Path("spec", "providerOverride"), ctx) == []
    bad = ProviderOverride.model_validate(
        {
            "apiVersion": "grove.io/v1alpha1",
            "target": "PodCliqueSet",
            "value": {"spec": {"replicas": 2, "template": {}}},
        }
    )
    assert [str(e) for e in validate_root_provider_override(bad, Path("spec", "providerOverride"), ctx)] == [
        "spec.providerOverride.value.spec.replicas: Forbidden: is Dynamo-owned or not enabled for provider override",
        "spec.providerOverride.value.spec.template.topologyConstraint: Invalid value: null: is required",
    ]


def test_override_api_version_and_target_are_immutable_on_update() -> None:
    old = worker(providerOverride=po())
    assert update_errors(old, old) == []
    new = worker(providerOverride=po(target="PodCliqueScalingGroupConfig"))
    assert update_errors(old, new) == [
        f'{P}.providerOverride.target: Invalid value: "PodCliqueScalingGroupConfig": field is immutable'
    ]


def test_adding_an_override_on_update_is_not_an_identity_change() -> None:
    assert update_errors(worker(), worker(providerOverride=po())) == []


# --- Coherent strategy end to end; role-scope minimum --------------------------------------------


def _coherent_graph(component: dict[str, Any]) -> Any:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment

    return DynamoGraphDeployment.model_validate(
        {
            "metadata": {"name": "g", "annotations": {"nvidia.com/grove-update-strategy": "Coherent"}},
            "spec": {"backendFramework": "vllm", "components": [component]},
        }
    )


def test_coherent_budget_rule_is_reachable_through_validate() -> None:
    """Seed: the DGD strategy annotation may select Coherent; then the component rollout budget
    must not be below the effective minimum (legacy field or native override value)."""
    from dynamo_pulumi.platform import Platform
    from dynamo_pulumi.validation import validate

    grove = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})
    budget = {"rollingUpdate": {"maxUnavailable": 1}}
    legacy = worker(replicas=4, minAvailable=2, providerOverride=po(value=budget))
    assert [str(e) for e in validate(_coherent_graph(legacy), grove).errors] == [
        f"{P}.providerOverride.value.rollingUpdate.maxUnavailable: Invalid value: 1: must not be less than "
        "minAvailable (2) under the Coherent update strategy"
    ]
    native = worker(replicas=4, providerOverride=po(value={"spec": {"minAvailable": 3}} | budget))
    assert [str(e) for e in validate(_coherent_graph(native), grove).errors] == [
        f"{P}.providerOverride.value.rollingUpdate.maxUnavailable: Invalid value: 1: must not be less than "
        "minAvailable (3) under the Coherent update strategy"
    ]
    enough = worker(
        replicas=4,
        providerOverride=po(value={"spec": {"minAvailable": 2}, "rollingUpdate": {"maxUnavailable": 2}}),
    )
    assert validate(_coherent_graph(enough), grove).errors == []


def test_role_override_rejects_a_native_minimum() -> None:
    """Seed/rule 25: role overrides allow only topologyConstraint; minAvailable is rejected."""
    roles = [
        {"name": "leader", "providerOverride": po(value={"spec": {"minAvailable": 2}})},
        {"name": "worker"},
    ]
    assert errors(multinode_worker(roles=roles), grove_ctx()) == [
        f"{P}.roles[0].providerOverride.value.spec.minAvailable: Forbidden: is not supported in role provider "
        "overrides; only topologyConstraint is allowed, set the native minimum on the component providerOverride"
    ]


# --- role overrides in the snapshot spelling: multinode.leader|worker.providerOverride -------------

ML = f"{P}.multinode.leader.providerOverride"
MW = f"{P}.multinode.worker.providerOverride"


def legacy_worker(leader: Any = None, worker_po: Any = None, **wire: Any) -> dict[str, Any]:
    """A multinode worker whose role overrides use ``multinode.<role>.providerOverride`` (ERRATA 38)."""
    multinode: dict[str, Any] = {"nodeCount": 2}
    if leader is not None:
        multinode["leader"] = {"providerOverride": leader}
    if worker_po is not None:
        multinode["worker"] = {"providerOverride": worker_po}
    return worker(multinode=multinode, **wire)


def test_multinode_role_override_is_valid_and_budget_is_forbidden() -> None:
    assert errors(legacy_worker(po(), po()), grove_ctx()) == []
    budget = po(value={"rollingUpdate": {"maxUnavailable": 1}})
    assert errors(legacy_worker(worker_po=budget), grove_ctx()) == [
        f"{MW}.value.rollingUpdate: Forbidden: member cliques use the owning component's rollingUpdate budget"
    ]


def test_multinode_role_override_rejects_a_native_minimum() -> None:
    assert errors(legacy_worker(po(value={"spec": {"minAvailable": 2}})), grove_ctx()) == [
        f"{ML}.value.spec.minAvailable: Forbidden: is not supported in role provider overrides; only "
        "topologyConstraint is allowed, set the native minimum on the component providerOverride"
    ]


def test_multinode_role_override_value_with_dynamo_owned_field_is_forbidden() -> None:
    value = {"topologyConstraint": {"packDomain": "rack"}, "replicas": 2}
    assert errors(legacy_worker(po(value=value)), grove_ctx()) == [
        f"{ML}.value.replicas: Forbidden: is Dynamo-owned or not enabled for provider override"
    ]


def test_multinode_role_override_identity_rules() -> None:
    assert errors(legacy_worker(po(api="apps/v1")), grove_ctx()) == [
        f'{ML}.apiVersion: Unsupported value: "apps/v1": supported values: "grove.io/v1alpha1"'
    ]
    assert errors(legacy_worker(po(target=None)), grove_ctx()) == [
        f"{ML}.target: Required value: must be defaulted from the provider context"
    ]
    assert errors(legacy_worker(po("PodCliqueScalingGroupConfig")), grove_ctx()) == [
        f'{ML}.target: Invalid value: "PodCliqueScalingGroupConfig": '
        'must match the provider-context target "PodCliqueTemplateSpec"'
    ]


def test_multinode_role_override_needs_a_materialized_grove_provider() -> None:
    assert errors(legacy_worker(po()), dgd_ctx(workload_provider="component")) == [
        f'{ML}: Forbidden: requires workload provider "grove", but "component" is selected'
    ]
    assert errors(legacy_worker(po()), dgd_ctx("update")) == [
        f'{ML}: Forbidden: requires controller-owned annotation "nvidia.com/workload-provider" '
        "to be materialized; wait for controller adoption and retry"
    ]


def test_multinode_role_override_on_standalone_dcd_is_forbidden() -> None:
    wire = legacy_worker(po())
    del wire["name"]
    assert errors(wire, dcd_ctx()) == [
        "spec.multinode.leader.providerOverride: Forbidden: provider overrides are supported only for "
        "components embedded in a DynamoGraphDeployment"
    ]


def test_multinode_role_override_on_inter_pod_gms_component_is_forbidden() -> None:
    gpu_main = {"name": "main", "image": "img:1.5.0", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    wire = legacy_worker(
        po(),
        podTemplate={"spec": {"containers": [gpu_main]}},
        experimental={"gpuMemoryService": {"mode": "InterPod"}},
    )
    assert errors(wire, grove_ctx()) == [
        f'{ML}: Forbidden: scope "roles.leader" is not supported for inter-pod GMS components'
    ]


def test_multinode_role_override_on_lpx_component_is_forbidden() -> None:
    wire = legacy_worker(po(), type="lpx")
    assert f"{ML}: Forbidden: LPX roles do not support provider overrides" in errors(wire, grove_ctx())


def test_multinode_role_override_api_version_and_target_are_immutable_on_update() -> None:
    old = legacy_worker(po(), po())
    assert update_errors(old, old) == []
    new = legacy_worker(po(api="grove.io/v1beta1"), po(target="PodCliqueScalingGroupConfig"))
    assert update_errors(old, new) == [
        f'{ML}.apiVersion: Invalid value: "grove.io/v1beta1": field is immutable',
        f'{MW}.target: Invalid value: "PodCliqueScalingGroupConfig": field is immutable',
    ]
    assert update_errors(legacy_worker(), legacy_worker(po())) == []
