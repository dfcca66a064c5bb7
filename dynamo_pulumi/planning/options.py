"""Replacement and ignore rules, as data shared by the Pulumi layer and the offline diff.

Two sources of "this change cannot be applied in place" exist (readiness-lifecycle.md A7, B3):

* the pulumi-kubernetes provider's own force-new list for built-in kinds (Deployment selector,
  Service clusterIP, ConfigMap data, RoleBinding roleRef, ...). The provider already replaces on
  these, so we only need them to *predict* replacements in ``dynamo-pulumi diff``;
* fields the cluster refuses to change but the provider knows nothing about: Grove PodCliqueSet
  composition, ``minAvailable``, ``startsAfter``; ``ResourceClaimTemplate.spec``; the
  LeaderWorkerSet group size. These are turned into ``replace_on_changes`` on the resource, and
  for objects with a fixed name into ``delete_before_replace`` too (the replacement cannot exist
  beside the old object under the same name); a hash-named worker object is replaced under a
  new name and created first (:func:`deletes_first`).

Paths use Pulumi's property-path syntax (``a.b[*].c``), which the engine matches against its
detailed diff and :mod:`dynamo_pulumi.diff.diffing` matches the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.floor.constants import GROVE_API_VERSION, KUBE_LABEL_DYNAMO_COMPONENT, LWS_API_VERSION
from dynamo_pulumi.floor.records import record

if TYPE_CHECKING:
    from dynamo_pulumi.planning.plan import ComponentPlan, GraphPlan, PlannedObject

#: Changing either always replaces any object (the provider's rule for every kind).
IDENTITY_PATHS: tuple[str, ...] = ("metadata.name", "metadata.namespace")


@record
class KindRules:
    """What cannot change in place for one kind, and who enforces it."""

    #: Paths the provider already force-replaces on (built-in kinds only).
    provider_force_new: tuple[str, ...] = ()
    #: Paths we add as ``replace_on_changes`` (the cluster rejects in-place updates of them).
    replace_on_changes: tuple[str, ...] = ()
    #: Why a change under these paths needs a replacement (shown by ``diff``).
    reason: str = ""

    @property
    def immutable_paths(self) -> tuple[str, ...]:
        return self.provider_force_new + self.replace_on_changes


_CLIQUE = "spec.template.cliques[*]"
_PCSG = "spec.template.podCliqueScalingGroups[*]"

#: (apiVersion, kind) -> rules. Unlisted kinds change in place (except identity paths).
RULES: dict[tuple[str, str], KindRules] = {
    ("apps/v1", "Deployment"): KindRules(
        provider_force_new=("spec.selector",),
        reason="Deployment spec.selector is immutable",
    ),
    ("apps/v1", "StatefulSet"): KindRules(
        provider_force_new=(
            "spec.selector",
            "spec.serviceName",
            "spec.podManagementPolicy",
            "spec.revisionHistoryLimit",
            "spec.volumeClaimTemplates",
        ),
        reason="StatefulSet selector/serviceName/volumeClaimTemplates are immutable",
    ),
    ("v1", "Service"): KindRules(
        provider_force_new=("spec.clusterIP",),
        reason="Service spec.clusterIP is immutable",
    ),
    ("v1", "ConfigMap"): KindRules(
        provider_force_new=("data", "binaryData"),
        reason="pulumi-kubernetes treats ConfigMap data as immutable (enableConfigMapMutable is off)",
    ),
    ("v1", "Secret"): KindRules(
        provider_force_new=("type", "data", "stringData"),
        reason="pulumi-kubernetes treats Secret data as immutable (enableSecretMutable is off)",
    ),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): KindRules(
        provider_force_new=("roleRef",), reason="RoleBinding roleRef is immutable"
    ),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): KindRules(
        provider_force_new=("roleRef",), reason="ClusterRoleBinding roleRef is immutable"
    ),
    ("v1", "PersistentVolumeClaim"): KindRules(
        provider_force_new=("spec.accessModes", "spec.selector", "spec.storageClassName", "spec.volumeName"),
        reason="PersistentVolumeClaim spec fields are immutable",
    ),
    ("resource.k8s.io/v1", "ResourceClaimTemplate"): KindRules(
        replace_on_changes=("spec",), reason="ResourceClaimTemplate spec is wholly immutable"
    ),
    ("resource.k8s.io/v1beta1", "ResourceClaimTemplate"): KindRules(
        replace_on_changes=("spec",), reason="ResourceClaimTemplate spec is wholly immutable"
    ),
    ("resource.k8s.io/v1beta2", "ResourceClaimTemplate"): KindRules(
        replace_on_changes=("spec",), reason="ResourceClaimTemplate spec is wholly immutable"
    ),
    (LWS_API_VERSION, "LeaderWorkerSet"): KindRules(
        replace_on_changes=("spec.leaderWorkerTemplate.size",),
        reason="LeaderWorkerSet group size is immutable",
    ),
    (GROVE_API_VERSION, "PodCliqueSet"): KindRules(
        replace_on_changes=(
            "spec.template.cliqueStartupType",
            f"{_CLIQUE}.name",
            f"{_CLIQUE}.spec.roleName",
            f"{_CLIQUE}.spec.minAvailable",
            f"{_CLIQUE}.spec.startsAfter",
            f"{_CLIQUE}.spec.podSpec.schedulerName",
            f"{_CLIQUE}.resourceSharing",
            f"{_PCSG}.name",
            f"{_PCSG}.cliqueNames",
            f"{_PCSG}.minAvailable",
            f"{_PCSG}.resourceSharing",
            "spec.template.resourceClaimTemplates",
            "spec.template.resourceSharing",
            "spec.template.topologyConstraint",
        ),
        reason="Grove refuses in-place changes to clique composition, minAvailable and startsAfter",
    ),
}


def rules_for(api_version: str, kind: str) -> KindRules:
    return RULES.get((api_version, kind), KindRules())


def replace_on_changes(api_version: str, kind: str) -> list[str]:
    """The ``replace_on_changes`` we put on a resource of this kind."""
    return list(rules_for(api_version, kind).replace_on_changes)


def delete_before_replace(api_version: str, kind: str) -> bool:
    """Fixed operator names: a replacement must delete first, or the create collides."""
    return bool(rules_for(api_version, kind).replace_on_changes)


def deletes_first(planned: PlannedObject) -> bool:
    """The ``delete_before_replace`` option of one object: only a fixed-name object of a kind we
    add replace rules for.

    The option overrides the provider's choice for *every* replacement of the resource (the
    engine's step generator prefers ``goal.DeleteBeforeReplace`` over the provider's diff). A
    hash-named worker LeaderWorkerSet (or claim template) is replaced because its name changes
    with the worker generation, and everything that forces a replace (the group size) is part of
    that hash, so the new object can exist beside the old one: left to the provider it is created
    first and the old one deleted after the readiness resource saw the new one ready. Setting the
    option there would delete the serving generation first.
    """
    return delete_before_replace(planned.api_version, planned.kind) and not planned.generation_named


# --- ignore rules -----------------------------------------------------------------------------------

#: Where a workload kind keeps its replica count (ignored when an autoscaler owns it); the
#: scaling adapter's own count is seeded from the component at create, then scaled through its
#: scale subresource.
REPLICA_PATHS: dict[str, str] = {
    "Deployment": "spec.replicas",
    "StatefulSet": "spec.replicas",
    "LeaderWorkerSet": "spec.replicas",
    "DynamoGraphDeploymentScalingAdapter": "spec.replicas",
}


def scaled_pcs_paths(pcs: dict, component: str) -> list[str]:
    """The replica paths of one component inside a PodCliqueSet (clique or scaling group)."""
    template = (pcs.get("spec") or {}).get("template") or {}
    paths: list[str] = []
    lower = component.lower()
    for i, group in enumerate(template.get("podCliqueScalingGroups") or []):
        if group.get("name") == lower:
            paths.append(f"spec.template.podCliqueScalingGroups[{i}].replicas")
    if paths:
        return paths
    for i, clique in enumerate(template.get("cliques") or []):
        labels = clique.get("labels") or {}
        if labels.get(KUBE_LABEL_DYNAMO_COMPONENT) == component or clique.get("name") == lower:
            paths.append(f"spec.template.cliques[{i}].spec.replicas")
    return paths


def ignore_changes(planned: PlannedObject, plan: GraphPlan, owner: ComponentPlan | None) -> list[str]:
    """``ignore_changes`` for one object: with a scaling adapter an autoscaler (DGDSA, HPA,
    planner) owns the replicas, so Pulumi must neither send nor diff them."""
    if owner is not None:
        if owner.scaling_adapter and planned.kind in REPLICA_PATHS:
            return [REPLICA_PATHS[planned.kind]]
        return []
    if planned.kind != "PodCliqueSet":
        return []
    paths: list[str] = []
    for component in plan.components:
        if component.scaling_adapter:
            paths.extend(scaled_pcs_paths(planned.obj, component.name))
    return paths
