"""V-EPP (rule 31): InferencePool availability, legacy replicas, and the runtime contract."""

from __future__ import annotations

from typing import Any

from validation_component_support import P, dcd_ctx, dgd_ctx, errors, main, template, update_errors

from dynamo_pulumi.platform import Platform

LEGACY_CONFIG = {"configMapRef": {"name": "epp-config", "key": "config.yaml"}}


def epp(image: str = "dynamo-epp:1.5.0", **wire: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "epp", "type": "epp", "podTemplate": template(main(image))}
    base.update(wire)
    return {k: v for k, v in base.items() if v is not None}


def test_native_rust_epp_without_config_is_valid_with_any_replicas() -> None:
    assert errors(epp(replicas=3)) == []


def test_epp_requires_inference_pool_api_in_a_dgd() -> None:
    platform = Platform.model_validate({"cluster": {"inferencePoolAvailable": False}})
    assert errors(epp(), dgd_ctx(platform=platform)) == [
        f"{P}.type: Forbidden: cannot deploy EPP component: InferencePool API group (inference.networking.k8s.io) "
        "is not available in the cluster; install the Gateway API Inference Extension before deploying EPP components"
    ]


def test_standalone_epp_dcd_skips_inference_pool_check() -> None:
    platform = Platform.model_validate({"cluster": {"inferencePoolAvailable": False}})
    wire = epp()
    del wire["name"]
    assert errors(wire, dcd_ctx(platform=platform)) == []


def test_legacy_go_epp_must_have_one_replica() -> None:
    assert errors(epp("dynamo-epp:1.4.0", eppConfig=LEGACY_CONFIG, replicas=1)) == []
    assert errors(epp("dynamo-epp:1.4.0", eppConfig=LEGACY_CONFIG, replicas=2)) == [
        f"{P}.replicas: Invalid value: 2: EPP component must have exactly 1 replica"
    ]


def test_epp_config_forbidden_for_native_rust_epp() -> None:
    assert errors(epp("dynamo-epp:1.5.0", eppConfig=LEGACY_CONFIG)) == [
        f"{P}.eppConfig: Forbidden: must be omitted for native Rust EPP images with runtime version 1.5.0 or later"
    ]


def test_epp_config_required_for_legacy_go_epp() -> None:
    assert errors(epp("dynamo-epp:1.4.2")) == [
        f"{P}.eppConfig: Required value: is required for legacy Go EPP images with runtime version earlier than 1.5.0"
    ]


def test_override_decides_the_epp_contract() -> None:
    assert errors(epp("dynamo-epp:1.5.0", runtimeVersionOverride="1.4.0", eppConfig=LEGACY_CONFIG)) == []


def test_unresolvable_epp_version_needs_override_even_for_a_dcd() -> None:
    wire = epp("dynamo-epp:latest")
    del wire["name"]
    assert errors(wire, dcd_ctx()) == [
        "spec.runtimeVersionOverride: Required value: is required when the specified main container image has "
        "no parseable semantic-version tag"
    ]


def test_config_map_ref_needs_a_name() -> None:
    assert errors(epp("dynamo-epp:1.4.0", eppConfig={"configMapRef": {"key": "k"}})) == [
        f"{P}.eppConfig.configMapRef.name: Required value: is required"
    ]


def test_unchanged_epp_contract_violation_is_ratcheted_on_update() -> None:
    stored = epp("dynamo-epp:1.4.0")
    assert errors(stored, dgd_ctx("update")) == []
    assert update_errors(stored, stored) == []


def test_image_change_reintroducing_the_violation_is_rejected_on_update() -> None:
    old = epp("dynamo-epp:1.4.0", eppConfig=LEGACY_CONFIG)
    new = epp("dynamo-epp:1.5.1", eppConfig=LEGACY_CONFIG)
    assert update_errors(old, new) == [
        f"{P}.eppConfig: Forbidden: must be omitted for native Rust EPP images with runtime version 1.5.0 or later"
    ]


def test_migrating_to_native_epp_in_one_update_is_valid() -> None:
    assert update_errors(epp("dynamo-epp:1.4.0", eppConfig=LEGACY_CONFIG), epp("dynamo-epp:1.5.1")) == []
