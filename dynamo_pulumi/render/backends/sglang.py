"""SGLang: NIXL exporter ports and multinode ``--dist-init-addr`` wiring (rendering-core 4.2).

SGLang runs one scheduler per node-local GPU, each with its own NIXL agent listening on
19090 + rank; when NIXL telemetry is switched on inline, every such rank's port is declared so it
can be scraped (a newer revision than the 2026-08-21 snapshot; with the default ``n`` nothing
changes). Multinode pods join torch's rendezvous at the leader on port 29500; workers lose their
probes because the leader drives the engine.

With complete role templates (:attr:`BackendInput.manual_launch`) the ``--dist-init-addr``,
``--nnodes`` and ``--node-rank`` flags are the user's to write and are not injected; worker
probe removal and the NIXL exporter ports stay (pod wiring, not launch topology).
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import DYNAMO_NIXL_PORT, DYNAMO_NIXL_PORT_NAME, SGLANG_DIST_INIT_PORT
from dynamo_pulumi.render.backends import flags as fl
from dynamo_pulumi.render.backends.base import ROLE_LEADER, ROLE_WORKER, BackendInput
from dynamo_pulumi.render.backends.edits import append_to, remove_probes
from dynamo_pulumi.render.backends.resolve import container_gpus, require_wiring

FRAMEWORK = "sglang"
NIXL_TELEMETRY_ENABLE_ENV = "NIXL_TELEMETRY_ENABLE"
#: At most this many co-located ranks get an exporter port (``DynamoMaxNixlPorts``).
DYNAMO_MAX_NIXL_PORTS = 8


def update_container(container: dict[str, Any], inp: BackendInput) -> None:
    """``SGLangBackend.UpdateContainer``; the compilation cache needs no env for SGLang."""
    reserve_nixl_exporter_ports(container, inp)
    if not inp.is_multinode:
        return
    if inp.role == ROLE_WORKER:
        remove_probes(container)
    if inp.manual_launch:
        return
    flags, needs_shell = multinode_flags(inp)
    fl.inject_flags(container, flags, needs_shell, FRAMEWORK)


def update_pod_spec(pod_spec: dict[str, Any], inp: BackendInput) -> None:
    """SGLang adds nothing at pod level."""


def multinode_flags(inp: BackendInput) -> tuple[str, bool]:
    """``--dist-init-addr <leader>:29500 --nnodes N --node-rank R`` and whether R needs a shell."""
    wiring = require_wiring(inp)
    if inp.role == ROLE_LEADER:
        rank, needs_shell = "0", False
    else:
        rank, needs_shell = wiring.node_rank, wiring.rank_needs_shell
    flags = (
        f"--dist-init-addr {wiring.leader_host}:{SGLANG_DIST_INIT_PORT} "
        f"--nnodes {inp.number_of_nodes} --node-rank {rank}"
    )
    return flags, needs_shell


def reserve_nixl_exporter_ports(container: dict[str, Any], inp: BackendInput) -> None:
    """Declare ``nixl-<i>`` (19090+i) for ranks 1..min(G, 8)-1 when telemetry is on inline.

    Containers without the ``nixl`` port run no exporter; telemetry set through envFrom or
    valueFrom is not seen, as in the operator.
    """
    ports = container.get("ports") or []
    if not _has_port(ports, DYNAMO_NIXL_PORT_NAME) or not _telemetry_enabled(container):
        return
    ranks = min(container_gpus(inp), DYNAMO_MAX_NIXL_PORTS)
    for rank in range(1, ranks):
        name = f"{DYNAMO_NIXL_PORT_NAME}-{rank}"
        if not _has_port(container.get("ports") or [], name):
            append_to(
                container,
                "ports",
                {"protocol": "TCP", "name": name, "containerPort": DYNAMO_NIXL_PORT + rank},
            )


def _has_port(ports: list[Any], name: str) -> bool:
    return any(isinstance(p, dict) and p.get("name") == name for p in ports)


def _telemetry_enabled(container: dict[str, Any]) -> bool:
    for env in container.get("env") or []:
        if isinstance(env, dict) and env.get("name") == NIXL_TELEMETRY_ENABLE_ENV:
            value = env.get("value")
            return isinstance(value, str) and value.strip().lower() == "y"
    return False
