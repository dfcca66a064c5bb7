"""GPU Memory Service (GMS) wiring over DRA (rendering-grove section 4).

Two layouts:

* **IntraPod** (a ``gms-server`` native sidecar in the engine pod): the DGD owns one standalone
  ``resource.k8s.io/v1`` ResourceClaimTemplate ``<dgd>-<component>-gpu`` per GMS component; the
  pod claims it as ``intrapod-shared-gpu`` instead of scalar GPUs, and every GMS client mounts the
  shared control directory.
* **InterPod** (weight-server pods beside the engine pods): per-rank claim templates live inside
  the PCS, each scaling-group replica shares one claim per rank between the rank's weight server
  and engine cliques, and both sides meet on a host-path socket directory keyed by the Grove
  scaling-group replica.

Functions take and return plain pod-spec dicts; only containers' names, resources, env and
mounts are read, every other leaf passes through.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.api.v1beta1 import ComponentSpecFields, DynamoGraphDeployment
from dynamo_pulumi.constants import KUBE_RESOURCE_GPU_NVIDIA
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.naming import normalize_kube_resource_name
from dynamo_pulumi.render.backends.gpus import is_gpu_resource_name, resolve_gpu_count
from dynamo_pulumi.render.grove.roles import ServiceRole
from dynamo_pulumi.render.objects.common import copy_tree, k8s_object, object_meta

# --- DRA (``internal/dra``) ----------------------------------------------------------------------
RESOURCE_API_VERSION = "resource.k8s.io/v1"
RESOURCE_CLAIM_TEMPLATE_KIND = "ResourceClaimTemplate"
DRA_CLAIM_NAME = "intrapod-shared-gpu"
DEFAULT_DEVICE_CLASS_NAME = "gpu.nvidia.com"
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
INTRA_POD_REQUEST_NAME = "gpus"
INTER_POD_REQUEST_NAME = "gpu"
GPU_TOLERATION: dict[str, str] = {"key": KUBE_RESOURCE_GPU_NVIDIA, "operator": "Exists", "effect": "NoSchedule"}

# --- intra-pod GMS (``internal/gms``) ------------------------------------------------------------
GMS_SERVER_CONTAINER_NAME = "gms-server"
GMS_INTRA_POD_VOLUME_NAME = "gms-intrapod-control"
GMS_INTRA_POD_MOUNT_PATH = "/gms-intrapod-control"
GMS_ENV_SOCKET_DIR = "GMS_SOCKET_DIR"
GMS_SERVER_MODULE = "gpu_memory_service.cli.server"

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


# --- shared helpers -------------------------------------------------------------------------------


def main_resources(component: ComponentSpecFields) -> dict[str, Any]:
    """``GetMainContainerResources``: the user's ``main`` container resources (may be empty)."""
    spec = (component.pod_template or {}).get("spec") or {}
    for container in spec.get("containers") or []:
        if container.get("name") == "main":
            return container.get("resources") or {}
    return {}


def gms_gpu_count(component: ComponentSpecFields) -> int:
    """``ExtractGPUCountFromResourceRequirements`` of the main container (scalar resources only)."""
    resources = {k: v for k, v in main_resources(component).items() if k != "claims"}
    return resolve_gpu_count({"resources": resources})


def device_class_name(component: ComponentSpecFields) -> str:
    gms = component.gms
    return (gms.device_class_name if gms is not None else None) or DEFAULT_DEVICE_CLASS_NAME


def _exact_request(name: str, device_class: str, count: int) -> dict[str, Any]:
    return {
        "name": name,
        "exactly": {"deviceClassName": device_class, "allocationMode": ALLOCATION_MODE_EXACT_COUNT, "count": count},
    }


def _remove_gpu_resources(container: dict[str, Any]) -> None:
    """Drop GPU-like scalar resources; a map left empty is dropped as Go's omitempty would."""
    resources = container.get("resources")
    if not isinstance(resources, dict):
        return
    for key in ("limits", "requests"):
        values = resources.get(key)
        if isinstance(values, dict):
            for name in [n for n in values if isinstance(n, str) and is_gpu_resource_name(n)]:
                del values[name]
            if not values:
                del resources[key]


def _add_claim(container: dict[str, Any], claim: str) -> None:
    resources = container.setdefault("resources", {})
    claims = resources.setdefault("claims", [])
    if not any(c.get("name") == claim for c in claims):
        claims.append({"name": claim})


def add_gpu_toleration(pod_spec: dict[str, Any]) -> None:
    """The ``nvidia.com/gpu`` NoSchedule toleration, unless one with that key and effect exists."""
    tolerations = pod_spec.setdefault("tolerations", [])
    for t in tolerations:
        if t.get("key") == GPU_TOLERATION["key"] and t.get("effect") == GPU_TOLERATION["effect"]:
            return
    tolerations.append(dict(GPU_TOLERATION))


def _upsert(items: list[dict[str, Any]], item: dict[str, Any]) -> None:
    """Replace the entry with the same name, or append."""
    for i, existing in enumerate(items):
        if existing.get("name") == item["name"]:
            items[i] = item
            return
    items.append(item)


# --- IntraPod -------------------------------------------------------------------------------------


def intra_pod_claim_template_name(dgd_name: str, component_name: str) -> str:
    """``dra.ResourceClaimTemplateName``: ``<dgd>-<lower(component)>-gpu``."""
    return f"{dgd_name}-{component_name.lower()}-gpu"


def standalone_claim_templates(dgd: DynamoGraphDeployment, namespace: str) -> list[dict[str, Any]]:
    """The DGD-owned ResourceClaimTemplates: one per GMS component with at least one GPU.

    Inter-pod components get one too (their pods do not use it), as the operator syncs it for
    every component with a ``gpuMemoryService`` block.
    """
    objects = []
    for i, component in enumerate(dgd.components):
        if component.gms is None:
            continue
        try:
            count = gms_gpu_count(component)
        except RenderError as err:
            raise RenderError(str(err), f"spec.components[{i}].podTemplate.spec.containers[main]") from None
        if count <= 0:
            continue
        name = intra_pod_claim_template_name(dgd.name, component.name)
        spec = {"spec": {"devices": {"requests": [
            _exact_request(INTRA_POD_REQUEST_NAME, device_class_name(component), count)
        ]}}}
        objects.append(k8s_object(RESOURCE_API_VERSION, RESOURCE_CLAIM_TEMPLATE_KIND,
                                  object_meta(name, namespace), spec=spec))
    return objects


def _ensure_client(pod_spec: dict[str, Any], container: dict[str, Any]) -> None:
    """``gms.EnsureClient``: control volume, mount, socket env, DRA claim instead of GPUs."""
    _upsert(pod_spec.setdefault("volumes", []), {"name": GMS_INTRA_POD_VOLUME_NAME, "emptyDir": {}})
    _upsert(container.setdefault("volumeMounts", []),
            {"name": GMS_INTRA_POD_VOLUME_NAME, "mountPath": GMS_INTRA_POD_MOUNT_PATH})
    _upsert(container.setdefault("env", []), {"name": GMS_ENV_SOCKET_DIR, "value": GMS_INTRA_POD_MOUNT_PATH})
    _remove_gpu_resources(container)
    _add_claim(container, DRA_CLAIM_NAME)


def _server_sidecar(image: Any) -> dict[str, Any]:
    return {
        "name": GMS_SERVER_CONTAINER_NAME,
        "image": image,
        "command": ["python3", "-m", GMS_SERVER_MODULE],
        "env": [{"name": GMS_ENV_SOCKET_DIR, "value": GMS_INTRA_POD_MOUNT_PATH}],
        "resources": {"claims": [{"name": DRA_CLAIM_NAME}]},
        "volumeMounts": [{"name": GMS_INTRA_POD_VOLUME_NAME, "mountPath": GMS_INTRA_POD_MOUNT_PATH}],
        "restartPolicy": "Always",
    }


def apply_intra_pod_gms(
    pod_spec: dict[str, Any], component: ComponentSpecFields, dgd_name: str, component_name: str
) -> None:
    """Intra-pod wiring of one rendered pod (``ApplyClaim`` + ``EnsureServerSidecar`` + clients).

    A no-op for components without GMS or with the inter-pod layout. Modifies ``pod_spec``.
    """
    gms = component.gms
    if gms is None or component.is_inter_pod_gms:
        return
    containers = pod_spec.get("containers") or []
    if not containers:
        raise RenderError("pod spec must have at least one container for DRA claim")
    names = {c.get("name") for c in containers}
    for extra in gms.extra_client_containers or []:
        if extra not in names:
            raise RenderError(
                f'gpuMemoryService extra client container "{extra}" is not a container of the pod',
                "spec.experimental.gpuMemoryService.extraClientContainers",
            )
    main = containers[0]
    _remove_gpu_resources(main)
    _add_claim(main, DRA_CLAIM_NAME)
    add_gpu_toleration(pod_spec)
    _upsert(pod_spec.setdefault("resourceClaims", []), {
        "name": DRA_CLAIM_NAME,
        "resourceClaimTemplateName": intra_pod_claim_template_name(dgd_name, component_name),
    })
    _ensure_client(pod_spec, main)
    init = pod_spec.setdefault("initContainers", [])
    if not any(c.get("name") == GMS_SERVER_CONTAINER_NAME for c in init):
        init.append(_server_sidecar(main.get("image")))
    for extra in gms.extra_client_containers or []:
        _ensure_client(pod_spec, next(c for c in containers if c.get("name") == extra))


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
                _exact_request(INTER_POD_REQUEST_NAME, device_class, count)
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
    _remove_gpu_resources(container)
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
