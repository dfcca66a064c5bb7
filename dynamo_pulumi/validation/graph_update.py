"""DGD update rules (api-and-validation.md 4.5 rules 41-45, rule 14, and the DGD-level parts of
section 5).

These compare the stored object with the submitted one. Identity the controller keys on (the
workload provider, the component set, the backend, placement, the KV-transfer policy) cannot
change under a running graph; the restart id is frozen while a rolling update is in flight.
Per-component transitions are delegated to :func:`validate_component_update` (shared rules) and
:func:`validate_power_update` (DGD-only power contract).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import FieldError, Findings, Path, forbidden, invalid
from dynamo_pulumi.floor.constants import KUBE_ANNOTATION_WORKLOAD_PROVIDER
from dynamo_pulumi.validation.component import validate_component_update
from dynamo_pulumi.validation.component_common import FIELD_IMMUTABLE_ERROR_MSG
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.metadata import annotation_path
from dynamo_pulumi.validation.power import validate_power_update
from dynamo_pulumi.validation.provider_override import validate_provider_override_update

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment, KvTransferPolicy

ROLLING_UPDATE_PHASES_IN_FLIGHT = ("Pending", "InProgress")
BACKEND_FRAMEWORK_WARNING = "Changing spec.backendFramework may cause unexpected behavior"
MSG_BACKEND_IMMUTABLE = "is immutable and cannot be changed after creation"
MSG_TOPOLOGY_IMMUTABLE = (
    "is immutable and cannot be added, removed, or changed after creation; delete and recreate the "
    "DynamoGraphDeployment to change topology constraints"
)
MSG_KV_TRANSFER_IMMUTABLE = (
    "is immutable and cannot be added, removed, or changed after creation; delete and recreate the "
    "DynamoGraphDeployment to change the KV transfer policy"
)
MSG_COMPONENTS_IMMUTABLE = "component topology is immutable and cannot be modified after creation"


def validate_graph_update(
    new: DynamoGraphDeployment, old: DynamoGraphDeployment, ctx: ValidationContext
) -> Findings:
    """Every DGD transition rule, in the webhook's order."""
    findings = Findings(errors=workload_provider_update_errors(new, old, ctx))
    spec_path = Path("spec")
    findings.errors += validate_provider_override_update(
        new.spec.provider_override, old.spec.provider_override, spec_path.child("providerOverride")
    )
    findings.errors += component_set_errors(new, old)
    old_by_name = {c.name: c for c in old.components}
    for i, comp in enumerate(new.components):
        previous = old_by_name.get(comp.name)
        if previous is None:
            continue
        path = spec_path.child("components").index(i)
        findings.extend(validate_component_update(previous, comp, path, ctx))
        findings.errors += validate_power_update(comp, previous, path)
    if new.spec.backend_framework != old.spec.backend_framework:
        findings.warnings.append(BACKEND_FRAMEWORK_WARNING)
        findings.errors.append(
            invalid(
                spec_path.child("backendFramework"), new.spec.backend_framework or "", MSG_BACKEND_IMMUTABLE
            )
        )
    findings.errors += topology_update_errors(new, old)
    findings.errors += kv_transfer_update_errors(new, old)
    findings.errors += restart_update_errors(new, old)
    return findings


def workload_provider_update_errors(
    new: DynamoGraphDeployment, old: DynamoGraphDeployment, ctx: ValidationContext
) -> list[FieldError]:
    """Rule 14: only the operator materialises the provider; once set it never changes."""
    key = KUBE_ANNOTATION_WORKLOAD_PROVIDER
    path = annotation_path(key)
    new_value = new.annotations.get(key)
    old_value = old.annotations.get(key)
    principals = ctx.platform.cluster.operator_principals
    errors: list[FieldError] = []
    materialized = old_value is None and new_value is not None
    if materialized and principals and ctx.platform.cluster.requester not in principals:
        errors.append(forbidden(path, "may only be materialized by the Dynamo operator"))
    if old_value is not None and new_value != old_value:
        errors.append(invalid(path, new_value, FIELD_IMMUTABLE_ERROR_MSG))
    return errors


def component_set_errors(new: DynamoGraphDeployment, old: DynamoGraphDeployment) -> list[FieldError]:
    """Rule 41: components are matched by name; none may be added or removed."""
    new_names = {c.name for c in new.components}
    old_names = {c.name for c in old.components}
    added = sorted(new_names - old_names)
    removed = sorted(old_names - new_names)
    if not added and not removed:
        return []
    parts = []
    if added:
        parts.append(f"components added: {_go_list(added)}")
    if removed:
        parts.append(f"components removed: {_go_list(removed)}")
    return [forbidden(Path("spec", "components"), f"{MSG_COMPONENTS_IMMUTABLE}: {', '.join(parts)}")]


def topology_update_errors(new: DynamoGraphDeployment, old: DynamoGraphDeployment) -> list[FieldError]:
    """Rule 43: ``spec.topologyConstraint`` cannot be added, removed or changed."""
    new_tc, old_tc = new.spec.topology_constraint, old.spec.topology_constraint
    if new_tc is None and old_tc is None:
        return []
    if new_tc is not None and old_tc is not None and _same_topology(new_tc.to_wire(), old_tc.to_wire()):
        return []
    value = new_tc.to_wire() if new_tc is not None else None
    return [invalid(Path("spec", "topologyConstraint"), value, MSG_TOPOLOGY_IMMUTABLE)]


def _same_topology(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("clusterTopologyName", "packDomain")
    return all((a.get(k) or "") == (b.get(k) or "") for k in keys)


def kv_transfer_update_errors(new: DynamoGraphDeployment, old: DynamoGraphDeployment) -> list[FieldError]:
    """Rule 44: the KV-transfer policy cannot be added, removed or changed."""
    new_policy = _policy(new)
    old_policy = _policy(old)
    if new_policy is None and old_policy is None:
        return []
    if (
        new_policy is not None
        and old_policy is not None
        and _policy_key(new_policy) == _policy_key(old_policy)
    ):
        return []
    value = _stored_policy_wire(new_policy) if new_policy is not None else None
    return [invalid(Path("spec", "experimental", "kvTransferPolicy"), value, MSG_KV_TRANSFER_IMMUTABLE)]


def _stored_policy_wire(policy: KvTransferPolicy) -> dict[str, Any]:
    """The policy as the API server holds it, with the CRD-defaulted ``enforcement``."""
    return policy.model_copy(update={"enforcement": policy.effective_enforcement}).to_wire()


def _policy(dgd: DynamoGraphDeployment) -> KvTransferPolicy | None:
    experimental = dgd.spec.experimental
    return experimental.kv_transfer_policy if experimental is not None else None


def _policy_key(policy: KvTransferPolicy) -> tuple[Any, ...]:
    """What the operator compares: names, domain, effective enforcement, weight."""
    return (
        policy.cluster_topology_name or "",
        policy.label_key or "",
        policy.domain,
        policy.effective_enforcement,
        policy.preferred_weight,
    )


def restart_update_errors(new: DynamoGraphDeployment, old: DynamoGraphDeployment) -> list[FieldError]:
    """Rule 45: the restart id is frozen while the stored object's rolling update is in flight."""
    rolling = (old.status or {}).get("rollingUpdate")
    phase = rolling.get("phase") if isinstance(rolling, dict) else None
    if phase not in ROLLING_UPDATE_PHASES_IN_FLIGHT:
        return []
    new_id = new.spec.restart.id if new.spec.restart is not None else ""
    old_id = old.spec.restart.id if old.spec.restart is not None else ""
    if new_id == old_id:
        return []
    return [
        invalid(Path("spec", "restart", "id"), new_id, f"cannot be changed while a rolling update is {phase}")
    ]


def _go_list(items: list[str]) -> str:
    """Go's ``%v`` of a string slice."""
    return "[" + " ".join(items) + "]"
