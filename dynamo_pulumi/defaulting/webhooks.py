"""The operator's mutating (defaulting) admission webhooks, as pure functions.

The API server runs these before any validation, so both validation and rendering see the
defaulted object (api-and-validation.md section 7.2/7.3). Each function returns a *new* model and
never mutates its input: nested parts that do not change are shared with the input (pod templates
may hold ``pulumi.Output`` leaves, which must not be deep-copied).

DGD, every operation:
  * component ``replicas`` nil -> 1;
  * explicit ``leader``/``worker`` roles of a multinode component: nil ``replicas`` -> 1 and
    ``nodeCount - 1``;
  * ``providerOverride.target`` filled (root, component, leader/worker roles in either spelling,
    ``roles[].providerOverride`` or ``multinode.leader|worker.providerOverride``) when the
    provider context resolves to exactly one target;
  * on the Grove provider, only for a DGD that still uses the legacy component ``minAvailable``
    somewhere (an existing legacy deployment), component ``minAvailable`` nil -> 1 where the
    component has no native minimum either. A new Grove DGD without any legacy minimum is left
    alone: the omitted native minimum resolves to 1 at render time
    (:func:`effective_min_available`) and no provider override is created (seed reference,
    ``minAvailable``).
DGD create only: annotation ``nvidia.com/workload-provider`` stamped from routing intent (a
user-supplied value is overwritten), and ``nvidia.com/dynamo-operator-origin-version`` set to the
operator version when absent. On update the provider is read from the existing annotation; when
absent it stays unselected (the controller adopts the object later).

DCD create: ``spec.name`` <- ``metadata.name`` when empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_LPX,
    GROVE_API_VERSION,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
    ROLE_LEADER,
    ROLE_WORKER,
    WORKLOAD_PROVIDER_GROVE,
)
from dynamo_pulumi.model.platform_file import default_platform

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        ComponentRoleSpec,
        ComponentSpecFields,
        DynamoComponentDeployment,
        DynamoComponentDeploymentSharedSpec,
        DynamoGraphDeployment,
        MultinodeSpec,
        ProviderOverride,
    )
    from dynamo_pulumi.platform import Platform

Operation = Literal["create", "update"]

# Provider-override contexts (``provideroverride.Scope``) and the Grove targets they resolve to.
SCOPE_ROOT = "root"
SCOPE_COMPONENT = "component"
SCOPE_ROLES_LEADER = "roles.leader"
SCOPE_ROLES_WORKER = "roles.worker"
TARGET_POD_CLIQUE_SET = "PodCliqueSet"
TARGET_POD_CLIQUE_TEMPLATE_SPEC = "PodCliqueTemplateSpec"
TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG = "PodCliqueScalingGroupConfig"
DEFAULT_MIN_AVAILABLE = 1


def role_scope(role_name: str) -> str | None:
    """The provider scope of a role, None for roles that have no provider context (LPX roles)."""
    return {ROLE_LEADER: SCOPE_ROLES_LEADER, ROLE_WORKER: SCOPE_ROLES_WORKER}.get(role_name)


def expected_target(
    provider: str | None, api_version: str, scope: str, comp: ComponentSpecFields | None
) -> tuple[str | None, str]:
    """``ExpectedTarget``: the one target a provider context allows, or (None, the reason).

    Shared by defaulting (fill an empty target) and validation (compare a given one).
    """
    if provider != WORKLOAD_PROVIDER_GROVE:
        return None, f'workload provider "{provider or ""}" does not support provider overrides'
    if api_version != GROVE_API_VERSION:
        return None, f'unsupported Grove apiVersion "{api_version}"; supported value is "{GROVE_API_VERSION}"'
    if scope == SCOPE_ROOT:
        return TARGET_POD_CLIQUE_SET, ""
    if comp is None:
        return None, f'component context is required for scope "{scope}"'
    if scope == SCOPE_COMPONENT:
        if comp.uses_pcsg or comp.type == COMPONENT_TYPE_LPX:
            return TARGET_POD_CLIQUE_SCALING_GROUP_CONFIG, ""
        return TARGET_POD_CLIQUE_TEMPLATE_SPEC, ""
    if scope in (SCOPE_ROLES_LEADER, SCOPE_ROLES_WORKER):
        if not comp.is_multinode:
            return None, f'scope "{scope}" requires a multinode component'
        if comp.is_inter_pod_gms:
            return None, f'scope "{scope}" is not supported for inter-pod GMS components'
        return TARGET_POD_CLIQUE_TEMPLATE_SPEC, ""
    return None, f'unsupported provider override scope "{scope}"'


def has_legacy_min_available(dgd: DynamoGraphDeployment) -> bool:
    """Any component still carries the deprecated ``minAvailable`` field."""
    return any(c.min_available is not None for c in dgd.components)


def native_min_available(comp: ComponentSpecFields) -> int | None:
    """The native minimum of a component's Grove provider override, when present and well-formed.

    ``minAvailable`` (scaling-group config) or ``spec.minAvailable`` (PodClique template); both owner
    shapes hold the same immutable minimum, so either is read regardless of the target.
    """
    po = comp.provider_override
    if po is None or po.api_version != GROVE_API_VERSION or not isinstance(po.value, dict):
        return None
    minimum = po.value.get("minAvailable")
    if minimum is None:
        spec = po.value.get("spec")
        minimum = spec.get("minAvailable") if isinstance(spec, dict) else None
    if isinstance(minimum, bool) or not isinstance(minimum, int):
        return None
    return minimum


def effective_min_available(comp: ComponentSpecFields) -> int:
    """The component's effective Grove minimum: legacy field, else native override value, else 1."""
    if comp.min_available is not None:
        return comp.min_available
    native = native_min_available(comp)
    return native if native is not None else DEFAULT_MIN_AVAILABLE


def default_graph(
    dgd: DynamoGraphDeployment, platform: Platform | None = None, operation: Operation = "create"
) -> DynamoGraphDeployment:
    """The DGD as the defaulting webhook would store it (input left untouched)."""
    platform = platform or default_platform()
    annotations = dict(dgd.annotations)
    provider = _default_workload_provider(dgd, platform, operation, annotations)
    if operation == "create" and KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION not in annotations:
        annotations[KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION] = platform.operator_version

    spec_update: dict[str, object] = {}
    root_po = dgd.spec.provider_override
    if root_po is not None:
        spec_update["provider_override"] = _default_target(root_po, provider, SCOPE_ROOT, None)
    if dgd.spec.components is not None:
        legacy = has_legacy_min_available(dgd)
        spec_update["components"] = [_default_component(c, provider, legacy) for c in dgd.spec.components]

    metadata = dgd.metadata
    if annotations != dgd.annotations:
        metadata = dgd.metadata.model_copy(update={"annotations": annotations})
    spec = dgd.spec.model_copy(update=spec_update) if spec_update else dgd.spec
    return dgd.model_copy(update={"metadata": metadata, "spec": spec})


def default_component_deployment(dcd: DynamoComponentDeployment) -> DynamoComponentDeployment:
    """The DCD as its defaulting webhook stores it on CREATE: ``spec.name`` from ``metadata.name``."""
    if dcd.spec.name or not dcd.name:
        return dcd.model_copy()
    spec = dcd.spec.model_copy(update={"name": dcd.name})
    return dcd.model_copy(update={"spec": spec})


def workload_provider_after_defaulting(
    dgd: DynamoGraphDeployment, platform: Platform, operation: Operation
) -> str | None:
    """The provider admission sees: intent on create, the stored annotation on update (or None)."""
    if operation == "create":
        # Late: importing the render package here would load the whole renderer into
        # ``validate`` (about 40 ms of start-up for one pure function).
        from dynamo_pulumi.defaulting.pathway import provider_from_intent

        return str(provider_from_intent(dgd, platform))
    return dgd.annotations.get(KUBE_ANNOTATION_WORKLOAD_PROVIDER)


# --- helpers --------------------------------------------------------------------------------------


def _default_workload_provider(
    dgd: DynamoGraphDeployment, platform: Platform, operation: Operation, annotations: dict[str, str]
) -> str | None:
    """Select the provider; on create also stamp it into ``annotations`` (overwriting the user's)."""
    provider = workload_provider_after_defaulting(dgd, platform, operation)
    if operation == "create" and provider is not None:
        annotations[KUBE_ANNOTATION_WORKLOAD_PROVIDER] = provider
    return provider


def _default_component(
    comp: DynamoComponentDeploymentSharedSpec, provider: str | None, legacy_minimum: bool
) -> DynamoComponentDeploymentSharedSpec:
    update: dict[str, object] = {}
    if comp.replicas is None:
        update["replicas"] = 1
    if (
        legacy_minimum
        and provider == WORKLOAD_PROVIDER_GROVE
        and comp.min_available is None
        and native_min_available(comp) is None
    ):
        update["min_available"] = DEFAULT_MIN_AVAILABLE
    if comp.provider_override is not None:
        po = _default_target(comp.provider_override, provider, SCOPE_COMPONENT, comp)
        if po is not comp.provider_override:
            update["provider_override"] = po
    if comp.roles is not None:
        roles = [_default_role(r, comp, provider) for r in comp.roles]
        if any(new is not old for new, old in zip(roles, comp.roles, strict=True)):
            update["roles"] = roles
    if comp.multinode is not None:
        multinode = _default_multinode_roles(comp.multinode, comp, provider)
        if multinode is not comp.multinode:
            update["multinode"] = multinode
    return comp.model_copy(update=update) if update else comp


def _default_multinode_roles(
    multinode: MultinodeSpec, comp: ComponentSpecFields, provider: str | None
) -> MultinodeSpec:
    """The provider-override target of ``multinode.leader|worker`` (the snapshot's role spelling)."""
    update: dict[str, object] = {}
    for role in (ROLE_LEADER, ROLE_WORKER):
        spec = getattr(multinode, role)
        scope = role_scope(role)
        if spec is None or spec.provider_override is None or scope is None:
            continue
        po = _default_target(spec.provider_override, provider, scope, comp)
        if po is not spec.provider_override:
            update[role] = spec.model_copy(update={"provider_override": po})
    return multinode.model_copy(update=update) if update else multinode


def _default_role(
    role: ComponentRoleSpec, comp: ComponentSpecFields, provider: str | None
) -> ComponentRoleSpec:
    """Role replicas (multinode leader/worker only) and the role's provider-override target."""
    update: dict[str, object] = {}
    if comp.multinode is not None and role.replicas is None:
        if role.name == ROLE_LEADER:
            update["replicas"] = 1
        elif role.name == ROLE_WORKER:
            update["replicas"] = comp.number_of_nodes - 1
    scope = role_scope(role.name)
    if role.provider_override is not None and scope is not None:
        po = _default_target(role.provider_override, provider, scope, comp)
        if po is not role.provider_override:
            update["provider_override"] = po
    return role.model_copy(update=update) if update else role


def _default_target(
    po: ProviderOverride, provider: str | None, scope: str, comp: ComponentSpecFields | None
) -> ProviderOverride:
    """``DefaultTarget``: keep an explicit target; fill it only when the context is unambiguous."""
    if po.target:
        return po
    target, _reason = expected_target(provider, po.api_version, scope, comp)
    if target is None:
        return po
    return po.model_copy(update={"target": target})
