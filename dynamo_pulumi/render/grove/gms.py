"""Inter-pod GPU Memory Service (GMS) over DRA: the Grove-only layout (rendering-grove 4.3).

Weight-server pods sit beside the engine pods: per-rank claim templates live inside the PCS, each
scaling-group replica shares one claim per rank between the rank's weight server and engine
cliques, and both sides meet on a host-path socket directory keyed by the Grove scaling-group
replica. (Validation forbids the inter-pod layout off Grove.)

The intra-pod layout and the DGD-owned ResourceClaimTemplate are pathway-neutral and live in
:mod:`dynamo_pulumi.render.pod.gms`.

Functions take and return plain pod-spec dicts; only containers' names, resources, env and
mounts are read, every other leaf passes through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor.naming import normalize_kube_resource_name
from dynamo_pulumi.render.grove.roles import ServiceRole
from dynamo_pulumi.render.objects.common import copy_tree
from dynamo_pulumi.render.pod.gms import (
    GMS_ENV_SOCKET_DIR,
    GMS_SERVER_MODULE,
    add_gpu_toleration,
    device_class_name,
    exact_request,
    gms_gpu_count,
    remove_gpu_resources,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields

INTER_POD_REQUEST_NAME = "gpu"

# --- inter-pod GMS (``failover.go``) --------------------------------------------------------------
GMS_SHARED_VOLUME_NAME = "gms-shared"
GMS_HOST_PATH_BASE = "/run/gms"
GMS_SHARED_MOUNT_PATH = "/run/gms/shared"
GMS_FAILOVER_LOCK_FILE = "failover.lock"
GMS_PERM_FIX_INIT_NAME = "fix-gms-perms"
GROVE_POD_INDEX_FIELD_PATH = "metadata.labels['grove.io/podclique-pod-index']"
ENV_ENGINE_ID = "ENGINE_ID"
ENV_FAILOVER_LOCK_PATH = "FAILOVER_LOCK_PATH"
ENV_STARTING_HEALTH_STATUS = "DYN_SYSTEM_STARTING_HEALTH_STATUS"
ENV_USE_ENDPOINT_HEALTH_STATUS = "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS"
STARTING_HEALTH_NOT_READY = "notready"


# --- InterPod -------------------------------------------------------------------------------------


def rank_claim_template_name(component_name: str, rank: int) -> str:
    """``gmsRCTName``: ``<normalized component>-gpu-rank-<r>`` (no DGD prefix)."""
    return f"{normalize_kube_resource_name(component_name)}-gpu-rank-{rank}"


def rank_claim_template_configs(
    component_name: str, component: ComponentSpecFields, roles: list[ServiceRole]
) -> list[dict[str, Any]]:
    """PCS ``resourceClaimTemplates``: one per rank, in rank order of first appearance."""
    count = gms_gpu_count(component)
    device_class = device_class_name(component)
    configs: list[dict[str, Any]] = []
    seen: set[int] = set()
    for role in roles:
        if role.rank in seen:
            continue
        seen.add(role.rank)
        configs.append({
            "name": rank_claim_template_name(component_name, role.rank),
            "templateSpec": {"spec": {"devices": {"requests": [
                exact_request(INTER_POD_REQUEST_NAME, device_class, count)
            ]}}},
        })
    return configs


def resource_sharing_entries(component_name: str, roles: list[ServiceRole]) -> list[dict[str, Any]]:
    """PCSG ``resourceSharing``: each rank's claim shared per replica by that rank's cliques."""
    by_rank: dict[int, list[str]] = {}
    for role in roles:
        by_rank.setdefault(role.rank, []).append(role.clique_name)
    return [
        {
            "name": rank_claim_template_name(component_name, rank),
            "scope": "PerReplica",
            "filter": {"childCliqueNames": names},
        }
        for rank, names in by_rank.items()
    ]


def _shared_mount(rank: int) -> dict[str, Any]:
    return {
        "name": GMS_SHARED_VOLUME_NAME,
        "mountPath": GMS_SHARED_MOUNT_PATH,
        "subPathExpr": f"$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-{rank}",
    }


def _apply_shared_resources(pod_spec: dict[str, Any], container: dict[str, Any], rank: int) -> None:
    """GPUs removed (the PCSG claim replaces them), toleration, host-path socket dir, perm fix."""
    remove_gpu_resources(container)
    add_gpu_toleration(pod_spec)
    pod_spec.setdefault("volumes", []).append(
        {"name": GMS_SHARED_VOLUME_NAME, "hostPath": {"path": GMS_HOST_PATH_BASE, "type": "DirectoryOrCreate"}}
    )
    container.setdefault("volumeMounts", []).append(_shared_mount(rank))
    pod_spec.setdefault("initContainers", []).append({
        "name": GMS_PERM_FIX_INIT_NAME,
        "image": container.get("image"),
        "command": ["sh", "-c", f"chmod 1777 {GMS_SHARED_MOUNT_PATH}"],
        "securityContext": {"runAsUser": 0, "runAsNonRoot": False},
        "volumeMounts": [_shared_mount(rank)],
    })


def weight_server_wrapper_script() -> str:
    """Runs the GMS server, clears stale sockets first and propagates its exit code."""
    return (
        f"rm -f {GMS_SHARED_MOUNT_PATH}/gms_*.sock\n"
        "rc=1\n"
        'cleanup() { kill -- -$$ 2>/dev/null; exit "$rc"; }\n'
        "trap cleanup SIGTERM SIGINT\n"
        f"python3 -m {GMS_SERVER_MODULE} &\n"
        'echo "Started GMS server pid=$!"\n'
        "wait -n\n"
        "rc=$?\n"
        'echo "GMS server exited (code=$rc), shutting down"\n'
        "cleanup"
    )


def weight_server_pod_spec(base: dict[str, Any], rank: int, gpu_count: int) -> dict[str, Any]:
    """``gmsWeightServerPodSpec``: the engine pod turned into the rank's GMS weight server.

    Started only when both sockets of every GPU exist (startup probe); no liveness/readiness.
    """
    pod_spec = copy_tree(base)
    containers = pod_spec.get("containers") or []
    if not containers:
        return pod_spec
    main = containers[0]
    main["command"] = ["bash", "-c"]
    main["args"] = [weight_server_wrapper_script()]
    main["startupProbe"] = {
        "exec": {"command": [
            "sh", "-c",
            f"test $(ls {GMS_SHARED_MOUNT_PATH}/gms_*.sock 2>/dev/null | wc -l) -ge {2 * gpu_count}",
        ]},
        "periodSeconds": 2,
        "timeoutSeconds": 2,
        "failureThreshold": 150,
    }
    main.pop("livenessProbe", None)
    main.pop("readinessProbe", None)
    main.setdefault("env", []).append({"name": GMS_ENV_SOCKET_DIR, "value": GMS_SHARED_MOUNT_PATH})
    _apply_shared_resources(pod_spec, main, rank)
    return pod_spec


def augment_engine_pod_spec(pod_spec: dict[str, Any], rank: int, inter_pod_failover: bool) -> None:
    """``augmentEngineForGMS``: engine env, shared resources; ``Never`` restart with failover."""
    containers = pod_spec.get("containers") or []
    if not containers:
        return
    main = containers[0]
    env = [e for e in main.get("env") or [] if e.get("name") != ENV_USE_ENDPOINT_HEALTH_STATUS]
    env += [
        {"name": ENV_ENGINE_ID, "valueFrom": {"fieldRef": {"fieldPath": GROVE_POD_INDEX_FIELD_PATH}}},
        {"name": GMS_ENV_SOCKET_DIR, "value": GMS_SHARED_MOUNT_PATH},
        {"name": ENV_FAILOVER_LOCK_PATH, "value": f"{GMS_SHARED_MOUNT_PATH}/{GMS_FAILOVER_LOCK_FILE}"},
        {"name": ENV_STARTING_HEALTH_STATUS, "value": STARTING_HEALTH_NOT_READY},
    ]
    main["env"] = env
    _apply_shared_resources(pod_spec, main, rank)
    if inter_pod_failover:
        pod_spec["restartPolicy"] = "Never"
