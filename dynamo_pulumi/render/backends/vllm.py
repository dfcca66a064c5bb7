"""vLLM: how a worker pod's launch is rewritten (rendering-core 4.1, rendering-grove 3.2).

The decision per multinode pod, in the operator's order, with ``G`` the main container's GPUs
and TP/PP/DP read from ``args`` (ERRATA 29):

1. ``G > 0`` and ``TP*PP > G``: one model spans nodes. mp (torch multiprocessing, ``--nnodes``)
   or Ray (leader runs a Ray head plus vLLM, workers only join the Ray cluster), chosen by an
   annotation or, failing that, by the operator version that created the graph;
2. ``--enable-elastic-ep``: one Ray cluster spanning all nodes (workers join only after the
   leader's engine is live, so vLLM places the initial DP ranks on the leader);
3. ``G > 0`` and ``TP*PP*DP > G``: data-parallel hybrid load balancing, each node running
   ``G/(TP*PP)`` local ranks;
4. otherwise nothing.

Multinode workers lose their probes (the engine is driven by the leader); a single-pod
elastic-EP component still needs a Ray head for followers to join later.

With complete role templates (:attr:`BackendInput.manual_launch`) none of 1-3 runs: the user's
leader and worker commands are kept as written. What remains is the multinode wiring (worker
probe removal, ``VLLM_NIXL_SIDE_CHANNEL_HOST`` when the annotations select mp, the
``wait-for-leader-mp`` init container of workers whose command line says
``--distributed-executor-backend mp``) plus the shared coordination port: a command line that
selects mp gets ``--master-port 29500`` unless that exact pair is already there (the operator's
``ManualMP``). Leader and worker both get it, so the leader listens where the workers' init
container waits; a different ``--master-port`` the user wrote stays, followed by ours (vLLM's
parser keeps the last), exactly as the operator renders it.
"""

from __future__ import annotations

import re
from typing import Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    DYNAMO_SYSTEM_PORT,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
    POD_IP_ENV_VAR,
    VLLM_DP_MASTER_IP_ENV_VAR,
    VLLM_DP_RPC_PORT,
    VLLM_MP_MASTER_PORT,
    VLLM_NIXL_SIDE_CHANNEL_HOST_ENV_VAR,
    VLLM_RAY_PORT,
)
from dynamo_pulumi.model.runtime_version import origin_gate_enabled
from dynamo_pulumi.render.backends import flags as fl
from dynamo_pulumi.render.backends.base import ROLE_LEADER, ROLE_MAIN, ROLE_WORKER, BackendInput
from dynamo_pulumi.render.backends.edits import (
    append_env,
    append_env_field_ref,
    append_to,
    remove_probes,
)
from dynamo_pulumi.render.backends.multinode import MultinodeWiring
from dynamo_pulumi.render.backends.resolve import container_gpus, require_wiring
from dynamo_pulumi.render.backends.wait_leader import (
    WAIT_LEADER_INIT_CONTAINER_NAME,
    WAIT_LEADER_MOUNT_PATH,
    WAIT_LEADER_SCRIPT_KEY,
    WAIT_LEADER_VOLUME_NAME,
    wait_leader_config_map_name,
)

FRAMEWORK = "vllm"
TENSOR_PARALLEL_SIZE_FLAG = "--tensor-parallel-size"
PIPELINE_PARALLEL_SIZE_FLAG = "--pipeline-parallel-size"
DATA_PARALLEL_SIZE_FLAG = "--data-parallel-size"
DATA_PARALLEL_SIZE_LOCAL_FLAG = "--data-parallel-size-local"
DISTRIBUTED_EXECUTOR_FLAG = "--distributed-executor-backend"
ENABLE_ELASTIC_EP_FLAG = "--enable-elastic-ep"
DATA_PARALLEL_BACKEND_FLAG = "--data-parallel-backend"
DATA_PARALLEL_BACKEND_SHORT_FLAG = "-dpb"
DATA_PARALLEL_BACKEND_RAY = "ray"
LOAD_FORMAT_FLAG = "--load-format"
LOAD_FORMAT_GMS = "gms"
GMS_SHADOW_MODE_ENV = "DYN_VLLM_GMS_SHADOW_MODE"
VLLM_CACHE_ROOT_ENV = "VLLM_CACHE_ROOT"
STATUS_POD_IP = "status.podIP"
VLLM_MULTIPROCESSING_GATE = "VLLMMultiprocessing"
MASTER_PORT_FLAG = "--master-port"
#: The direct launch ``ManualMP`` also recognises inside a shell script: ``vllm serve ...``.
VLLM_EXECUTABLE = "vllm"
VLLM_SERVE_SUBCOMMAND = "serve"

#: Kubernetes ``$(VAR)`` references, rewritten to ``${VAR}`` for a shell (Go ``\w`` is ASCII).
_K8S_VAR = re.compile(r"\$\(([0-9A-Za-z_]+)\)")

# Ray head readiness poll (150 x 2 s) and the elastic-EP worker's health gate (720 x 15 s).
_RAY_HEAD_POLL = (
    "i=0; until python3 -c \"import socket; s=socket.create_connection(('127.0.0.1',{port}),timeout=1); "
    's.close()" 2>/dev/null; do i=$((i+1)); [ "$i" -ge 150 ] && '
    '{{ echo "ERROR: Ray head did not start within 300s" >&2; exit 1; }}; sleep 2; done'
)
_LEADER_LIVE_POLL = (
    "i=0; until python3 -c \"import urllib.request; urllib.request.urlopen('http://{host}:{port}/live', "
    'timeout=5)" 2>/dev/null; do i=$((i+1)); [ "$i" -ge 720 ] && '
    '{{ echo "ERROR: leader /live did not become ready within 3h" >&2; exit 1; }}; '
    "echo 'waiting for leader dynamo.vllm /live to return 200...'; sleep 15; done"
)


# --- container -------------------------------------------------------------------------------


def update_container(container: dict[str, Any], inp: BackendInput) -> None:
    """Rewrite the main container of one vLLM pod (``VLLMBackend.UpdateContainer``)."""
    _apply_inter_pod_gms(container, inp)
    if inp.is_multinode:
        if inp.manual_launch:
            ensure_manual_mp_master_port(container)
        else:
            _update_multinode_args(container, inp, container_gpus(inp))
        if should_use_mp_backend(inp.annotations):
            append_env_field_ref(container, VLLM_NIXL_SIDE_CHANNEL_HOST_ENV_VAR, STATUS_POD_IP)
        if inp.role == ROLE_WORKER:
            remove_probes(container)
    elif inp.role == ROLE_MAIN and is_elastic_ep_ray_launch(container):
        _launch_single_pod_ray_head(container)
    if inp.compilation_cache_mount_path:
        append_env(container, VLLM_CACHE_ROOT_ENV, inp.compilation_cache_mount_path)


def ensure_manual_mp_master_port(container: dict[str, Any]) -> None:
    """``ManualMP``: a user-written mp launch gets ``--master-port 29500`` (nothing else).

    Only command lines that select mp (``--distributed-executor-backend mp`` or ``=mp``, the
    test the wait-for-leader init container uses) are touched; Ray, DP and elastic-EP launches
    written by the user get nothing.
    """
    if not fl.command_line_has_arg(container, DISTRIBUTED_EXECUTOR_FLAG, "mp"):
        return
    fl.ensure_flag(
        container,
        MASTER_PORT_FLAG,
        VLLM_MP_MASTER_PORT,
        FRAMEWORK,
        executable=VLLM_EXECUTABLE,
        subcommand=VLLM_SERVE_SUBCOMMAND,
    )


def _launch_single_pod_ray_head(container: dict[str, Any]) -> None:
    """A lone elastic-EP pod heads the Ray cluster that followers join later.

    Both addresses come from the pod IP: the head registers under it and vLLM (at DP size 1)
    looks the DP master up by ``VLLM_DP_MASTER_IP``, so the two always agree.
    """
    if _inject_elastic_ep_ray_launch(container, ROLE_MAIN, None):
        append_env_field_ref(container, POD_IP_ENV_VAR, STATUS_POD_IP)
        append_env_field_ref(container, VLLM_DP_MASTER_IP_ENV_VAR, STATUS_POD_IP)


def _apply_inter_pod_gms(container: dict[str, Any], inp: BackendInput) -> None:
    """Engines of the inter-pod GMS layout load weights from the GMS weight-server pod."""
    comp = inp.component
    if not comp.is_inter_pod_gms:
        return
    if not fl.container_has_arg(container, LOAD_FORMAT_FLAG, LOAD_FORMAT_GMS):
        fl.inject_flags(container, f"{LOAD_FORMAT_FLAG} {LOAD_FORMAT_GMS}", False, FRAMEWORK)
    failover = comp.failover
    if failover is not None and failover.mode == "InterPod":
        append_env(container, GMS_SHADOW_MODE_ENV, "true")


def should_use_mp_backend(annotations: Any) -> bool:
    """mp or Ray: the executor annotation (``mp``/``ray``, any case) wins, else the origin gate."""
    if KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND in annotations:
        override = annotations[KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND]
        value = _annotation_text(override, KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND).lower()
        if value == "mp":
            return True
        if value == "ray":
            return False
    origin = annotations.get(KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION)
    if origin is None:
        return False
    return origin_gate_enabled(
        VLLM_MULTIPROCESSING_GATE, _annotation_text(origin, KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION)
    )


def _annotation_text(value: Any, key: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RenderError(
            "must be a plain string: it selects the vLLM launch", f"metadata.annotations[{key}]"
        )
    return value


def _update_multinode_args(container: dict[str, Any], inp: BackendInput, gpus: int) -> None:
    """Pick the multinode launch (``updateVLLMMultinodeArgs``)."""
    words = fl.expand_args(container.get("args") or [])
    world = world_size(words)
    distributed = gpus != 0 and world > gpus
    if distributed and should_use_mp_backend(inp.annotations):
        _inject_mp_launch(container, inp)
    elif distributed:
        _inject_ray_launch(container, inp.role, require_wiring(inp))
    elif fl.has_flag(words, ENABLE_ELASTIC_EP_FLAG):
        _inject_elastic_ep_ray_launch(container, inp.role, require_wiring(inp))
    elif gpus != 0 and world * fl.flag_int_value(words, DATA_PARALLEL_SIZE_FLAG) > gpus:
        _inject_data_parallel_launch(container, inp, gpus)


def world_size(words: list[str]) -> int:
    """TP * PP of one engine (each defaults to 1)."""
    return fl.flag_int_value(words, TENSOR_PARALLEL_SIZE_FLAG) * fl.flag_int_value(
        words, PIPELINE_PARALLEL_SIZE_FLAG
    )


def _inject_mp_launch(container: dict[str, Any], inp: BackendInput) -> None:
    """torch multiprocessing across nodes: every node runs vLLM, workers headless."""
    wiring = require_wiring(inp)
    flags = (
        f"{DISTRIBUTED_EXECUTOR_FLAG} mp --nnodes {inp.number_of_nodes} "
        f"--master-addr {wiring.leader_host} --master-port {VLLM_MP_MASTER_PORT}"
    )
    needs_shell = False
    if inp.role == ROLE_LEADER:
        flags += " --node-rank 0"
    elif inp.role == ROLE_WORKER:
        flags += f" --node-rank {wiring.node_rank} --headless"
        needs_shell = wiring.rank_needs_shell
    fl.inject_flags(container, flags, needs_shell, FRAMEWORK)


def _inject_ray_launch(container: dict[str, Any], role: str, wiring: MultinodeWiring) -> None:
    """Ray: the leader starts a head and vLLM; workers only join (ERRATA 30: always quoted)."""
    if role == ROLE_LEADER:
        cmd, args = fl.quoted_command_line(container)
        container["args"] = [
            f"ray start --head --port={VLLM_RAY_PORT} && {cmd} {args} {DISTRIBUTED_EXECUTOR_FLAG} ray"
        ]
    elif role == ROLE_WORKER:
        container["args"] = [f"ray start --address={wiring.leader_host}:{VLLM_RAY_PORT} --block"]
    container["command"] = ["/bin/sh", "-c"]


def is_elastic_ep_ray_launch(container: dict[str, Any]) -> bool:
    """``--enable-elastic-ep`` with the Ray DP backend, anywhere on the command line."""
    words = fl.expand_args(fl.command_line(container))
    return fl.has_flag(words, ENABLE_ELASTIC_EP_FLAG) and (
        fl.has_arg(words, DATA_PARALLEL_BACKEND_FLAG, DATA_PARALLEL_BACKEND_RAY)
        or fl.has_arg(words, DATA_PARALLEL_BACKEND_SHORT_FLAG, DATA_PARALLEL_BACKEND_RAY)
    )


def _inject_elastic_ep_ray_launch(
    container: dict[str, Any], role: str, wiring: MultinodeWiring | None
) -> bool:
    """A Ray cluster for elastic EP; False when the leader has no explicit command to run.

    Without ``command`` the real entrypoint is the image's, which cannot be re-issued after the
    Ray head starts, so the container is left as it is.
    """
    if role in (ROLE_LEADER, ROLE_MAIN):
        command = fl.text_tokens(container.get("command"), "command")
        if not command:
            return False
        args = fl.text_tokens(container.get("args"), "args")
        engine = (
            " ".join(fl.shell_quote_posix(t) for t in command)
            + " "
            + " ".join(fl.shell_quote_posix(t) for t in args)
        ).strip()
        node_ip = ""
        if role == ROLE_MAIN:
            engine = "exec " + engine
            node_ip = f' --node-ip-address="${POD_IP_ENV_VAR}"'
        poll = _RAY_HEAD_POLL.format(port=VLLM_RAY_PORT)
        container["args"] = [
            f"ray start --head --port={VLLM_RAY_PORT}{node_ip} --block & {poll} && {engine}"
        ]
    elif role == ROLE_WORKER and wiring is not None:
        gate = _LEADER_LIVE_POLL.format(host=wiring.leader_host, port=DYNAMO_SYSTEM_PORT)
        container["args"] = [
            f"{gate} && ray start --address={wiring.leader_host}:{VLLM_RAY_PORT} --block"
        ]
    container["command"] = ["/bin/sh", "-c"]
    return True


def _inject_data_parallel_launch(container: dict[str, Any], inp: BackendInput, gpus: int) -> None:
    """Hybrid LB: each node runs ``G/(TP*PP)`` local DP ranks; Dynamo routes between nodes."""
    wiring = require_wiring(inp)
    words = fl.expand_args(container.get("args") or [])
    local = _go_div(gpus, world_size(words))
    total = fl.flag_int_value(words, DATA_PARALLEL_SIZE_FLAG)
    if total == 1:
        total = local * inp.number_of_nodes
    if inp.role not in (ROLE_LEADER, ROLE_WORKER):
        # The operator still runs the injection with no flags, which pads a shell string
        # with one space; keep that so the output matches.
        fl.inject_flags(container, "", False, FRAMEWORK)
        return
    if inp.role == ROLE_LEADER:
        start_rank, needs_shell = "0", False
    else:
        start_rank, needs_shell = f"$(( {local} * {wiring.node_rank} ))", True
    parts = ["--data-parallel-hybrid-lb"]
    if not fl.has_flag(words, DATA_PARALLEL_SIZE_FLAG):
        parts += [DATA_PARALLEL_SIZE_FLAG, str(total)]
    parts += [
        DATA_PARALLEL_SIZE_LOCAL_FLAG, str(local),
        "--data-parallel-start-rank", start_rank,
        "--data-parallel-address", wiring.leader_host,
        "--data-parallel-rpc-port", str(VLLM_DP_RPC_PORT),
    ]
    fl.inject_flags(container, " ".join(parts), needs_shell, FRAMEWORK)


def _go_div(a: int, b: int) -> int:
    """Go integer division (truncates toward zero)."""
    if b == 0:
        raise RenderError("tensor/pipeline parallel size 0 cannot be split across GPUs", "args")
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


# --- pod spec --------------------------------------------------------------------------------


def update_pod_spec(pod_spec: dict[str, Any], inp: BackendInput) -> None:
    """mp workers wait for the leader's master port in an init container.

    The test is the rendered command line, so it holds for operator-injected and user-written
    (role template) mp launches alike.
    """
    containers = pod_spec.get("containers")
    if not inp.dgd_name or not inp.is_multinode or inp.role != ROLE_WORKER or not containers:
        return
    main = containers[0]
    if not fl.command_line_has_arg(main, DISTRIBUTED_EXECUTOR_FLAG, "mp"):
        return
    wiring = require_wiring(inp)
    append_to(
        pod_spec,
        "volumes",
        {"name": WAIT_LEADER_VOLUME_NAME, "configMap": {"name": wait_leader_config_map_name(inp.dgd_name)}},
    )
    append_to(pod_spec, "initContainers", wait_leader_init_container(main.get("image"), wiring))


def wait_leader_init_container(image: Any, wiring: MultinodeWiring) -> dict[str, Any]:
    """``wait-for-leader-mp``: the shell sees every env var, whatever order they are defined in."""
    host = _K8S_VAR.sub(r"${\1}", wiring.leader_host)
    script = (
        f'export LEADER_HOST="{host}" LEADER_PORT="{VLLM_MP_MASTER_PORT}" && '
        f"exec python3 {WAIT_LEADER_MOUNT_PATH}/{WAIT_LEADER_SCRIPT_KEY}"
    )
    return {
        "name": WAIT_LEADER_INIT_CONTAINER_NAME,
        "image": image,
        "command": ["sh", "-c", script],
        "volumeMounts": [
            {"name": WAIT_LEADER_VOLUME_NAME, "mountPath": WAIT_LEADER_MOUNT_PATH, "readOnly": True}
        ],
    }
