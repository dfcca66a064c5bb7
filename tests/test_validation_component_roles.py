"""V-ROLES (rule 28): explicit multinode roles, role templates, and their update rules."""

from __future__ import annotations

from typing import Any

from validation_component_support import IMAGE, P, errors, grove_ctx, main, template, update_errors, worker


def mn(**wire: Any) -> dict[str, Any]:
    return worker(multinode={"nodeCount": 3}, **wire)


def role_tpl(image: str | None = IMAGE, **meta: Any) -> dict[str, Any]:
    out = template(main(image))
    if meta:
        out["metadata"] = meta
    return out


def templated_roles(leader: dict[str, Any] | None = None, worker_tpl: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    return [
        {"name": "leader", "podTemplate": leader or role_tpl()},
        {"name": "worker", "podTemplate": worker_tpl or role_tpl()},
    ]


def test_explicit_leader_and_worker_roles_are_valid() -> None:
    assert errors(mn(roles=[{"name": "leader", "replicas": 1}, {"name": "worker", "replicas": 2}])) == []


def test_roles_without_multinode_are_forbidden() -> None:
    assert errors(worker(roles=[{"name": "leader"}, {"name": "worker"}])) == [
        f"{P}.roles: Forbidden: roles are supported only for component shapes that define a role schema; "
        "this release supports multinode and LPX components"
    ]


def test_unknown_duplicate_and_missing_roles_are_reported() -> None:
    assert errors(mn(roles=[{"name": "leader"}, {"name": "leader"}, {"name": "head"}])) == [
        f'{P}.roles[1].name: Duplicate value: "leader"',
        f'{P}.roles[2].name: Unsupported value: "head": supported values: "leader", "worker"',
        f'{P}.roles: Required value: must contain the "worker" role',
    ]


def test_role_replicas_must_match_the_node_count() -> None:
    assert errors(mn(roles=[{"name": "leader", "replicas": 2}, {"name": "worker", "replicas": 1}])) == [
        f'{P}.roles[0].replicas: Invalid value: 2: must equal 1 for multinode role "leader"',
        f'{P}.roles[1].replicas: Invalid value: 1: must equal 2 for multinode role "worker"',
    ]


def test_role_templates_replace_the_component_template() -> None:
    assert errors(mn(podTemplate=None, roles=templated_roles())) == []
    assert errors(mn(roles=templated_roles())) == [
        f"{P}.podTemplate: Forbidden: cannot be combined with roles[].podTemplate; choose one complete PodTemplate source mode"
    ]


def test_role_templates_are_all_or_none() -> None:
    roles = [{"name": "leader", "podTemplate": role_tpl()}, {"name": "worker"}]
    assert errors(mn(podTemplate=None, roles=roles)) == [
        f"{P}.roles[1].podTemplate: Required value: is required on every role when role-specific PodTemplates are used"
    ]


def test_role_template_needs_main_with_image_and_sidecar_images() -> None:
    leader = template({"name": "sidecar"}, init=[{"name": "setup"}])
    worker_tpl = role_tpl(image=None)
    assert errors(mn(podTemplate=None, roles=templated_roles(leader, worker_tpl))) == [
        f"{P}.roles[0].podTemplate.spec.containers[0].image: Required value: is required for sidecar containers",
        f"{P}.roles[0].podTemplate.spec.initContainers[0].image: Required value: is required for init containers",
        f'{P}.roles[0].podTemplate.spec.containers: Required value: must contain a container named "main"',
        f"{P}.roles[1].podTemplate.spec.containers[0].image: Required value: is required",
    ]


def test_role_template_annotations_are_checked() -> None:
    leader = role_tpl(annotations={"nvidia.com/vllm-distributed-executor-backend": "mpi", "dynamo.nvidia.com/gpu-power-limit": "300"})
    assert errors(mn(podTemplate=None, roles=templated_roles(leader))) == [
        f'{P}.roles[0].podTemplate.metadata.annotations[nvidia.com/vllm-distributed-executor-backend]: Invalid value: "mpi": must be "mp" or "ray"',
        f"{P}.roles[0].podTemplate.metadata.annotations[dynamo.nvidia.com/gpu-power-limit]: Forbidden: "
        "role-specific power limits are not supported by power-aware planning",
    ]


def test_role_template_annotation_keys_must_be_qualified_names() -> None:
    leader = role_tpl(annotations={"bad key!": "x"})
    found = errors(mn(podTemplate=None, roles=templated_roles(leader)))
    assert len(found) == 1
    assert found[0].startswith(f'{P}.roles[0].podTemplate.metadata.annotations: Invalid value: "bad key!": name part must consist of')


def test_runtime_init_container_in_role_template_is_forbidden() -> None:
    leader = template(main(), init=[{"name": "runtime", "image": IMAGE, "restartPolicy": "Always"}])
    assert errors(mn(podTemplate=None, roles=templated_roles(leader))) == [
        f"{P}.roles[0].podTemplate.spec.initContainers[0].name: Forbidden: Dynamo sidecar mode is not supported "
        "in multinode or LPX role pod templates"
    ]


def test_role_templates_cannot_be_combined_with_gms_or_failover() -> None:
    wire = mn(podTemplate=None, roles=templated_roles(), experimental={"gpuMemoryService": {}, "failover": {}})
    assert errors(wire) == [
        f"{P}.experimental.gpuMemoryService: Forbidden: cannot be combined with role PodTemplates because this "
        "layout requires operator-managed launch wiring",
        f"{P}.experimental.failover: Forbidden: cannot be combined with role PodTemplates because this layout "
        "requires operator-managed launch wiring",
    ]


def test_role_override_and_multinode_role_override_cannot_be_combined() -> None:
    """One role's override comes from roles[] or from the snapshot's multinode.<role>, not both."""
    override = {
        "apiVersion": "grove.io/v1alpha1",
        "target": "PodCliqueTemplateSpec",
        "value": {"topologyConstraint": {"packDomain": "rack"}},
    }
    roles = [{"name": "leader", "providerOverride": override}, {"name": "worker"}]
    both = worker(roles=roles, multinode={"nodeCount": 3, "leader": {"providerOverride": override}})
    assert errors(both, grove_ctx()) == [
        f"{P}.multinode.leader.providerOverride: Forbidden: cannot be combined with roles[].providerOverride; use one"
    ]
    # Different roles may use different spellings.
    split = worker(roles=roles, multinode={"nodeCount": 3, "worker": {"providerOverride": override}})
    assert errors(split, grove_ctx()) == []


def test_role_names_are_immutable_on_update() -> None:
    old = mn(roles=[{"name": "leader"}, {"name": "worker"}])
    assert update_errors(old, old) == []
    new = mn(roles=[{"name": "leader"}, {"name": "head"}])
    assert update_errors(old, new) == [
        f'{P}.roles: Invalid value: [{{"name":"leader"}},{{"name":"head"}}]: role names are immutable after creation'
    ]


def test_switching_to_equivalent_explicit_roles_is_allowed() -> None:
    explicit = mn(roles=[{"name": "leader", "replicas": 1}, {"name": "worker"}])
    assert update_errors(mn(), explicit) == []
    assert update_errors(explicit, mn()) == []


def test_switching_to_a_different_role_model_is_forbidden() -> None:
    explicit = mn(roles=[{"name": "leader"}])
    assert update_errors(mn(), explicit) == [
        f"{P}.roles: Forbidden: cannot switch between implicit and explicit roles while changing the resolved "
        "role model; make the equivalent role structure explicit first"
    ]
