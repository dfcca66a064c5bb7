"""Clique startup ordering (``startsAfter``, rendering-grove section 2.6).

Only two layouts order their cliques: inter-pod GMS (every engine clique waits for the GMS
weight server of its rank) and TRT-LLM multinode (the leader runs ``mpirun`` over ssh, so it waits
for every worker clique). The vLLM/SGLang "worker after leader" rule in the operator is
unreachable and therefore not rendered. One ordered clique flips the whole PCS to
``CliqueStartupTypeExplicit``.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import BACKEND_FRAMEWORK_TRTLLM
from dynamo_pulumi.render.grove.roles import ServiceRole

CLIQUE_STARTUP_TYPE_ANY_ORDER = "CliqueStartupTypeAnyOrder"
CLIQUE_STARTUP_TYPE_EXPLICIT = "CliqueStartupTypeExplicit"


def startup_dependencies(
    roles: list[ServiceRole], backend: str, number_of_nodes: int, inter_pod_gms: bool
) -> dict[str, list[str]]:
    """clique name -> the cliques it starts after (only cliques with dependencies appear)."""
    trtllm_multinode = backend == BACKEND_FRAMEWORK_TRTLLM and number_of_nodes > 1
    if not trtllm_multinode and not inter_pod_gms:
        return {}
    gms_by_rank = {r.rank: r.clique_name for r in roles if r.is_gms}
    workers = [r.clique_name for r in roles if r.role == "worker"]
    deps: dict[str, list[str]] = {}
    for role in roles:
        after: list[str] = []
        if inter_pod_gms and not role.is_gms and role.rank in gms_by_rank:
            after.append(gms_by_rank[role.rank])
        if trtllm_multinode and role.role == "leader":
            after.extend(workers)
        if after:
            deps[role.clique_name] = after
    return deps


def apply_startup_dependencies(cliques: list[dict[str, Any]], deps: dict[str, list[str]]) -> bool:
    """Set ``spec.startsAfter`` on the named cliques; True when any clique got dependencies."""
    applied = False
    for clique in cliques:
        after = deps.get(clique["name"])
        if after:
            clique["spec"]["startsAfter"] = list(after)
            applied = True
    return applied
