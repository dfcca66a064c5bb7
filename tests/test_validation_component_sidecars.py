"""V-FS (rule 32) frontend sidecars and V-SIDECAR (rule 33) Dynamo sidecar mode."""

from __future__ import annotations

from typing import Any

from validation_component_support import IMAGE, P, errors, main, template, worker

FRONTEND = {"name": "sidecar-frontend", "image": "frontend:1.6.0"}


def runtime(**extra: Any) -> dict[str, Any]:
    return {"name": "runtime", "image": "dynamo-runtime:1.5.0", "restartPolicy": "Always"} | extra


def test_frontend_sidecar_naming_a_container_is_valid() -> None:
    assert errors(worker(frontendSidecar="sidecar-frontend", podTemplate=template(main(), FRONTEND))) == []


def test_empty_frontend_sidecar_is_invalid() -> None:
    assert errors(worker(frontendSidecar="")) == [f'{P}.frontendSidecar: Invalid value: "": must not be empty']


def test_frontend_sidecar_needs_a_pod_template() -> None:
    wire = worker(frontendSidecar="sidecar-frontend", podTemplate=None, runtimeVersionOverride="1.5.0")
    found = errors(wire)
    assert f"{P}.podTemplate.spec.containers: Required value: is required when frontendSidecar is set" in found


def test_frontend_sidecar_must_name_an_existing_container() -> None:
    assert errors(worker(frontendSidecar="missing")) == [
        f'{P}.frontendSidecar: Invalid value: "missing": must match a podTemplate.spec.containers name'
    ]


def test_frontend_sidecar_must_exist_in_every_role_template() -> None:
    roles = [
        {"name": "leader", "podTemplate": template(main(), FRONTEND)},
        {"name": "worker", "podTemplate": template(main())},
    ]
    wire = worker(multinode={"nodeCount": 2}, podTemplate=None, roles=roles, frontendSidecar="sidecar-frontend")
    assert errors(wire) == [
        f'{P}.roles[1].podTemplate.spec.containers: Invalid value: "sidecar-frontend": must contain the container named by frontendSidecar'
    ]


def test_runtime_init_container_selects_valid_sidecar_mode_for_workers() -> None:
    assert errors(worker(podTemplate=template(main("engine:latest"), init=[runtime()]))) == []


def test_runtime_init_container_on_frontend_is_forbidden() -> None:
    assert errors(worker(type="frontend", podTemplate=template(main(), init=[runtime()]))) == [
        f"{P}.podTemplate.spec.initContainers[0].name: Forbidden: is supported only for worker, prefill, and decode components"
    ]


def test_runtime_init_container_must_restart_always() -> None:
    init = [{"name": "runtime", "image": "dynamo-runtime:1.5.0"}]
    assert errors(worker(podTemplate=template(main(), init=init))) == [
        f'{P}.podTemplate.spec.initContainers[0].restartPolicy: Invalid value: "": must be Always for '
        'component "worker" with a runtime init container'
    ]


def test_sidecar_mode_needs_an_engine_image() -> None:
    assert errors(worker(podTemplate=template(main(None), init=[runtime()]))) == [
        f'{P}.podTemplate.spec.containers[0].image: Required value: engine image is required for component "worker" '
        "with a runtime init container"
    ]
    assert errors(worker(podTemplate=template({"name": "engine", "image": IMAGE}, init=[runtime()]))) == [
        f'{P}.podTemplate.spec.containers: Required value: main engine container is required for component "worker" '
        "with a runtime init container"
    ]


def test_sidecar_mode_rejects_multinode_gms_failover_and_checkpoint() -> None:
    gpu_main = main(resources={"limits": {"nvidia.com/gpu": 1}})
    wire = worker(
        podTemplate=template(gpu_main, init=[runtime()]),
        experimental={"gpuMemoryService": {}, "failover": {}, "checkpoint": {"enabled": True}},
    )
    suffix = 'is not currently supported for component "worker" with a runtime init container; support is planned for a future release'
    found = errors(wire)
    for field in ("checkpoint.enabled", "gpuMemoryService", "failover"):
        assert f"{P}.experimental.{field}: Forbidden: {suffix}" in found
    assert f"{P}.multinode: Forbidden: {suffix}" in errors(worker(multinode={}, podTemplate=template(main(), init=[runtime()])))


def test_sidecar_mode_reads_runtime_version_from_runtime_image() -> None:
    init = [runtime(image="dynamo-runtime:nightly")]
    assert errors(worker(podTemplate=template(main("engine:1.5.0"), init=init))) == [
        f"{P}.runtimeVersionOverride: Required value: is required when the specified main container image has no "
        "parseable semantic-version tag"
    ]
