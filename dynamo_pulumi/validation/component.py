"""Admission rules of the shared component spec (api-and-validation.md section 4.4, rules 25-40a).

Used for each ``spec.components[i]`` of a DGD and for a DCD's ``spec``; :class:`ValidationContext`
says which, and whether this is a create or an update.

How create and update divide the work, mirroring the operator's webhook:

* :func:`validate_component` is the stateless pass over the new object. On **update** it skips the
  rules that ratchet against the old object (the runtime-version/image contract, the EPP runtime
  contract, and the multinode type restriction); those run in :func:`validate_component_update`.
* :func:`validate_component_update` holds the transition rules (immutability, toggles, DGDSA-owned
  replicas) and the ratcheted checks.

So an update of a component is ``validate_component(new) + validate_component_update(old, new)``;
a create is ``validate_component(comp)`` alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.api.pod_schema import decoded_template_errors
from dynamo_pulumi.errors import FieldError, Findings, Path, forbidden
from dynamo_pulumi.floor.constants import PLANNER_SERVICE_ACCOUNT_NAME
from dynamo_pulumi.validation.checkpoint import validate_checkpoint
from dynamo_pulumi.validation.component_common import is_lpx
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.epp import validate_epp
from dynamo_pulumi.validation.gms import validate_gms_and_failover, validate_gms_update
from dynamo_pulumi.validation.image import (
    validate_elastic_ep,
    validate_grove,
    validate_grove_update,
    validate_min_available,
    validate_min_available_update,
    validate_probes,
    validate_runtime_version,
    validate_runtime_version_update,
    validate_shared_memory,
    validate_topology_update,
)
from dynamo_pulumi.validation.lpx import (
    validate_lpx_component,
    validate_lpx_gate_update,
    validate_lpx_update,
)
from dynamo_pulumi.validation.multinode import validate_multinode_type, validate_multinode_update
from dynamo_pulumi.validation.provider_override import (
    SCOPE_COMPONENT,
    validate_provider_override,
    validate_provider_override_update,
    writes_grove_topology,
)
from dynamo_pulumi.validation.roles import (
    validate_multinode_role_overrides_update,
    validate_roles,
    validate_roles_update,
)
from dynamo_pulumi.validation.sidecars import validate_dynamo_sidecar, validate_frontend_sidecar

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields

SERVICE_ACCOUNT_USERNAME_PREFIX = "system:serviceaccount:"


def validate_component(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> Findings:
    """Every stateless rule for one component, in the operator's order.

    The templates the CRD embeds with their core/v1 schema were checked in admission's schema
    stage (:func:`dynamo_pulumi.api.pod_schema.object_errors`), before any webhook rule; the
    ones it leaves schemaless (checkpoint job, GMS client pods) fail only as the webhook decodes
    them, which comes first here.
    """
    errors: list[FieldError] = decoded_template_errors(comp, path)
    errors += validate_elastic_ep(comp, path, ctx)
    errors += _component_provider_override(comp, path, ctx)
    errors += validate_lpx_component(comp, path, ctx)
    errors += validate_min_available(comp, path, ctx)
    errors += validate_roles(comp, path, ctx)
    errors += validate_shared_memory(comp, path)
    if ctx.is_create:
        errors += validate_multinode_type(comp, None, path)
    errors += validate_epp(comp, path, ctx)
    errors += validate_frontend_sidecar(comp, path)
    errors += validate_dynamo_sidecar(comp, path, _component_name(comp))
    errors += _experimental(comp, path, ctx)
    if ctx.is_create:
        errors += validate_runtime_version(comp, path, ctx)
    errors += validate_probes(comp, path)
    return Findings(errors=errors)


def validate_component_update(
    old: ComponentSpecFields, new: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> Findings:
    """Transition rules and ratcheted checks between the stored and the submitted component."""
    owner_kind = ctx.kind
    errors = validate_provider_override_update(
        new.provider_override, old.provider_override, path.child("providerOverride")
    )
    errors += validate_multinode_update(new, old, path)
    if new.is_multinode == old.is_multinode and not is_lpx(new) and not is_lpx(old):
        errors += validate_roles_update(new, old, path.child("roles"))
        errors += validate_multinode_role_overrides_update(new, old, path)
    errors += validate_multinode_type(new, old, path)
    errors += validate_lpx_update(new, old, path)
    errors += validate_lpx_gate_update(new, old, path, ctx)
    errors += _scaling_adapter_replicas(new, old, path, ctx)
    errors += validate_topology_update(new, old, path, owner_kind)
    errors += validate_gms_update(new, old, path, owner_kind)
    errors += validate_grove_update(new, old, path, owner_kind)
    errors += validate_min_available_update(new, old, path, ctx)
    errors += validate_runtime_version_update(new, old, path, ctx)
    return Findings(errors=errors)


def _component_name(comp: ComponentSpecFields) -> str:
    name = getattr(comp, "name", None)
    return name if isinstance(name, str) else ""


def _component_provider_override(
    comp: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    if comp.provider_override is None:
        return []
    po_path = path.child("providerOverride")
    if is_lpx(comp) and writes_grove_topology(comp.provider_override.value):
        # LPX placement comes from the build manifest; only availability settings may be overridden.
        return [forbidden(po_path, "LPX component does not support Grove topology overrides")]
    return validate_provider_override(comp.provider_override, po_path, ctx, SCOPE_COMPONENT, comp)


def _experimental(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    if comp.experimental is None:
        return []
    errors = validate_gms_and_failover(comp, path.child("experimental"))
    errors += validate_grove(comp, path, ctx)
    errors += validate_checkpoint(comp, path, ctx)
    return errors


# --- V-SA (rule 39) --------------------------------------------------------------------------------


def can_modify_dgd_replicas(ctx: ValidationContext) -> bool:
    """The operator itself or a planner service account may write DGDSA-owned replicas.

    An unknown requester fails closed, as the webhook does without request user info.
    """
    username = ctx.platform.cluster.requester
    if not username or not username.startswith(SERVICE_ACCOUNT_USERNAME_PREFIX):
        return False
    if username in ctx.platform.cluster.operator_principals:
        return True
    parts = username.split(":")
    return len(parts) == 4 and parts[3] == PLANNER_SERVICE_ACCOUNT_NAME


def _scaling_adapter_replicas(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    """With a scaling adapter on either side, replicas belong to the DGDSA (DGD only)."""
    if not ctx.in_dgd or (new.scaling_adapter is None and old.scaling_adapter is None):
        return []
    if new.effective_replicas == old.effective_replicas or can_modify_dgd_replicas(ctx):
        return []
    return [
        forbidden(
            path.child("replicas"),
            "cannot be modified directly when scaling adapter is enabled; scale or update the related "
            "DynamoGraphDeploymentScalingAdapter instead",
        )
    ]
