"""V-ROLES (rule 28): explicit roles of multinode (leader/worker) and LPX (conductor/agent) components.

A multinode component's role cardinality is fixed by ``nodeCount``; role templates are a complete
alternative to the component template (all roles or none), because supplying them hands the
backend launch wiring to the user.

A role's Grove provider override has two spellings: ``roles[].providerOverride`` and the operator
snapshot's ``multinode.leader|worker.providerOverride`` (ERRATA 38). Both get the same role-scope
V-PO rules, each at its own field path; setting both for one role is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.errors import (
    FieldError,
    Path,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from dynamo_pulumi.floor.constants import (
    KUBE_ANNOTATION_GPU_POWER_LIMIT,
    KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
    MAIN_CONTAINER_NAME,
)
from dynamo_pulumi.validation.component_common import (
    container_index,
    has_role_pod_templates,
    image_of,
    is_blank,
    is_lpx,
    validate_annotations,
)
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.lpx import (
    LPX_REQUIRED_ROLES,
    LPX_ROLES,
    MSG_LPX_ROLE_OVERRIDE,
    validate_lpx_conductor_templates,
    validate_lpx_role,
)
from dynamo_pulumi.validation.provider_override import (
    ROLE_SCOPES,
    validate_provider_override,
    validate_provider_override_update,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentRoleSpec, ComponentSpecFields, ProviderOverride

ROLE_LEADER = "leader"
ROLE_WORKER = "worker"
MULTINODE_ROLES = (ROLE_LEADER, ROLE_WORKER)
VLLM_DISTRIBUTED_EXECUTOR_BACKENDS = ("mp", "ray")
MSG_BOTH_ROLE_OVERRIDE_SPELLINGS = "cannot be combined with roles[].providerOverride; use one"


def expected_role_replicas(role: str, node_count: int) -> int:
    """leader 1, worker nodeCount-1 (the fixed multinode shape)."""
    return node_count - 1 if role == ROLE_WORKER else 1


def validate_roles(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    """The role set of a component, when ``roles`` is given or the component is LPX."""
    errors: list[FieldError] = []
    if comp.roles is not None or is_lpx(comp):
        errors += _validate_role_set(comp, path.child("roles"), ctx)
    if not is_lpx(comp) and has_role_pod_templates(comp) and comp.pod_template is not None:
        errors.append(
            forbidden(
                path.child("podTemplate"),
                "cannot be combined with roles[].podTemplate; choose one complete PodTemplate source mode",
            )
        )
    return errors + validate_multinode_role_overrides(comp, path, ctx)


def multinode_role_override(comp: ComponentSpecFields, role: str) -> ProviderOverride | None:
    """The override of ``multinode.<role>.providerOverride`` (the snapshot spelling), if set."""
    spec = getattr(comp.multinode, role, None) if comp.multinode is not None else None
    return spec.provider_override if spec is not None else None


def multinode_role_override_path(path: Path, role: str) -> Path:
    return path.child("multinode", role, "providerOverride")


def _explicit_role_override(comp: ComponentSpecFields, role: str) -> ProviderOverride | None:
    for spec in comp.roles or []:
        if spec.name == role and spec.provider_override is not None:
            return spec.provider_override
    return None


def validate_multinode_role_overrides(
    comp: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    """``multinode.leader|worker.providerOverride``: the role-scope V-PO rules at their own path."""
    errors: list[FieldError] = []
    for role in MULTINODE_ROLES:
        po = multinode_role_override(comp, role)
        if po is None:
            continue
        po_path = multinode_role_override_path(path, role)
        if is_lpx(comp):
            errors.append(forbidden(po_path, MSG_LPX_ROLE_OVERRIDE))
        elif _explicit_role_override(comp, role) is not None:
            errors.append(forbidden(po_path, MSG_BOTH_ROLE_OVERRIDE_SPELLINGS))
        else:
            errors += validate_provider_override(po, po_path, ctx, ROLE_SCOPES[role], comp)
    return errors


def _validate_role_set(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    lpx = is_lpx(comp)
    if not lpx and comp.multinode is None:
        return [
            forbidden(
                path,
                "roles are supported only for component shapes that define a role schema; "
                "this release supports multinode and LPX components",
            )
        ]
    supported = LPX_ROLES if lpx else MULTINODE_ROLES
    needed = LPX_REQUIRED_ROLES if lpx else MULTINODE_ROLES
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, role in enumerate(comp.roles or []):
        role_path = path.index(i)
        known = role.name in supported
        if not lpx and has_role_pod_templates(comp) and role.pod_template is None:
            errors.append(
                required(role_path.child("podTemplate"), "is required on every role when role-specific PodTemplates are used")
            )
        if not known:
            errors.append(not_supported(role_path.child("name"), role.name, supported))
        elif role.name in seen:
            errors.append(duplicate(role_path.child("name"), role.name))
        else:
            seen.add(role.name)
        if not lpx and known:
            errors += _replica_errors(role, role_path, comp.number_of_nodes)
        if known or lpx:
            errors += _validate_role(role, role_path, comp, ctx)
    errors += [required(path, f'must contain the "{name}" role') for name in needed if name not in seen]
    return errors + validate_lpx_conductor_templates(comp, path)


def _replica_errors(role: ComponentRoleSpec, path: Path, node_count: int) -> list[FieldError]:
    expected = expected_role_replicas(role.name, node_count)
    if role.replicas is None or role.replicas == expected:
        return []
    return [invalid(path.child("replicas"), role.replicas, f'must equal {expected} for multinode role "{role.name}"')]


def _validate_role(
    role: ComponentRoleSpec, path: Path, comp: ComponentSpecFields, ctx: ValidationContext
) -> list[FieldError]:
    errors = _runtime_init_container_errors(role.pod_template, path.child("podTemplate"))
    if is_lpx(comp):
        return errors + validate_lpx_role(role, path)
    if role.pod_template is not None:
        errors += validate_role_pod_template(role.pod_template, path.child("podTemplate"))
    if role.provider_override is not None:
        scope = ROLE_SCOPES[role.name]
        errors += validate_provider_override(role.provider_override, path.child("providerOverride"), ctx, scope, comp)
    return errors


def _runtime_init_container_errors(template: dict[str, Any] | None, path: Path) -> list[FieldError]:
    """Role templates must not bypass the sidecar-mode restrictions on multinode and LPX."""
    return [
        forbidden(
            path.child("spec", "initContainers").index(i).child("name"),
            "Dynamo sidecar mode is not supported in multinode or LPX role pod templates",
        )
        for i, c in enumerate(pods.init_containers(template))
        if c.get("name") == pods.RUNTIME_INIT_CONTAINER
    ]


def validate_role_pod_template(template: dict[str, Any], path: Path) -> list[FieldError]:
    """A multinode role template: annotations, images, and a ``main`` container with an image."""
    annotations = pods.pod_annotations(template)
    annotations_path = path.child("metadata", "annotations")
    errors = validate_annotations(annotations, annotations_path)
    backend = annotations.get(KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
    if backend is not None and str(backend).lower() not in VLLM_DISTRIBUTED_EXECUTOR_BACKENDS:
        errors.append(
            invalid(annotations_path.key(KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND), backend, 'must be "mp" or "ray"')
        )
    if KUBE_ANNOTATION_GPU_POWER_LIMIT in annotations:
        errors.append(
            forbidden(
                annotations_path.key(KUBE_ANNOTATION_GPU_POWER_LIMIT),
                "role-specific power limits are not supported by power-aware planning",
            )
        )
    containers_path = path.child("spec", "containers")
    for i, c in enumerate(pods.containers(template)):
        if c.get("name") != MAIN_CONTAINER_NAME and is_blank(c.get("image")):
            errors.append(required(containers_path.index(i).child("image"), "is required for sidecar containers"))
    for i, c in enumerate(pods.init_containers(template)):
        if is_blank(c.get("image")):
            errors.append(required(path.child("spec", "initContainers").index(i).child("image"), "is required for init containers"))
    main_index = container_index(template, MAIN_CONTAINER_NAME)
    if main_index < 0:
        errors.append(required(containers_path, f'must contain a container named "{MAIN_CONTAINER_NAME}"'))
    elif is_blank(image_of(pods.containers(template)[main_index])):
        errors.append(required(containers_path.index(main_index).child("image"), "is required"))
    return errors


# --- update ----------------------------------------------------------------------------------------


def explicit_roles_match_implicit(comp: ComponentSpecFields) -> bool:
    """Explicit roles equal to the implicit layout: exactly leader+worker, no overrides, fixed counts."""
    roles = comp.roles or []
    if sorted(r.name for r in roles) != sorted(MULTINODE_ROLES):
        return False
    for role in roles:
        if role.provider_override is not None:
            return False
        expected = expected_role_replicas(role.name, comp.number_of_nodes)
        if role.replicas is not None and role.replicas != expected:
            return False
    return True


def validate_roles_update(new: ComponentSpecFields, old: ComponentSpecFields, path: Path) -> list[FieldError]:
    """Role names are immutable; implicit<->explicit only when the resolved role model is unchanged."""
    if (new.roles is None) != (old.roles is None):
        explicit, implicit = (new, old) if new.roles is not None else (old, new)
        if explicit.multinode is not None and implicit.multinode is not None and explicit_roles_match_implicit(explicit):
            return []
        return [
            forbidden(
                path,
                "cannot switch between implicit and explicit roles while changing the resolved role model; "
                "make the equivalent role structure explicit first",
            )
        ]
    new_roles, old_roles = new.roles or [], old.roles or []
    old_by_name = {r.name: r for r in old_roles}
    errors: list[FieldError] = []
    for i, role in enumerate(new_roles):
        before = old_by_name.get(role.name)
        if before is not None:
            errors += validate_provider_override_update(
                role.provider_override, before.provider_override, path.index(i).child("providerOverride")
            )
    if {r.name for r in new_roles} != set(old_by_name):
        errors.append(invalid(path, [r.to_wire() for r in new_roles], "role names are immutable after creation"))
    return errors


def validate_multinode_role_overrides_update(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path
) -> list[FieldError]:
    """``apiVersion``/``target`` of a ``multinode.<role>.providerOverride`` present before and after."""
    errors: list[FieldError] = []
    for role in MULTINODE_ROLES:
        errors += validate_provider_override_update(
            multinode_role_override(new, role),
            multinode_role_override(old, role),
            multinode_role_override_path(path, role),
        )
    return errors
