"""V-RTV (38) and V-POD (40a): the runtime image, runtimeVersionOverride, and probe handlers."""

from __future__ import annotations

from typing import Any

from validation_component_support import (
    IMAGE,
    P,
    dcd_ctx,
    dgd_ctx,
    errors,
    main,
    template,
    update_errors,
    worker,
)

OVERRIDE_REQUIRED = (
    f"{P}.runtimeVersionOverride: Required value: is required when the specified main container image has no "
    "parseable semantic-version tag"
)


def dcd(**wire: Any) -> dict[str, Any]:
    out = worker(**wire)
    out.pop("name")
    return out


def test_main_image_with_semver_tag_is_valid() -> None:
    assert errors(worker()) == []


def test_missing_main_container_is_required() -> None:
    assert errors(worker(podTemplate=template({"name": "app", "image": IMAGE}))) == [
        f"{P}.podTemplate.spec.containers: Required value: is required"
    ]
    assert errors(worker(podTemplate=None)) == [f"{P}.podTemplate.spec.containers: Required value: is required"]


def test_empty_main_image_is_required_at_its_index() -> None:
    pod = template({"name": "helper", "image": "h:1"}, main(None))
    assert errors(worker(podTemplate=pod)) == [f"{P}.podTemplate.spec.containers[1].image: Required value: is required"]


def test_unparseable_tag_needs_override_in_a_dgd() -> None:
    assert errors(worker(podTemplate=template(main("vllm-runtime:latest")))) == [OVERRIDE_REQUIRED]
    assert errors(worker(podTemplate=template(main("vllm-runtime:latest")), runtimeVersionOverride="1.5.0")) == []


def test_standalone_dcd_tolerates_unparseable_tag_but_not_missing_image() -> None:
    assert errors(dcd(podTemplate=template(main("vllm-runtime:latest"))), dcd_ctx()) == []
    assert errors(dcd(podTemplate=template(main(None))), dcd_ctx()) == [
        "spec.podTemplate.spec.containers[0].image: Required value: is required"
    ]


def test_role_templates_need_versioned_images_or_override() -> None:
    roles = [
        {"name": "leader", "podTemplate": template(main("engine:1.5.0"))},
        {"name": "worker", "podTemplate": template(main("engine:dev"))},
    ]
    wire = worker(multinode={"nodeCount": 2}, podTemplate=None, roles=roles)
    assert errors(wire) == [OVERRIDE_REQUIRED]
    assert errors(wire | {"runtimeVersionOverride": "1.5.0"}) == []


def test_runtime_checks_are_left_to_the_update_ratchet_on_update() -> None:
    assert errors(worker(podTemplate=None), dgd_ctx("update")) == []


def test_update_keeps_a_legacy_component_without_image() -> None:
    legacy = worker(podTemplate=None)
    assert update_errors(legacy, legacy) == []


def test_update_removing_the_image_is_required() -> None:
    assert update_errors(worker(), worker(podTemplate=template(main(None)))) == [
        f"{P}.podTemplate.spec.containers[0].image: Required value: is required"
    ]


def test_update_ratchets_unchanged_unversioned_image_only() -> None:
    stored = worker(podTemplate=template(main("engine:latest")))
    assert update_errors(stored, stored) == []
    assert update_errors(stored, worker(podTemplate=template(main("engine:nightly")))) == [OVERRIDE_REQUIRED]


def test_update_removing_the_override_of_an_unversioned_image_is_required() -> None:
    old = worker(podTemplate=template(main("engine:latest")), runtimeVersionOverride="1.5.0")
    assert update_errors(old, worker(podTemplate=template(main("engine:latest")))) == [OVERRIDE_REQUIRED]


def test_probe_with_one_handler_is_valid() -> None:
    probe = {"httpGet": {"path": "/live", "port": 9090}, "periodSeconds": 5}
    assert errors(worker(podTemplate=template(main(livenessProbe=probe)))) == []


def test_timing_only_probe_is_rejected() -> None:
    assert errors(worker(podTemplate=template(main(readinessProbe={"periodSeconds": 5})))) == [
        f"{P}.podTemplate.spec.containers[0].readinessProbe: Required value: must specify a handler type"
    ]


def test_probe_with_two_handlers_is_rejected() -> None:
    probe = {"exec": {"command": ["true"]}, "tcpSocket": {"port": 8000}}
    assert errors(worker(podTemplate=template(main(startupProbe=probe)))) == [
        f"{P}.podTemplate.spec.containers[0].startupProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"
    ]


def test_probes_in_sidecars_and_role_templates_are_checked() -> None:
    sidecar = {"name": "side", "image": "s:1", "livenessProbe": {"failureThreshold": 3}}
    assert errors(worker(podTemplate=template(main(), sidecar))) == [
        f"{P}.podTemplate.spec.containers[1].livenessProbe: Required value: must specify a handler type"
    ]
    roles = [
        {"name": "leader", "podTemplate": template(main())},
        {"name": "worker", "podTemplate": template(main(livenessProbe={"periodSeconds": 1}))},
    ]
    assert errors(worker(multinode={}, podTemplate=None, roles=roles)) == [
        f"{P}.roles[1].podTemplate.spec.containers[0].livenessProbe: Required value: must specify a handler type"
    ]


def _role_wire(worker_image: str) -> dict[str, Any]:
    roles = [
        {"name": "leader", "podTemplate": template(main("engine:1.5.0"))},
        {"name": "worker", "podTemplate": template(main(worker_image))},
    ]
    return worker(multinode={"nodeCount": 2}, podTemplate=None, roles=roles)


def test_update_ratchets_unchanged_unversioned_role_images_only() -> None:
    stored = _role_wire("engine:dev")
    assert update_errors(stored, stored) == []
    assert update_errors(stored, _role_wire("engine:dev2")) == [OVERRIDE_REQUIRED]
    assert update_errors(stored, _role_wire("engine:1.5.1")) == []


def test_standalone_dcd_update_tolerates_a_new_unversioned_image() -> None:
    assert update_errors(dcd(), dcd(podTemplate=template(main("engine:latest"))), dcd_ctx("update")) == []
