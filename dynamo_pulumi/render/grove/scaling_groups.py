"""PodCliqueScalingGroup configs (rendering-grove section 2.5).

A component that uses a scaling group (multinode, inter-pod GMS, or a forced group) scales as a
unit: the PCSG carries the component's replicas and minimum, and its cliques keep their per-rank
pod counts. Inter-pod GMS adds per-replica sharing of each rank's GPU claim.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.render.grove.gms import resource_sharing_entries
from dynamo_pulumi.render.grove.provider_overrides import effective_min_available
from dynamo_pulumi.render.grove.roles import ServiceRole
from dynamo_pulumi.render.grove.topology import component_topology_constraint

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields, SpecTopologyConstraint


def build_scaling_group(
    name: str,
    component: ComponentSpecFields,
    roles: list[ServiceRole],
    spec_topology: SpecTopologyConstraint | None,
    *,
    gated: bool = False,
) -> dict[str, Any]:
    """One ``podCliqueScalingGroups`` entry; ``gated`` holds replicas at 0 (checkpoint wait)."""
    group: dict[str, Any] = {
        "name": name.lower(),
        "cliqueNames": [r.clique_name for r in roles],
    }
    replicas = 0 if gated else component.replicas
    if replicas is not None:
        group["replicas"] = replicas
    group["minAvailable"] = effective_min_available(component)
    topology = component_topology_constraint(component.topology_constraint, spec_topology)
    if topology is not None:
        group["topologyConstraint"] = topology
    if component.is_inter_pod_gms:
        group["resourceSharing"] = resource_sharing_entries(name, roles)
    return group
