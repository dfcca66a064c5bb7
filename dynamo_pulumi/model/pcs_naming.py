"""Grove PodCliqueSet and PodClique names, with the operator's 45-character budget.

Grove builds pod names from ``<pcs>-<replica>-<pcsg>-<replica>-<clique>-<suffix>``, so the
operator caps ``len(pcs) + len(component) (+ len(longest clique) for scaling groups)`` at 45
(``MaxCombinedGroveResourceNameLength``). The PCS name is the DGD name, or — when the longest
component would overflow the budget — a prefix of it plus ``-`` and four hex digits of its
FNV-1a hash (``PCSNameForDGD``, ERRATA 2.5 and 1.19). Clique names follow the role expansion the
Grove renderer uses (``expandRolesForComponent``), lower-cased as rendered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from dynamo_pulumi.floor.constants import (
    GROVE_ROLE_SUFFIX_GMS,
    GROVE_ROLE_SUFFIX_LEADER,
    GROVE_ROLE_SUFFIX_WORKER,
    MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH,
)
from dynamo_pulumi.floor.naming import fnv_suffix

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        ComponentSpecFields,
        DynamoComponentDeploymentSharedSpec,
        DynamoGraphDeployment,
    )

#: The PCS name is never truncated below this many characters (``minPCSNameLength``).
MIN_PCS_NAME_LENGTH = 8


def role_names(name: str, comp: ComponentSpecFields) -> list[str]:
    """Rendered role names in the operator's order, with the component name's original case."""
    nodes = comp.number_of_nodes
    if nodes > 1 and comp.is_inter_pod_gms:
        names: list[str] = []
        for rank in range(nodes):
            names.append(f"{name}-{GROVE_ROLE_SUFFIX_GMS}-{rank}")
            engine = (
                f"{name}-{GROVE_ROLE_SUFFIX_LEADER}"
                if rank == 0
                else f"{name}-{GROVE_ROLE_SUFFIX_WORKER}-{rank}"
            )
            names.append(engine)
        return names
    if nodes > 1:
        return [f"{name}-{GROVE_ROLE_SUFFIX_LEADER}", f"{name}-{GROVE_ROLE_SUFFIX_WORKER}"]
    if comp.is_inter_pod_gms:
        return [f"{name}-{GROVE_ROLE_SUFFIX_GMS}-0", name]
    return [name]


def pod_clique_names(component: DynamoComponentDeploymentSharedSpec) -> list[str]:
    """The PodClique names a DGD component renders to, lower-cased, in rendering order."""
    return [n.lower() for n in role_names(component.name, component)]


def longest_pod_clique_name(component: DynamoComponentDeploymentSharedSpec) -> str:
    """``LongestPodCliqueNameForDGDComponent``: the component name unless it uses a scaling group."""
    lower = component.name.lower()
    if not component.uses_pcsg:
        return lower
    longest = lower
    for name in pod_clique_names(component):
        if len(name) > len(longest):
            longest = name
    return longest


def component_name_budget(component: DynamoComponentDeploymentSharedSpec) -> int:
    """Characters a component adds to its pod names: clique only, or PCSG plus longest clique."""
    lower = component.name.lower()
    if component.uses_pcsg:
        return len(lower) + len(longest_pod_clique_name(component))
    return len(lower)


def pcs_name(dgd_name: str, components: Iterable[DynamoComponentDeploymentSharedSpec]) -> str:
    """``PCSNameForDGD``: the DGD name, or a hash-suffixed prefix when a component would not fit."""
    widest = max((component_name_budget(c) for c in components), default=0)
    budget = max(MAX_COMBINED_GROVE_RESOURCE_NAME_LENGTH - widest, MIN_PCS_NAME_LENGTH)
    if len(dgd_name) <= budget:
        return dgd_name
    return f"{dgd_name[: budget - 5]}-{fnv_suffix(dgd_name)}"


def pcs_name_for_dgd(dgd: DynamoGraphDeployment) -> str:
    """The PodCliqueSet name the operator gives this graph."""
    return pcs_name(dgd.name, dgd.components)


def combined_name_length(pcs: str, component: DynamoComponentDeploymentSharedSpec) -> int:
    """What rule 17 measures: ``len(pcs) + len(lower(name))`` (+ longest clique for PCSG shapes)."""
    length = len(pcs) + len(component.name.lower())
    if component.uses_pcsg:
        length += len(longest_pod_clique_name(component))
    return length


def grove_component_resource_name(pcs_name: str, component: str) -> str:
    """``GroveComponentResourceName``: ``<pcs>-0-<lower(component)>``, the PodClique or
    PodCliqueScalingGroup that readiness and scaling read for a component (replica index 0)."""
    return f"{pcs_name}-0-{component.lower()}"
