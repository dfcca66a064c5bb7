"""V-PO (rule 25): provider-native fragments merged into the Grove unit a scope produces.

An override is only meaningful once the DGD's workload provider is durably Grove, and only for
the one Grove type the scope lowers to; its ``value`` may touch only the few fields Dynamo
delegates (topology, native minimum, rollout budget), everything else stays Dynamo-owned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.defaulting.webhooks import (
    SCOPE_COMPONENT,
    SCOPE_ROLES_LEADER,
    SCOPE_ROLES_WORKER,
    SCOPE_ROOT,
    TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG,
    TARGET_POD_CLIQUE_SET,
    TARGET_POD_CLIQUE_TEMPLATE_SPEC,
    effective_min_available,
    expected_target,
)
from dynamo_pulumi.errors import (
    FieldError,
    Path,
    forbidden,
    invalid,
    not_supported,
    required,
)
from dynamo_pulumi.floor.constants import (
    GROVE_API_VERSION,
    KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY,
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
    WORKLOAD_PROVIDER_GROVE,
)
from dynamo_pulumi.validation.component_common import FIELD_IMMUTABLE_ERROR_MSG
from dynamo_pulumi.validation.context import ValidationContext

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields, ProviderOverride

SCOPE_ROLE_LEADER = SCOPE_ROLES_LEADER
SCOPE_ROLE_WORKER = SCOPE_ROLES_WORKER
ROLE_SCOPES = {"leader": SCOPE_ROLE_LEADER, "worker": SCOPE_ROLE_WORKER}

GROVE_UPDATE_STRATEGY_ON_DELETE = "OnDelete"
GROVE_UPDATE_STRATEGY_COHERENT = "Coherent"

OWNERSHIP_VIOLATION = "is Dynamo-owned or not enabled for provider override"
MSG_ROLE_MIN_AVAILABLE = (
    "is not supported in role provider overrides; only topologyConstraint is allowed, set the native "
    "minimum on the component providerOverride"
)
_MAX_INT32 = 2**31 - 1


def validate_root_provider_override(
    po: ProviderOverride, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    """``spec.providerOverride`` of a DGD (target ``PodCliqueSet``)."""
    return validate_provider_override(po, path, ctx, SCOPE_ROOT, None)


def validate_provider_override(
    po: ProviderOverride,
    path: Path,
    ctx: ValidationContext,
    scope: str,
    comp: ComponentSpecFields | None,
) -> list[FieldError]:
    """Identity (context, provider, apiVersion, target) first; the value only once that holds."""
    identity = _identity_errors(po, path, ctx, scope, comp)
    if identity:
        return identity
    value_path = path.child("value")
    errors = validate_value(po.target or "", po.value, value_path)
    if scope in (SCOPE_ROLES_LEADER, SCOPE_ROLES_WORKER):
        errors += _role_minimum_errors(po.value, value_path)
    errors += _budget_errors(po.value, value_path, ctx, scope, comp)
    return errors


def _role_minimum_errors(value: Any, value_path: Path) -> list[FieldError]:
    """Role overrides carry only topology: the native minimum belongs to the component.

    A role's clique minimum follows its replicas (leader 1, worker nodeCount-1), so the
    controller rejects ``spec.minAvailable`` in a role-scope value (rule 25).
    """
    spec = value.get("spec") if isinstance(value, dict) else None
    if not isinstance(spec, dict) or "minAvailable" not in spec:
        return []
    return [forbidden(value_path.child("spec", "minAvailable"), MSG_ROLE_MIN_AVAILABLE)]


def _identity_errors(
    po: ProviderOverride,
    path: Path,
    ctx: ValidationContext,
    scope: str,
    comp: ComponentSpecFields | None,
) -> list[FieldError]:
    if not ctx.in_dgd:
        return [
            forbidden(
                path,
                "provider overrides are supported only for components embedded in a DynamoGraphDeployment",
            )
        ]
    provider = ctx.workload_provider
    if not provider:
        return [
            forbidden(
                path,
                f'requires controller-owned annotation "{KUBE_ANNOTATION_WORKLOAD_PROVIDER}" to be '
                "materialized; wait for controller adoption and retry",
            )
        ]
    if provider != WORKLOAD_PROVIDER_GROVE:
        return [
            forbidden(
                path, f'requires workload provider "{WORKLOAD_PROVIDER_GROVE}", but "{provider}" is selected'
            )
        ]
    if not po.api_version:
        return [required(path.child("apiVersion"), "is required")]
    if po.api_version != GROVE_API_VERSION:
        return [not_supported(path.child("apiVersion"), po.api_version, [GROVE_API_VERSION])]
    target, reason = expected_target(provider, po.api_version, scope, comp)
    if target is None:
        return [forbidden(path, reason)]
    if not po.target:
        return [required(path.child("target"), "must be defaulted from the provider context")]
    if po.target != target:
        return [
            invalid(path.child("target"), po.target, f'must match the provider-context target "{target}"')
        ]
    return []


def writes_grove_topology(value: Any) -> bool:
    """Whether a component/role value sets ``topologyConstraint`` (``WritesGroveTopology``)."""
    return isinstance(value, dict) and "topologyConstraint" in value


# --- value shape and ownership ---------------------------------------------------------------------


def validate_value(target: str, value: Any, value_path: Path) -> list[FieldError]:
    """``ValidateValue``: a JSON object of the target's Grove type touching only delegated fields."""
    if not isinstance(value, dict):
        return [invalid(value_path, None, "must be a JSON object")]
    shape = _grove_shape_error(target, value)
    if shape is not None:
        return [invalid(value_path, None, f"does not match the registered {target} schema: {shape}")]
    if target == TARGET_POD_CLIQUE_SET:
        return _pod_clique_set_value(value, value_path)
    if target in (TARGET_POD_CLIQUE_TEMPLATE_SPEC, TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG):
        return _component_value(target, value, value_path)
    return [invalid(value_path, None, f'target "{target}" has no registered ownership policy')]


def _reject_unknown(obj: dict[str, Any], path: Path, *allowed: str) -> list[FieldError]:
    return [forbidden(path.child(key), OWNERSHIP_VIOLATION) for key in sorted(obj) if key not in allowed]


def _required_object(
    obj: dict[str, Any], key: str, path: Path
) -> tuple[dict[str, Any] | None, list[FieldError]]:
    if key not in obj:
        return None, [invalid(path.child(key), None, "is required")]
    child = obj[key]
    if not isinstance(child, dict):
        return None, [invalid(path.child(key), None, "must be a JSON object")]
    return child, []


def _pod_clique_set_value(value: dict[str, Any], path: Path) -> list[FieldError]:
    errors = _reject_unknown(value, path, "spec")
    spec, missing = _required_object(value, "spec", path)
    if spec is None:
        return errors + missing
    spec_path = path.child("spec")
    errors += _reject_unknown(spec, spec_path, "template")
    template, missing = _required_object(spec, "template", spec_path)
    if template is None:
        return errors + missing
    template_path = spec_path.child("template")
    errors += _reject_unknown(template, template_path, "topologyConstraint")
    return errors + _required_object(template, "topologyConstraint", template_path)[1]


def _component_value(target: str, value: dict[str, Any], path: Path) -> list[FieldError]:
    """PodClique template / scaling-group config: topology, native minimum, rollout budget."""
    minimum_key = "minAvailable" if target == TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG else "spec"
    errors = _reject_unknown(value, path, "topologyConstraint", "rollingUpdate", minimum_key)
    present = [k for k in ("topologyConstraint", "rollingUpdate", minimum_key) if k in value]
    if not present:
        errors.append(invalid(path, None, "topologyConstraint, minAvailable or rollingUpdate is required"))
    if "topologyConstraint" in value and not isinstance(value["topologyConstraint"], dict):
        errors.append(invalid(path.child("topologyConstraint"), None, "must be a JSON object"))
    if minimum_key == "minAvailable" and "minAvailable" in value:
        errors += _positive_int32(value["minAvailable"], path.child("minAvailable"))
    if minimum_key == "spec" and "spec" in value:
        errors += _one_positive_int32_object(value["spec"], path.child("spec"), "minAvailable")
    if "rollingUpdate" in value:
        errors += _one_positive_int32_object(value["rollingUpdate"], path.child("rollingUpdate"), "maxUnavailable")
    return errors


def _one_positive_int32_object(value: Any, path: Path, key: str) -> list[FieldError]:
    """A JSON object whose only field, ``key``, is optional and a positive 32-bit integer."""
    if not isinstance(value, dict):
        return [invalid(path, None, "must be a JSON object")]
    errors = _reject_unknown(value, path, key)
    if key in value:
        errors += _positive_int32(value[key], path.child(key))
    return errors


def _positive_int32(raw: Any, path: Path) -> list[FieldError]:
    if raw is None:
        return [required(path, "is required")]
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= _MAX_INT32:
        return [invalid(path, None, "must be a positive 32-bit integer")]
    return []


# --- Go type decoding (json.Unmarshal into the Grove struct) ----------------------------------------

_JSON_KIND = {dict: "object", list: "array", str: "string", bool: "bool", int: "number", float: "number"}
_TOPOLOGY = (dict, "v1alpha1.TopologyConstraint", "TopologyConstraint")
_DOMAIN = (str, "v1alpha1.TopologyDomain", None)
_INT32 = (int, "int32", None)
#: The Grove structs a value decodes into: JSON key -> (JSON shape, Go type, struct of its fields).
_GROVE_STRUCTS: dict[str, dict[str, tuple[type, str, str | None]]] = {
    "PodCliqueSet": {"spec": (dict, "v1alpha1.PodCliqueSetSpec", "PodCliqueSetSpec")},
    "PodCliqueSetSpec": {"replicas": _INT32,
                         "template": (dict, "v1alpha1.PodCliqueSetTemplateSpec", "PodCliqueSetTemplateSpec")},
    "PodCliqueSetTemplateSpec": {"topologyConstraint": _TOPOLOGY},
    "PodCliqueTemplateSpec": {"topologyConstraint": _TOPOLOGY,
                              "spec": (dict, "v1alpha1.PodCliqueSpec", "PodCliqueSpec")},
    "PodCliqueSpec": {"minAvailable": _INT32},
    "PodCliqueScalingGroupConfig": {
        "topologyConstraint": _TOPOLOGY, "minAvailable": _INT32,
        "rollingUpdate": (dict, "v1alpha1.RollingUpdateConfiguration", "RollingUpdateConfiguration")},
    "RollingUpdateConfiguration": {"maxUnavailable": _INT32},
    "TopologyConstraint": {"topologyName": (str, "string", None), "packDomain": _DOMAIN,
                           "pack": (dict, "v1alpha1.TopologyPackConstraint", "TopologyPackConstraint")},
    "TopologyPackConstraint": {"required": _DOMAIN, "preferred": _DOMAIN},
}


def _grove_shape_error(target: str, value: dict[str, Any]) -> str | None:
    """The first type mismatch json.Unmarshal would report decoding ``value`` into the target's
    Grove struct, in Go's words: ``Go struct field <containing struct>.<JSON path> of type <T>``
    (``pack: "rack"`` cannot decode into a ``TopologyPackConstraint``)."""
    return _shape_walk(value, target, "")


def _shape_walk(obj: dict[str, Any], struct: str, json_path: str) -> str | None:
    fields = _GROVE_STRUCTS.get(struct, {})
    for key in sorted(obj):
        child = obj[key]
        spec = fields.get(key)
        if spec is None or child is None:
            continue
        want, go_type, child_struct = spec
        path = f"{json_path}.{key}" if json_path else key
        ok = isinstance(child, want) and not (want is int and isinstance(child, bool))
        if not ok:
            kind = _JSON_KIND.get(type(child), "value")
            return f"json: cannot unmarshal {kind} into Go struct field {struct}.{path} of type {go_type}"
        if child_struct is not None:
            nested = _shape_walk(child, child_struct, path)
            if nested is not None:
                return nested
    return None


# --- rollout budget in its component context -------------------------------------------------------


def _budget_errors(
    value: Any, value_path: Path, ctx: ValidationContext, scope: str, comp: ComponentSpecFields | None
) -> list[FieldError]:
    budget = _max_unavailable(value)
    if budget is None or budget <= 0:
        return []
    rolling_path = value_path.child("rollingUpdate")
    if scope != SCOPE_COMPONENT or comp is None:
        return [forbidden(rolling_path, "member cliques use the owning component's rollingUpdate budget")]
    errors: list[FieldError] = []
    strategy = ctx.annotations.get(KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY, "")
    replicas = comp.effective_replicas
    min_available = effective_min_available(comp)
    budget_path = rolling_path.child("maxUnavailable")
    if strategy == GROVE_UPDATE_STRATEGY_ON_DELETE:
        errors.append(forbidden(rolling_path, "must not be set when the update strategy is OnDelete"))
    if budget > replicas:
        errors.append(
            invalid(
                budget_path,
                budget,
                f"must not be greater than replicas ({replicas}); lower or remove the budget before scaling down",
            )
        )
    if strategy == GROVE_UPDATE_STRATEGY_COHERENT and budget < min_available:
        errors.append(
            invalid(
                budget_path,
                budget,
                f"must not be less than minAvailable ({min_available}) under the Coherent update strategy",
            )
        )
    return errors


def _max_unavailable(value: Any) -> int | None:
    rolling = value.get("rollingUpdate") if isinstance(value, dict) else None
    budget = rolling.get("maxUnavailable") if isinstance(rolling, dict) else None
    return budget if isinstance(budget, int) and not isinstance(budget, bool) else None


# --- update ----------------------------------------------------------------------------------------


def validate_provider_override_update(
    new: ProviderOverride | None, old: ProviderOverride | None, path: Path
) -> list[FieldError]:
    """``apiVersion`` and ``target`` are immutable for an override present before and after."""
    if new is None or old is None:
        return []
    errors: list[FieldError] = []
    if new.api_version != old.api_version:
        errors.append(invalid(path.child("apiVersion"), new.api_version, FIELD_IMMUTABLE_ERROR_MSG))
    if (new.target or "") != (old.target or ""):
        errors.append(invalid(path.child("target"), new.target or "", FIELD_IMMUTABLE_ERROR_MSG))
    return errors
