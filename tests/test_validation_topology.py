"""Rules 22 and 23: typed topology constraints and the KV-transfer topology policy."""

from __future__ import annotations

from typing import Any

from validation_graph_support import component, graph

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.validation import validate
from dynamo_pulumi.validation.topology import dns1123_subdomain_errors

LEVELS = ["region", "zone", "block", "rack", "host"]
GROVE = Platform.model_validate(
    {"orchestrators": {"grove": {"enabled": True}}, "cluster": {"clusterTopologies": {"topo": LEVELS}}}
)
NO_GROVE = Platform.model_validate({"cluster": {"clusterTopologies": {"topo": LEVELS}}})
TC = "spec.topologyConstraint"
KVT = "spec.experimental.kvTransferPolicy"
OVERRIDE_MSG = (
    "cannot be combined with spec.topologyConstraint or components[].topologyConstraint; use either the typed "
    "topology API or provider-native Grove topology overrides"
)


def errors(dgd: DynamoGraphDeployment, platform: Platform = GROVE) -> list[FieldError]:
    return validate(dgd, platform).errors


def topo(pack: str | None = "rack", name: str = "topo") -> dict[str, Any]:
    tc: dict[str, Any] = {"clusterTopologyName": name}
    if pack is not None:
        tc["packDomain"] = pack
    return tc


# --- rule 22 -------------------------------------------------------------------------------------


def test_spec_constraint_with_a_known_domain_is_valid() -> None:
    assert errors(graph(topologyConstraint=topo("rack"))) == []


def test_component_constraint_narrower_than_spec_is_valid() -> None:
    dgd = graph(component(topologyConstraint={"packDomain": "host"}), topologyConstraint=topo("rack"))
    assert errors(dgd) == []


def test_component_constraint_requires_a_spec_constraint() -> None:
    dgd = graph(component(topologyConstraint={"packDomain": "rack"}))
    assert errors(dgd) == [
        FieldError(ErrorType.REQUIRED, TC, "is required when any component topology constraint is set")
    ]


def test_spec_pack_domain_is_required_without_component_constraints() -> None:
    assert errors(graph(topologyConstraint=topo(None))) == [
        FieldError(
            ErrorType.REQUIRED, f"{TC}.packDomain", "is required when no component topologyConstraint is set"
        )
    ]


def test_spec_pack_domain_may_be_omitted_when_components_pack() -> None:
    dgd = graph(component(topologyConstraint={"packDomain": "rack"}), topologyConstraint=topo(None))
    assert errors(dgd) == []


def test_unknown_binding_is_reported_as_not_found() -> None:
    assert errors(graph(topologyConstraint=topo("rack", name="other"))) == [
        FieldError(
            ErrorType.INVALID,
            f"{TC}.clusterTopologyName",
            "references a ClusterTopologyBinding resource that was not found",
            "other",
        )
    ]


def test_unknown_spec_domain_lists_the_sorted_available_domains() -> None:
    assert errors(graph(topologyConstraint=topo("gpu"))) == [
        FieldError(
            ErrorType.INVALID,
            f"{TC}.packDomain",
            'does not exist in ClusterTopologyBinding "topo"; available domains: [block host rack region zone]',
            "gpu",
        )
    ]


def test_unknown_component_domain_is_invalid() -> None:
    dgd = graph(component(topologyConstraint={"packDomain": "gpu"}), topologyConstraint=topo("rack"))
    assert errors(dgd) == [
        FieldError(
            ErrorType.INVALID,
            "spec.components[0].topologyConstraint.packDomain",
            'does not exist in ClusterTopology "topo"; available domains: [block host rack region zone]',
            "gpu",
        )
    ]


def test_component_domain_broader_than_spec_is_invalid() -> None:
    dgd = graph(component(topologyConstraint={"packDomain": "zone"}), topologyConstraint=topo("rack"))
    assert errors(dgd) == [
        FieldError(
            ErrorType.INVALID,
            "spec.components[0].topologyConstraint.packDomain",
            'must be equal to or narrower than the deployment-level domain "rack"',
            "zone",
        )
    ]


def test_bindings_are_read_only_on_create_generation() -> None:
    assert errors(graph(topologyConstraint=topo("gpu"), generation=2)) == []


def test_bindings_are_not_read_off_the_grove_pathway() -> None:
    assert errors(graph(topologyConstraint=topo("gpu")), NO_GROVE) == []


def test_typed_topology_and_a_topology_override_are_exclusive_on_grove() -> None:
    po = {"apiVersion": "grove.io/v1alpha1", "value": {"topologyConstraint": {"packDomain": "rack"}}}
    dgd = graph(component(providerOverride=po), topologyConstraint=topo("rack"))
    assert FieldError(
        ErrorType.FORBIDDEN, "spec.components[0].providerOverride.value", OVERRIDE_MSG
    ) in errors(dgd)


def test_root_override_writing_template_topology_conflicts_with_typed_topology() -> None:
    po = {"apiVersion": "grove.io/v1alpha1", "value": {"spec": {"template": {"topologyConstraint": {}}}}}
    dgd = graph(topologyConstraint=topo("rack"), providerOverride=po)
    assert FieldError(ErrorType.FORBIDDEN, "spec.providerOverride.value", OVERRIDE_MSG) in errors(dgd)


def test_role_overrides_writing_topology_conflict_with_typed_topology_in_either_spelling() -> None:
    po = {"apiVersion": "grove.io/v1alpha1", "value": {"topologyConstraint": {"packDomain": "rack"}}}
    roles = component(multinode={"nodeCount": 2}, roles=[{"name": "leader", "providerOverride": po}, {"name": "worker"}])
    legacy = component("prefill", multinode={"nodeCount": 2, "worker": {"providerOverride": po}})
    found = errors(graph(roles, legacy, topologyConstraint=topo("rack")))
    assert [str(e) for e in found if e.detail == OVERRIDE_MSG] == [
        f"spec.components[0].roles[0].providerOverride.value: Forbidden: {OVERRIDE_MSG}",
        f"spec.components[1].multinode.worker.providerOverride.value: Forbidden: {OVERRIDE_MSG}",
    ]


def test_override_without_topology_composes_with_typed_topology() -> None:
    po = {"apiVersion": "grove.io/v1alpha1", "value": {"minAvailable": 1}}
    dgd = graph(component(providerOverride=po), topologyConstraint=topo("rack"))
    assert [e for e in errors(dgd) if e.detail == OVERRIDE_MSG] == []


# --- rule 23 -------------------------------------------------------------------------------------


def kvt(name: str, domain: str = "rack") -> dict[str, Any]:
    return {"kvTransferPolicy": {"clusterTopologyName": name, "domain": domain}}


def test_kv_policy_with_a_known_binding_and_domain_is_valid() -> None:
    assert errors(graph(experimental=kvt("topo"))) == []


def test_kv_policy_label_key_is_not_checked_against_bindings() -> None:
    policy = {"kvTransferPolicy": {"labelKey": "topology.kubernetes.io/zone", "domain": "zone"}}
    assert errors(graph(experimental=policy), NO_GROVE) == []


def test_kv_policy_name_must_be_a_dns_subdomain() -> None:
    [error] = errors(graph(experimental=kvt("Topo_1")))
    assert error.path == f"{KVT}.clusterTopologyName" and error.type is ErrorType.INVALID
    assert error.detail.startswith("a lowercase RFC 1123 subdomain must consist of")
    assert dns1123_subdomain_errors("a.b-c") == []


def test_kv_policy_requires_the_grove_pathway() -> None:
    assert errors(graph(experimental=kvt("topo")), NO_GROVE) == [
        FieldError(
            ErrorType.FORBIDDEN,
            f"{KVT}.clusterTopologyName",
            'requires the Grove pathway, but workload provider "component" is selected',
        )
    ]


def test_kv_policy_binding_must_exist_and_hold_the_domain() -> None:
    assert errors(graph(experimental=kvt("nope"))) == [
        FieldError(
            ErrorType.INVALID,
            f"{KVT}.clusterTopologyName",
            "references a ClusterTopologyBinding resource that was not found",
            "nope",
        )
    ]
    assert errors(graph(experimental=kvt("topo", "gpu"))) == [
        FieldError(
            ErrorType.INVALID,
            f"{KVT}.domain",
            'does not exist in ClusterTopologyBinding "topo"; available domains: [block host rack region zone]',
            "gpu",
        )
    ]
