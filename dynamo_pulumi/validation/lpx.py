"""V-LPX-SHARED (rule 26): LPX components take their Pods from role templates only.

LPX owns naming, addressing and placement of its role Pods (the build manifest decides where
they run), so user templates may not steer schedulers, hostnames or, for Agents, node selection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.errors import FieldError, Path, duplicate, forbidden, invalid, required
from dynamo_pulumi.floor.constants import MAIN_CONTAINER_NAME
from dynamo_pulumi.validation.component_common import is_blank, is_lpx, validate_annotations
from dynamo_pulumi.validation.context import ValidationContext

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentRoleSpec, ComponentSpecFields, LPXConfig

LPX_ROLE_CONDUCTOR = "conductor"
LPX_ROLE_AGENT = "agent"
LPX_ROLES = (LPX_ROLE_CONDUCTOR, LPX_ROLE_AGENT)
LPX_REQUIRED_ROLES = (LPX_ROLE_AGENT,)
DEFAULT_SCHEDULER_NAME = "default-scheduler"
LOCAL_PARTITIONS_MODE_ALL = "All"
LOCAL_PARTITIONS_MODE_IDS = "IDs"
MSG_LPX_ROLE_OVERRIDE = "LPX roles do not support provider overrides"


def validate_lpx_component(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    """Component-level LPX rules: templates belong to roles, no topology, a real build."""
    errors: list[FieldError] = []
    if is_lpx(comp) and not ctx.in_dgd:
        errors.append(
            forbidden(path.child("type"), "LPX components are supported only for components embedded in a DynamoGraphDeployment")
        )
    if ctx.is_create and is_lpx(comp) and not ctx.platform.lpx.on:
        errors.append(lpx_gate_error(path))
    if is_lpx(comp) and comp.pod_template is not None:
        errors.append(forbidden(path.child("podTemplate"), "LPX Pod templates belong to roles"))
    if is_lpx(comp) and comp.topology_constraint is not None:
        errors.append(forbidden(path.child("topologyConstraint"), "LPX does not support Grove topologyConstraint"))
    if comp.lpx is not None:
        errors += _validate_lpx_config(comp.lpx, path.child("lpx"))
        errors += _validate_build_id_location(comp.lpx.build_id, path.child("lpx", "buildId"), ctx)
    return errors


def _is_absolute_build_location(build_id: str) -> bool:
    """An absolute path or a URL names its own location instead of one inside the registry."""
    return build_id.startswith("/") or "://" in build_id


def _validate_build_id_location(build_id: str, path: Path, ctx: ValidationContext) -> list[FieldError]:
    """Seed: with ``lpx.modelRegistryURL`` configured, ``buildId`` must be relative to that
    registry; absolute paths and URLs require an empty registry URL."""
    registry = ctx.platform.lpx.model_registry_url
    if registry and _is_absolute_build_location(build_id.strip()):
        return [
            invalid(
                path,
                build_id,
                f"must be relative to the configured LPX model registry {registry!r}; "
                "absolute paths and URLs require an empty lpx.modelRegistryURL",
            )
        ]
    return []


def lpx_gate_error(path: Path) -> FieldError:
    return forbidden(path.child("type"), "LPX components require lpx.enabled=true")


def validate_lpx_gate_update(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    """With the LPX setting off, existing LPX components are frozen (unrelated updates still pass)."""
    if not is_lpx(new) or ctx.platform.lpx.on or new.to_wire() == old.to_wire():
        return []
    return [lpx_gate_error(path)]


def validate_lpx_conductor_templates(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    """A declared conductor role always brings its own template (the serving runtime is explicit)."""
    if not is_lpx(comp):
        return []
    return [
        required(path.index(i).child("podTemplate"), "LPX conductor requires an explicit podTemplate")
        for i, role in enumerate(comp.roles or [])
        if role.name == LPX_ROLE_CONDUCTOR and role.pod_template is None
    ]


def _validate_lpx_config(lpx: LPXConfig, path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    if lpx.build_id.strip() == "":
        errors.append(required(path.child("buildId"), "LPX component requires a buildId"))
    partitions = lpx.experimental.local_partitions if lpx.experimental else None
    if partitions is not None:
        errors += _validate_local_partitions(partitions.mode, partitions.ids, path.child("experimental", "localPartitions"))
    return errors


def _validate_local_partitions(mode: str, ids: list[int] | None, path: Path) -> list[FieldError]:
    """``ids`` is required with ``mode: IDs`` and forbidden with ``mode: All``; a set."""
    ids_path = path.child("ids")
    if mode == LOCAL_PARTITIONS_MODE_ALL and ids is not None:
        return [forbidden(ids_path, "must not be set when mode is All")]
    if mode == LOCAL_PARTITIONS_MODE_IDS and not ids:
        return [required(ids_path, "is required when mode is IDs")]
    seen: set[int] = set()
    errors: list[FieldError] = []
    for i, partition in enumerate(ids or []):
        if partition in seen:
            errors.append(duplicate(ids_path.index(i), partition))
        seen.add(partition)
    return errors


def validate_lpx_role(role: ComponentRoleSpec, path: Path) -> list[FieldError]:
    """One LPX role: the agent needs a template, no role takes a provider override."""
    errors: list[FieldError] = []
    if role.pod_template is not None:
        errors += validate_lpx_role_template(role.pod_template, path.child("podTemplate"), role.name)
    elif role.name == LPX_ROLE_AGENT:
        errors.append(required(path.child("podTemplate"), "the LPX agent role requires a podTemplate"))
    if role.provider_override is not None:
        errors.append(forbidden(path.child("providerOverride"), MSG_LPX_ROLE_OVERRIDE))
    return errors


def validate_lpx_role_template(template: dict[str, Any], path: Path, role: str) -> list[FieldError]:
    """``validatePodTemplateSpec`` for LPX: annotations, main container, images, placement."""
    errors = validate_annotations(pods.pod_annotations(template), path.child("metadata", "annotations"))
    spec = pods.pod_spec(template)
    spec_path = path.child("spec")
    agent = role == LPX_ROLE_AGENT
    if pods.main_container(template) is None:
        errors.append(
            required(spec_path.child("containers"), f'LPX {role} component requires a "{MAIN_CONTAINER_NAME}" runtime container')
        )
    for key in ("containers", "initContainers"):
        errors += _container_errors(pods.containers(template, key), spec_path.child(key), agent)
    errors += _placement_errors(spec, spec_path)
    if agent:
        errors += _agent_placement_errors(spec, spec_path)
    return errors


def _container_errors(containers: list[dict[str, Any]], path: Path, agent: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, container in enumerate(containers):
        image = container.get("image")
        if is_blank(image) or (isinstance(image, str) and image.strip() == ""):
            errors.append(required(path.index(i).child("image"), "must specify a non-empty image"))
        if agent and container.get("name") == LPX_ROLE_AGENT:
            errors.append(
                forbidden(path.index(i).child("name"), f'LPX reserves "{LPX_ROLE_AGENT}" for the materialized role container')
            )
    return errors


def _placement_errors(spec: dict[str, Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    scheduler = spec.get("schedulerName")
    if scheduler and scheduler != DEFAULT_SCHEDULER_NAME:
        errors.append(forbidden(path.child("schedulerName"), "LPX owns role scheduler selection"))
    for key in ("hostname", "subdomain", "nodeName"):
        if spec.get(key):
            errors.append(forbidden(path.child(key), "LPX owns role addressing and placement"))
    if spec.get("topologySpreadConstraints"):
        errors.append(forbidden(path.child("topologySpreadConstraints"), "LPX owns role placement"))
    return errors


def _agent_placement_errors(spec: dict[str, Any], path: Path) -> list[FieldError]:
    """Agents accept only required node affinity as an authored placement constraint."""
    errors: list[FieldError] = []
    if spec.get("nodeSelector"):
        errors.append(forbidden(path.child("nodeSelector"), "LPX exclusively owns Agent node selection"))
    if _has_disallowed_affinity(spec.get("affinity")):
        errors.append(forbidden(path.child("affinity"), "node-local LPX supports only required nodeAffinity"))
    if spec.get("schedulingGates"):
        errors.append(forbidden(path.child("schedulingGates"), "Grove and LPX own Agent scheduling gates"))
    if spec.get("resourceClaims"):
        errors.append(forbidden(path.child("resourceClaims"), "node-local LPX Agents cannot use ResourceClaims"))
    return errors


def _has_disallowed_affinity(affinity: Any) -> bool:
    if not isinstance(affinity, dict):
        return False
    node = affinity.get("nodeAffinity") or {}
    if isinstance(node, dict) and node.get("preferredDuringSchedulingIgnoredDuringExecution"):
        return True
    for key in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(key) or {}
        if isinstance(terms, dict) and (
            terms.get("requiredDuringSchedulingIgnoredDuringExecution")
            or terms.get("preferredDuringSchedulingIgnoredDuringExecution")
        ):
            return True
    return False


def validate_lpx_update(new: ComponentSpecFields, old: ComponentSpecFields, path: Path) -> list[FieldError]:
    """A component cannot switch between LPX and non-LPX after creation."""
    if is_lpx(new) == is_lpx(old):
        return []
    # Rule 26 (section 5): Forbidden, not Invalid; no value is reported.
    return [forbidden(path.child("type"), "cannot change node topology between LPX and non-LPX after creation")]
