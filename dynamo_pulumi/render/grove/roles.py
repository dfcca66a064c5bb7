"""Role expansion: which PodCliques one component becomes (rendering-grove section 2.3).

This is the single place that decides how many cliques a component produces, their names,
replica counts and static ranks (``expandRolesForComponent``). Everything else in the Grove
pathway iterates over the returned :class:`ServiceRole` list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from dynamo_pulumi.floor.constants import (
    GROVE_ROLE_SUFFIX_GMS,
    GROVE_ROLE_SUFFIX_LEADER,
    GROVE_ROLE_SUFFIX_WORKER,
)
from dynamo_pulumi.floor.records import record

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields

RoleKind = Literal["main", "leader", "worker", "gms"]
ROLE_GMS: RoleKind = "gms"


@record
class ServiceRole:
    """One clique of a component: name (original case), role, replicas and node rank."""

    name: str
    role: RoleKind
    replicas: int
    rank: int = 0

    @property
    def clique_name(self) -> str:
        """Grove clique names are the lower-cased role names."""
        return self.name.lower()

    @property
    def is_gms(self) -> bool:
        return self.role == ROLE_GMS


def num_shadows(component: ComponentSpecFields) -> int:
    """``GetNumShadows``: hot spares exist only with inter-pod failover (at least one)."""
    failover = component.failover
    if failover is None or failover.effective_mode != "InterPod":
        return 0
    return max(1, failover.num_shadows or 0)


def is_inter_pod_failover(component: ComponentSpecFields) -> bool:
    failover = component.failover
    return failover is not None and failover.effective_mode == "InterPod"


def total_engine_pods(component: ComponentSpecFields) -> int:
    """``GetTotalEnginePods``: the primary engine plus its shadows."""
    return 1 + num_shadows(component)


def expand_roles(name: str, component: ComponentSpecFields) -> list[ServiceRole]:
    """The component's cliques in rendering order (gms/engine interleaved per rank)."""
    nodes = component.number_of_nodes
    engines = total_engine_pods(component)
    if nodes > 1 and component.is_inter_pod_gms:
        roles: list[ServiceRole] = []
        for rank in range(nodes):
            roles.append(ServiceRole(f"{name}-{GROVE_ROLE_SUFFIX_GMS}-{rank}", "gms", 1, rank))
            if rank == 0:
                roles.append(ServiceRole(f"{name}-{GROVE_ROLE_SUFFIX_LEADER}", "leader", engines, 0))
            else:
                roles.append(ServiceRole(f"{name}-{GROVE_ROLE_SUFFIX_WORKER}-{rank}", "worker", engines, rank))
        return roles
    if nodes > 1:
        return [
            ServiceRole(f"{name}-{GROVE_ROLE_SUFFIX_LEADER}", "leader", 1),
            ServiceRole(f"{name}-{GROVE_ROLE_SUFFIX_WORKER}", "worker", nodes - 1),
        ]
    if component.is_inter_pod_gms:
        return [
            ServiceRole(f"{name}-{GROVE_ROLE_SUFFIX_GMS}-0", "gms", 1, 0),
            ServiceRole(name, "main", engines, 0),
        ]
    if component.is_scaling_group_forced:
        return [ServiceRole(name, "main", 1)]
    return [ServiceRole(name, "main", component.effective_replicas)]
