"""PodClique templates (rendering-grove sections 2.3-2.4 and 2.8).

A clique is one role of one component: name and ``roleName`` are the lower-cased role name, the
pod spec comes from the shared pod assembly (plus the GMS/failover transforms), labels and
annotations from :mod:`.metadata`.

minAvailable, in order: 1; the component's effective minimum for standalone cliques (a scaling
group carries it instead); the role's replicas for multinode cliques unless inter-pod failover is
on (every leader/worker rank must be up for collectives, while failover shadows may be missing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.render.grove.provider_overrides import effective_min_available
from dynamo_pulumi.render.grove.roles import ServiceRole, is_inter_pod_failover
from dynamo_pulumi.render.grove.topology import component_topology_constraint

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields, SpecTopologyConstraint


def clique_min_available(component: ComponentSpecFields, role: ServiceRole) -> int:
    """The clique's ``minAvailable`` per the rules above."""
    minimum = 1
    if not component.uses_pcsg:
        minimum = effective_min_available(component)
    if component.is_multinode and not is_inter_pod_failover(component):
        minimum = role.replicas
    return minimum


def build_clique(
    component: ComponentSpecFields,
    role: ServiceRole,
    pod_spec: dict[str, Any],
    labels: dict[str, Any],
    annotations: dict[str, Any],
    spec_topology: SpecTopologyConstraint | None,
    *,
    gated: bool = False,
) -> dict[str, Any]:
    """One ``spec.template.cliques`` entry; ``gated`` holds non-GMS replicas at 0."""
    clique: dict[str, Any] = {"name": role.clique_name}
    if labels:
        clique["labels"] = labels
    if annotations:
        clique["annotations"] = annotations
    if not component.uses_pcsg:
        topology = component_topology_constraint(component.topology_constraint, spec_topology)
        if topology is not None:
            clique["topologyConstraint"] = topology
    clique["spec"] = {
        "roleName": role.clique_name,
        "replicas": 0 if gated and not role.is_gms else role.replicas,
        "minAvailable": clique_min_available(component, role),
        "podSpec": pod_spec,
    }
    return clique
