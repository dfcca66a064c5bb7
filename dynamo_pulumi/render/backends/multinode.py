"""How a multinode role reaches its leader: the operator's ``MultinodeDeployer``.

Two orchestrators place multinode pods, and each exposes the leader and the pod's rank through
different variables:

* LeaderWorkerSet sets ``LWS_LEADER_ADDRESS`` and ``LWS_WORKER_INDEX``; the kubelet expands the
  ``$(VAR)`` forms in command/args, so no shell is needed for the rank. Worker host names are not
  exposed, so they are derived from the leader address inside a shell (``sed``), and pods start
  together, so launchers wait for DNS.
* Grove publishes PCSG name/index, the headless Service and the pod index; host names are
  spelled out from the clique names, and the worker rank is shell arithmetic on the pod index
  (unless the inter-pod GMS layout gives each rank its own clique, when the rank is static).

The wiring is computed once per (component, role) and handed to the backends as data.
"""

from __future__ import annotations

from dynamo_pulumi.floor.constants import GROVE_ROLE_SUFFIX_LEADER, GROVE_ROLE_SUFFIX_WORKER
from dynamo_pulumi.floor.records import record

LWS_LEADER_ADDRESS: str = "$(LWS_LEADER_ADDRESS)"
LWS_WORKER_INDEX: str = "$(LWS_WORKER_INDEX)"
GROVE_WORKER_NODE_RANK: str = "$((GROVE_PCLQ_POD_INDEX + 1))"
_GROVE_PREFIX: str = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)"
_GROVE_SUFFIX: str = "$(GROVE_HEADLESS_SERVICE)"
_GROVE_POD_INDEX: str = "$(GROVE_PCLQ_POD_INDEX)"


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class MultinodeWiring:
    """Leader address, every node's host name, this pod's rank and launch requirements.

    ``host_names[0]`` is the leader. ``node_rank`` is the worker's rank expression (leaders always
    use ``"0"``); ``rank_needs_shell`` says whether that expression is shell syntax that only a
    ``sh -c`` wrapper can evaluate. ``needs_dns_wait`` asks launchers that contact every host
    (TRT-LLM's mpirun) to wait until the worker names resolve.
    """

    kind: str
    leader_host: str
    host_names: tuple[str, ...]
    node_rank: str
    rank_needs_shell: bool
    needs_dns_wait: bool


def lws_wiring(number_of_nodes: int) -> MultinodeWiring:
    """LeaderWorkerSet wiring (``LWSMultinodeDeployer``).

    Worker hosts are ``<leader>`` with ``-<i>`` spliced in before the first dot, computed by the
    shell at runtime, because LWS exposes only the leader's address.
    """
    hosts = [LWS_LEADER_ADDRESS]
    hosts += [
        f"$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-{i}\\./')" for i in range(1, number_of_nodes)
    ]
    return MultinodeWiring(
        kind="lws",
        leader_host=LWS_LEADER_ADDRESS,
        host_names=tuple(hosts),
        node_rank=LWS_WORKER_INDEX,
        rank_needs_shell=False,
        needs_dns_wait=True,
    )


def grove_wiring(
    component_name: str,
    number_of_nodes: int,
    *,
    inter_pod_gms: bool = False,
    rank: int = 0,
) -> MultinodeWiring:
    """Grove wiring (``GroveMultinodeDeployer``) for component ``component_name``.

    Default layout: one leader clique (``<c>-ldr``, pod 0) and one worker clique (``<c>-wkr``) whose
    pod ``i`` is node ``i + 1``. Inter-pod GMS layout: one clique per rank, replicated per engine
    group, so hosts carry the pod index and ``rank`` is fixed per clique.
    """
    name = component_name.lower()
    if inter_pod_gms:
        leader = f"{_GROVE_PREFIX}-{name}-{GROVE_ROLE_SUFFIX_LEADER}-{_GROVE_POD_INDEX}.{_GROVE_SUFFIX}"
        workers = [
            f"{_GROVE_PREFIX}-{name}-{GROVE_ROLE_SUFFIX_WORKER}-{r}-{_GROVE_POD_INDEX}.{_GROVE_SUFFIX}"
            for r in range(1, number_of_nodes)
        ]
        node_rank, needs_shell = str(rank), False
    else:
        leader = f"{_GROVE_PREFIX}-{name}-{GROVE_ROLE_SUFFIX_LEADER}-0.{_GROVE_SUFFIX}"
        workers = [
            f"{_GROVE_PREFIX}-{name}-{GROVE_ROLE_SUFFIX_WORKER}-{i}.{_GROVE_SUFFIX}"
            for i in range(number_of_nodes - 1)
        ]
        node_rank, needs_shell = GROVE_WORKER_NODE_RANK, True
    return MultinodeWiring(
        kind="grove",
        leader_host=leader,
        host_names=(leader, *workers),
        node_rank=node_rank,
        rank_needs_shell=needs_shell,
        needs_dns_wait=False,
    )
