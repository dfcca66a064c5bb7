"""The immutable identity of a DGD or DCD: every value the operator's update webhook (and the CRD's
transition CEL) refuses to change in place, keyed by the rule that freezes it.

In operator mode the custom resource is registered with a ``replacement_trigger`` computed from
this identity, so Pulumi replaces the DGD exactly when the webhook would refuse the update
(components added or removed, a type, multinode presence or node count, topology, backend,
kvTransferPolicy, ...) and updates it in place for everything else (images, env, replicas).
The identity is a flat mapping ``rule -> canonical value``: when the trigger changes, the
changed key names the rule that forced the replacement.

Values are taken as the webhook compares them: effective values (``minAvailable`` falls back to
the override's minimum, then 1; ``forceScalingGroup`` nil is false; explicit roles equal to the
implicit leader/worker model count as implicit), provider-override targets after defaulting.

Rules whose refusal depends on more than the new object cannot be matched by a pure function of
it; they lean towards replacing (never an in-place update the webhook refuses):

* "immutable once set" (component ``type``, a DCD's ``minAvailable``, the workload-provider
  annotation, an override's ``apiVersion``/``target``): setting a value that was absent also
  changes the identity, so it replaces although the webhook would accept it;
* ``restart.id`` is frozen only while a rolling update is in flight (cluster state): not part of
  the identity; the webhook's refusal surfaces at apply and the next run succeeds;
* ``replicas`` of a component with a ``scalingAdapter``: never sent (``ignore_changes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.v1beta1_helpers import GraphHelpers
from dynamo_pulumi.defaulting.webhooks import default_graph, effective_min_available
from dynamo_pulumi.errors import Path
from dynamo_pulumi.floor.constants import COMPONENT_TYPE_LPX, KUBE_ANNOTATION_WORKLOAD_PROVIDER
from dynamo_pulumi.floor.expansion import canonical_json
from dynamo_pulumi.validation.gms import effective_num_shadows, is_inter_pod_failover, is_inter_pod_gms
from dynamo_pulumi.validation.power import gpu_product, main_gpu_count, power_limit
from dynamo_pulumi.validation.roles import (
    MULTINODE_ROLES,
    explicit_roles_match_implicit,
    multinode_role_override,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        ComponentSpecFields,
        DynamoComponentDeployment,
        DynamoGraphDeployment,
    )
    from dynamo_pulumi.platform import Platform

Identity = dict[str, str]


def _override_key(override: Any) -> list[str] | None:
    if override is None:
        return None
    return [override.api_version or "", override.target or ""]


def _roles_key(comp: ComponentSpecFields) -> Any:
    """The resolved role model (rule 29): implicit, or the explicit role names."""
    if comp.roles is None or (comp.multinode is not None and explicit_roles_match_implicit(comp)):
        return "implicit"
    return sorted(role.name for role in comp.roles)


def _role_overrides(comp: ComponentSpecFields) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for role in comp.roles or []:
        key = _override_key(role.provider_override)
        if key is not None:
            found[role.name] = key
    for role in MULTINODE_ROLES:
        key = _override_key(multinode_role_override(comp, role))
        if key is not None:
            found[f"multinode.{role}"] = key
    return found


def _gms_key(comp: ComponentSpecFields) -> dict[str, Any]:
    failover = comp.failover
    inter_pod_failover = is_inter_pod_failover(failover)
    return {
        "interPodGms": is_inter_pod_gms(comp.gms),
        "interPodFailover": inter_pod_failover,
        "numShadows": effective_num_shadows(failover) if failover is not None and inter_pod_failover else None,
    }


def _power_key(comp: ComponentSpecFields) -> Any:
    """Rule 31: the power-limit annotation; while set, GPU count, GPU product and node count."""
    limit = power_limit(comp)
    if limit is None:
        return None
    gpus, _ = main_gpu_count(comp, Path("spec"))  # the path only matters for messages
    return {"limit": limit, "gpus": None if gpus is None else str(gpus), "product": gpu_product(comp),
            "nodes": comp.number_of_nodes}


def component_identity(comp: ComponentSpecFields, prefix: str, in_dgd: bool) -> Identity:
    """The frozen values of one component (shared-spec update rules), each under ``prefix``."""
    topology = comp.topology_constraint
    values: dict[str, Any] = {
        "type (immutable once set)": comp.type,
        "LPX vs non-LPX": comp.type == COMPONENT_TYPE_LPX,
        "single-node vs multi-node": comp.is_multinode,
        "multinode.nodeCount": comp.multinode.effective_node_count if comp.multinode is not None else None,
        "role names / implicit vs explicit roles": _roles_key(comp),
        "topologyConstraint": topology.pack_domain if topology is not None else None,
        "inter-pod GMS layout, failover, numShadows": _gms_key(comp),
        "experimental.grove.forceScalingGroup": comp.is_scaling_group_forced,
        "providerOverride apiVersion/target": _override_key(comp.provider_override),
        "role providerOverride apiVersion/target": _role_overrides(comp),
        "minAvailable": effective_min_available(comp) if in_dgd else comp.min_available,
    }
    if in_dgd:
        values["GPU power limit (and GPUs, product, nodes while set)"] = _power_key(comp)
    return {f"{prefix}{rule}": canonical_json(value) for rule, value in values.items()}


def graph_identity(
    dgd: DynamoGraphDeployment, platform: Platform | None = None, stored: DynamoGraphDeployment | None = None
) -> Identity:
    """Every value a DGD update may not change, rule by rule (``stored``: ``dgd`` as create
    admission already defaulted it)."""
    stored = stored if stored is not None else default_graph(dgd, platform, "create")
    policy = stored.spec.experimental.kv_transfer_policy if stored.spec.experimental is not None else None
    topology = stored.spec.topology_constraint
    identity: Identity = {
        "spec.components (names; none added or removed)": canonical_json(sorted(c.name for c in stored.components)),
        "spec.backendFramework": canonical_json(stored.spec.backend_framework or ""),
        "spec.topologyConstraint": canonical_json(
            None if topology is None else [topology.cluster_topology_name or "", topology.pack_domain or ""]
        ),
        "spec.experimental.kvTransferPolicy": canonical_json(
            None if policy is None else [policy.cluster_topology_name or "", policy.label_key or "", policy.domain,
                                         policy.effective_enforcement, policy.preferred_weight]
        ),
        "spec.providerOverride apiVersion/target": canonical_json(_override_key(stored.spec.provider_override)),
        # Only what the user wrote: the operator materialises it on create and keeps it.
        f"metadata.annotations[{KUBE_ANNOTATION_WORKLOAD_PROVIDER}]": canonical_json(
            dgd.annotations.get(KUBE_ANNOTATION_WORKLOAD_PROVIDER)
        ),
    }
    for comp in sorted(stored.components, key=lambda c: c.name):
        identity.update(component_identity(comp, f"spec.components[{comp.name}] ", in_dgd=True))
    return identity


def component_deployment_identity(dcd: DynamoComponentDeployment) -> Identity:
    """Every value a DCD update may not change."""
    identity: Identity = {"spec.backendFramework": canonical_json(dcd.spec.backend_framework or "")}
    identity.update(component_identity(dcd.spec, "spec ", in_dgd=False))
    return identity


def identity_of(
    graph: DynamoGraphDeployment | DynamoComponentDeployment, platform: Platform | None = None, stored: Any = None
) -> Identity:
    if isinstance(graph, GraphHelpers):
        return graph_identity(graph, platform, stored)  # type: ignore[arg-type]
    return component_deployment_identity(graph)  # type: ignore[arg-type]


def changed_rules(before: Identity, after: Identity) -> list[str]:
    """The rules whose frozen value differs between two identities, in a stable order. A component
    on one side only is reported once, by the component-set rule, not by each of its own rules."""
    common = sorted(key for key in set(before) & set(after) if before[key] != after[key])
    one_sided = sorted(k for k in set(before) ^ set(after) if not k.startswith(_COMPONENT_PREFIX))
    return common + one_sided


_COMPONENT_PREFIX = "spec.components["
