"""Intra-pod GMS failover, shared by both pathways (rendering-grove 5.1; ERRATA 2.34, 2.35).

The last step of ``GenerateBasePodSpec``, after the intra-pod GMS wiring (:mod:`.gms`) so both
engines share the DRA claim and the control directory: the main container is cloned into
``engine-0`` (active) and ``engine-1`` (standby) in the same pod. Each engine gets its own system
port and per-engine env; vLLM also gets per-engine NIXL/KV-event ports and a staggered
``--master-port``. The snapshot supports vLLM only; other backends are an error.

Inter-pod failover (hot spares as pods) exists only on Grove: the layout lives in
:mod:`dynamo_pulumi.render.grove.roles` (engine cliques with ``1 + numShadows`` replicas),
:mod:`dynamo_pulumi.render.grove.gms` (engine env, ``restartPolicy: Never``) and
:mod:`dynamo_pulumi.render.pod.metadata` (engine-group label); the vLLM backend adds the
shadow-mode switch.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    BACKEND_FRAMEWORK_VLLM,
    DYNAMO_FPM_BASE_PORT,
    DYNAMO_SYSTEM_PORT,
    VLLM_MP_MASTER_PORT,
)
from dynamo_pulumi.render.objects.common import copy_tree
from dynamo_pulumi.render.pod.gms import GMS_INTRA_POD_MOUNT_PATH

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields

FAILOVER_ENGINE_COUNT = 2
ENGINE_CONTAINER_PREFIX = "engine-"
INTRA_POD_FAILOVER_LOCK_FILE = f"{GMS_INTRA_POD_MOUNT_PATH}/failover.lock"
VLLM_MASTER_PORT_FLAG = "--master-port"
VLLM_MASTER_PORT_STRIDE = 100
VLLM_NIXL_SIDE_CHANNEL_BASE_PORT = 5600
VLLM_KV_EVENT_BASE_PORT = 20080
ENV_VLLM_GMS_SHADOW_MODE = "DYN_VLLM_GMS_SHADOW_MODE"
#: Env the operator drops from the engine copy before adding per-engine values.
_ENGINE_ENV_REMOVED = frozenset({
    "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS",
    "DYN_SYSTEM_PORT",
    "DYN_SYSTEM_ENABLED",
    "DYN_HEALTH_CHECK_ENABLED",
    "CONTAINER_NAME",
    "DYN_FORWARDPASS_METRIC_PORT",
})


def is_intra_pod_failover(component: ComponentSpecFields) -> bool:
    """``IsIntraPodFailoverEnabled``: failover present with mode empty or IntraPod."""
    failover = component.failover
    return failover is not None and failover.effective_mode == "IntraPod"


def engine_container_names() -> list[str]:
    return [f"{ENGINE_CONTAINER_PREFIX}{i}" for i in range(FAILOVER_ENGINE_COUNT)]


def _engine_container(base: dict[str, Any], engine_id: int) -> dict[str, Any]:
    """``buildEngineContainer``: a copy of main with its own name, port, env and probe port."""
    engine = copy_tree(base)
    engine["name"] = f"{ENGINE_CONTAINER_PREFIX}{engine_id}"
    port_name = f"system-{engine_id}"
    system_port = DYNAMO_SYSTEM_PORT + engine_id
    engine["ports"] = [{"protocol": "TCP", "name": port_name, "containerPort": system_port}]
    env = [e for e in engine.get("env") or [] if e.get("name") not in _ENGINE_ENV_REMOVED]
    env += [
        {"name": "ENGINE_ID", "value": str(engine_id)},
        {"name": "CONTAINER_NAME", "value": engine["name"]},
        {"name": "FAILOVER_LOCK_PATH", "value": INTRA_POD_FAILOVER_LOCK_FILE},
        {"name": "DYN_SYSTEM_STARTING_HEALTH_STATUS", "value": "notready"},
        {"name": "DYN_SYSTEM_PORT", "value": str(system_port)},
        {"name": "DYN_SYSTEM_ENABLED", "value": "true"},
        {"name": "DYN_FORWARDPASS_METRIC_PORT", "value": str(DYNAMO_FPM_BASE_PORT + engine_id)},
    ]
    engine["env"] = env
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        handler = (engine.get(probe) or {}).get("httpGet")
        if isinstance(handler, dict):
            handler["port"] = port_name
    return engine


def build_intra_pod_failover(pod_spec: dict[str, Any], number_of_nodes: int, backend: str) -> None:
    """``buildFailoverPod``: engines first, then the original sidecars (modifies ``pod_spec``)."""
    containers = pod_spec.get("containers") or []
    if not containers:
        raise RenderError("pod spec must have at least one container for failover transformation")
    if backend != BACKEND_FRAMEWORK_VLLM:
        raise RenderError(
            f"failed to build failover pod: failover is currently supported only for vLLM (detected: {backend})",
            "spec.experimental.failover",
        )
    main, sidecars = containers[0], containers[1:]
    engines = [_engine_container(main, i) for i in range(FAILOVER_ENGINE_COUNT)]
    for engine_id, engine in enumerate(engines):
        _apply_vllm_overrides(engine, engine_id, number_of_nodes)
    pod_spec["containers"] = engines + list(sidecars)


def _apply_vllm_overrides(engine: dict[str, Any], engine_id: int, number_of_nodes: int) -> None:
    engine["env"] += [
        {"name": ENV_VLLM_GMS_SHADOW_MODE, "value": "true"},
        {"name": "VLLM_NIXL_SIDE_CHANNEL_PORT", "value": str(VLLM_NIXL_SIDE_CHANNEL_BASE_PORT + engine_id)},
        {"name": "DYN_VLLM_KV_EVENT_PORT", "value": str(VLLM_KV_EVENT_BASE_PORT + engine_id)},
    ]
    if engine_id > 0:
        offset = engine_id * VLLM_MASTER_PORT_STRIDE
        if not _stagger_master_port(engine, offset):
            engine.setdefault("args", []).extend(
                [VLLM_MASTER_PORT_FLAG, str(int(VLLM_MP_MASTER_PORT) + offset)]
            )
    if number_of_nodes > 1:
        engine["env"].append({"name": "NNODES", "value": str(number_of_nodes)})


_INLINE_PORT = re.compile(re.escape(VLLM_MASTER_PORT_FLAG) + r" (\d+)")


def _stagger_master_port(container: dict[str, Any], offset: int) -> bool:
    """Shift an existing ``--master-port`` value by ``offset``; False when the flag is absent.

    Looks at a separate-argument form first, then inline forms in args, then in command.
    """
    args = container.get("args") or []
    for i, arg in enumerate(args):
        following = args[i + 1] if i + 1 < len(args) else None
        if arg == VLLM_MASTER_PORT_FLAG and isinstance(following, str) and following.isdigit():
            args[i + 1] = str(int(following) + offset)
            return True
    has_flag = any(
        isinstance(a, str) and (a == VLLM_MASTER_PORT_FLAG or f"{VLLM_MASTER_PORT_FLAG} " in a) for a in args
    ) or any(isinstance(c, str) and f"{VLLM_MASTER_PORT_FLAG} " in c for c in container.get("command") or [])
    for key in ("args", "command"):
        values = container.get(key) or []
        for i, value in enumerate(values):
            if isinstance(value, str) and (match := _INLINE_PORT.search(value)):
                shifted = f"{VLLM_MASTER_PORT_FLAG} {int(match.group(1)) + offset}"
                values[i] = value.replace(match.group(0), shifted, 1)
                return True
    return has_flag

