"""The defaulting webhooks (api-and-validation.md 7.2, 7.3) as pure functions."""

from __future__ import annotations

import copy
from typing import Any

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.defaulting.webhooks import (
    default_component_deployment,
    default_graph,
    effective_min_available,
    expected_target,
)
from dynamo_pulumi.platform import Platform

GROVE = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "operatorVersion": "1.6.0"})
NO_GROVE = Platform.model_validate({"operatorVersion": "1.6.0"})
PROVIDER = "nvidia.com/workload-provider"
ORIGIN = "nvidia.com/dynamo-operator-origin-version"
GROVE_PO = {"apiVersion": "grove.io/v1alpha1", "value": {}}


def graph(
    *components: dict[str, Any], annotations: dict[str, str] | None = None, **spec: Any
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "g"}
    if annotations is not None:
        metadata["annotations"] = annotations
    return {"metadata": metadata, "spec": {"components": list(components), **spec}}


def load(wire: dict[str, Any]) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate(wire)


def test_default_graph_never_mutates_its_input() -> None:
    wire = graph(
        {"name": "w", "multinode": {"nodeCount": 3}, "roles": [{"name": "leader"}, {"name": "worker"}]}
    )
    original = copy.deepcopy(wire)
    dgd = load(wire)
    before = dgd.to_wire()
    default_graph(dgd, GROVE)
    assert dgd.to_wire() == before
    assert wire == original


def test_nil_component_replicas_default_to_one_and_explicit_zero_is_kept() -> None:
    dgd = default_graph(load(graph({"name": "a"}, {"name": "b", "replicas": 0})), NO_GROVE)
    assert [c.replicas for c in dgd.components] == [1, 0]


def test_replicas_default_on_update_too() -> None:
    dgd = default_graph(load(graph({"name": "a"})), NO_GROVE, "update")
    assert dgd.components[0].replicas == 1


def test_multinode_role_replicas_default_to_leader_one_and_worker_node_count_minus_one() -> None:
    comp = {"name": "w", "multinode": {"nodeCount": 4}, "roles": [{"name": "leader"}, {"name": "worker"}]}
    roles = default_graph(load(graph(comp)), NO_GROVE).components[0].roles or []
    assert [(r.name, r.replicas) for r in roles] == [("leader", 1), ("worker", 3)]


def test_role_replicas_are_not_defaulted_without_multinode() -> None:
    comp = {"name": "w", "roles": [{"name": "leader"}]}
    roles = default_graph(load(graph(comp)), NO_GROVE).components[0].roles or []
    assert roles[0].replicas is None


def test_explicit_role_replicas_are_kept() -> None:
    comp = {"name": "w", "multinode": {"nodeCount": 4}, "roles": [{"name": "worker", "replicas": 2}]}
    roles = default_graph(load(graph(comp)), NO_GROVE).components[0].roles or []
    assert roles[0].replicas == 2


def test_create_stamps_grove_provider_when_grove_is_enabled() -> None:
    dgd = default_graph(load(graph({"name": "a"})), GROVE)
    assert dgd.annotations[PROVIDER] == "grove"


def test_create_stamps_component_provider_when_grove_is_disabled() -> None:
    dgd = default_graph(load(graph({"name": "a"})), NO_GROVE)
    assert dgd.annotations[PROVIDER] == "component"


def test_enable_grove_false_opts_out_case_insensitively() -> None:
    dgd = default_graph(load(graph({"name": "a"}, annotations={"nvidia.com/enable-grove": "FALSE"})), GROVE)
    assert dgd.annotations[PROVIDER] == "component"


def test_create_overwrites_a_user_supplied_provider() -> None:
    dgd = default_graph(load(graph({"name": "a"}, annotations={PROVIDER: "component"})), GROVE)
    assert dgd.annotations[PROVIDER] == "grove"


def test_update_leaves_provider_unselected_when_absent() -> None:
    dgd = default_graph(load(graph({"name": "a"})), GROVE, "update")
    assert PROVIDER not in dgd.annotations
    assert dgd.components[0].min_available is None


def test_update_reads_existing_provider() -> None:
    dgd = default_graph(load(graph({"name": "a"}, annotations={PROVIDER: "grove"})), NO_GROVE, "update")
    assert dgd.annotations[PROVIDER] == "grove"
    # A DGD without any legacy minimum gets none stamped (seed: resolved to 1 at render time).
    assert dgd.components[0].min_available is None


def test_new_grove_dgd_gets_no_min_available_and_no_provider_override() -> None:
    """Seed: new Grove DGDs without a legacy minimum resolve the omitted native minimum to 1 during
    rendering, without creating a provider override."""
    dgd = default_graph(load(graph({"name": "a"})), GROVE)
    assert dgd.annotations[PROVIDER] == "grove"
    assert dgd.components[0].min_available is None
    assert dgd.components[0].provider_override is None
    assert effective_min_available(dgd.components[0]) == 1


def test_legacy_grove_dgd_retains_the_default_of_one() -> None:
    """Seed: existing legacy deployments retain the field and its default of 1 (only on Grove, and
    not where the component already carries a native minimum)."""
    native = {
        "apiVersion": "grove.io/v1alpha1",
        "target": "PodCliqueTemplateSpec",
        "value": {"spec": {"minAvailable": 2}},
    }
    wire = graph(
        {"name": "a", "minAvailable": 2, "replicas": 2},
        {"name": "b"},
        {"name": "c", "replicas": 2, "providerOverride": native},
    )
    dgd = default_graph(load(wire), GROVE)
    assert [c.min_available for c in dgd.components] == [2, 1, None]
    assert [effective_min_available(c) for c in dgd.components] == [2, 1, 2]
    assert [c.min_available for c in default_graph(load(wire), NO_GROVE).components] == [2, None, None]


def test_effective_min_available_reads_both_native_shapes() -> None:
    comp = load(
        graph(
            {
                "name": "a",
                "multinode": {"nodeCount": 2},
                "providerOverride": {"apiVersion": "grove.io/v1alpha1", "value": {"minAvailable": 3}},
            }
        )
    ).components[0]
    assert effective_min_available(comp) == 3
    wrong_api = comp.provider_override.model_copy(update={"api_version": "apps/v1"})  # type: ignore[union-attr]
    assert effective_min_available(comp.model_copy(update={"provider_override": wrong_api})) == 1


def test_min_available_is_not_rewritten_when_scaled_to_zero() -> None:
    dgd = default_graph(load(graph({"name": "a", "replicas": 0, "minAvailable": 2})), GROVE)
    assert dgd.components[0].min_available == 2


def test_origin_version_is_stamped_on_create_if_absent() -> None:
    assert default_graph(load(graph({"name": "a"})), GROVE).annotations[ORIGIN] == "1.6.0"
    kept = default_graph(load(graph({"name": "a"}, annotations={ORIGIN: "1.0.0"})), GROVE)
    assert kept.annotations[ORIGIN] == "1.0.0"


def test_origin_version_is_not_stamped_on_update() -> None:
    assert ORIGIN not in default_graph(load(graph({"name": "a"})), GROVE, "update").annotations


def test_root_provider_override_target_defaults_to_pod_clique_set_on_grove() -> None:
    dgd = default_graph(load(graph({"name": "a"}, providerOverride=GROVE_PO)), GROVE)
    assert dgd.spec.provider_override is not None
    assert dgd.spec.provider_override.target == "PodCliqueSet"


def test_provider_override_target_is_left_empty_off_grove() -> None:
    dgd = default_graph(
        load(graph({"name": "a", "providerOverride": GROVE_PO}, providerOverride=GROVE_PO)), NO_GROVE
    )
    assert dgd.spec.provider_override is not None and dgd.spec.provider_override.target is None
    assert dgd.components[0].provider_override is not None
    assert dgd.components[0].provider_override.target is None


def test_provider_override_target_is_left_empty_for_unknown_api_version() -> None:
    po = {"apiVersion": "grove.io/v2", "value": {}}
    dgd = default_graph(load(graph({"name": "a", "providerOverride": po})), GROVE)
    assert dgd.components[0].provider_override is not None
    assert dgd.components[0].provider_override.target is None


def test_component_target_follows_the_component_shape() -> None:
    single = {"name": "a", "providerOverride": GROVE_PO}
    multi = {"name": "b", "multinode": {"nodeCount": 2}, "providerOverride": GROVE_PO}
    dgd = default_graph(load(graph(single, multi)), GROVE)
    targets = [c.provider_override.target for c in dgd.components if c.provider_override]
    assert targets == ["PodCliqueTemplateSpec", "PodCliqueScalingGroupConfig"]


def test_explicit_target_is_preserved() -> None:
    po = {**GROVE_PO, "target": "PodCliqueScalingGroupConfig"}
    dgd = default_graph(load(graph({"name": "a", "providerOverride": po})), GROVE)
    assert dgd.components[0].provider_override is not None
    assert dgd.components[0].provider_override.target == "PodCliqueScalingGroupConfig"


def test_role_targets_default_for_multinode_leader_and_worker() -> None:
    comp = {
        "name": "w",
        "multinode": {"nodeCount": 2},
        "roles": [
            {"name": "leader", "providerOverride": GROVE_PO},
            {"name": "worker", "providerOverride": GROVE_PO},
        ],
    }
    roles = default_graph(load(graph(comp)), GROVE).components[0].roles or []
    assert [r.provider_override.target for r in roles if r.provider_override] == ["PodCliqueTemplateSpec"] * 2


def test_multinode_role_targets_default_for_leader_and_worker() -> None:
    """The snapshot spelling ``multinode.<role>.providerOverride`` is defaulted like roles[]."""
    comp = {
        "name": "w",
        "multinode": {
            "nodeCount": 2,
            "leader": {"providerOverride": GROVE_PO},
            "worker": {"providerOverride": {**GROVE_PO, "target": "PodCliqueSet"}},
        },
    }
    wire = graph(comp)
    before = copy.deepcopy(wire)
    multinode = default_graph(load(wire), GROVE).components[0].multinode
    assert multinode is not None and multinode.leader is not None and multinode.worker is not None
    assert multinode.leader.provider_override is not None
    assert multinode.leader.provider_override.target == "PodCliqueTemplateSpec"
    assert multinode.worker.provider_override is not None
    assert multinode.worker.provider_override.target == "PodCliqueSet"  # an explicit target is kept
    assert wire == before


def test_multinode_role_target_is_not_defaulted_for_inter_pod_gms_or_off_grove() -> None:
    comp = {
        "name": "w",
        "multinode": {"nodeCount": 2, "leader": {"providerOverride": GROVE_PO}},
        "experimental": {"gpuMemoryService": {"mode": "InterPod"}},
    }
    for dgd in (default_graph(load(graph(comp)), GROVE), default_graph(load(graph(comp)), NO_GROVE)):
        leader = dgd.components[0].multinode.leader  # type: ignore[union-attr]
        assert leader is not None and leader.provider_override is not None
        assert leader.provider_override.target is None


def test_role_target_is_not_defaulted_for_inter_pod_gms() -> None:
    comp = {
        "name": "w",
        "multinode": {"nodeCount": 2},
        "experimental": {"gpuMemoryService": {"mode": "InterPod"}},
        "roles": [{"name": "leader", "providerOverride": GROVE_PO}],
    }
    roles = default_graph(load(graph(comp)), GROVE).components[0].roles or []
    assert roles[0].provider_override is not None and roles[0].provider_override.target is None


def test_expected_target_explains_why_a_role_scope_is_unresolvable() -> None:
    comp = load(graph({"name": "a"})).components[0]
    assert expected_target("grove", "grove.io/v1alpha1", "roles.leader", comp) == (
        None,
        'scope "roles.leader" requires a multinode component',
    )


def test_defaulted_wire_keeps_untouched_pod_template_objects() -> None:
    template = {"spec": {"containers": [{"name": "main", "image": "img:1.4.0"}]}}
    dgd = load(graph({"name": "a", "podTemplate": template}))
    assert default_graph(dgd, GROVE).components[0].pod_template is dgd.components[0].pod_template


def test_dcd_name_defaults_from_metadata_name_on_create() -> None:
    dcd = DynamoComponentDeployment.model_validate(
        {"metadata": {"name": "my-worker"}, "spec": {"type": "worker"}}
    )
    defaulted = default_component_deployment(dcd)
    assert defaulted.spec.name == "my-worker"
    assert dcd.spec.name is None


def test_dcd_explicit_name_is_kept() -> None:
    dcd = DynamoComponentDeployment.model_validate({"metadata": {"name": "x"}, "spec": {"name": "Worker"}})
    assert default_component_deployment(dcd).spec.name == "Worker"


def test_defaulting_is_idempotent_and_deterministic() -> None:
    comp = {
        "name": "w",
        "providerOverride": GROVE_PO,
        "multinode": {"nodeCount": 3},
        "roles": [{"name": "leader", "providerOverride": GROVE_PO}, {"name": "worker"}],
    }
    dgd = load(graph(comp, {"name": "f"}, providerOverride=GROVE_PO))
    once = default_graph(dgd, GROVE)
    assert default_graph(once, GROVE).to_wire() == once.to_wire()
    assert default_graph(once, GROVE, "update").to_wire() == once.to_wire()
    assert default_graph(dgd, GROVE).to_wire() == once.to_wire()
