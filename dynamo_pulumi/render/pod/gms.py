"""Intra-pod GPU Memory Service (GMS) over DRA, shared by both pathways (rendering-grove 4.2).

The operator wires intra-pod GMS at the end of ``GenerateBasePodSpec`` (ERRATA 2.35), so a
Deployment, LeaderWorkerSet or Grove clique pod of a component with
``experimental.gpuMemoryService`` (mode ``IntraPod``) gets the same rewrite:

* the first container's GPU scalar resources are replaced by the pod claim
  ``intrapod-shared-gpu``, from the ResourceClaimTemplate ``<dgd>-<lower(component)>-gpu``, and
  the pod tolerates the ``nvidia.com/gpu`` NoSchedule taint;
* ``main`` and every ``extraClientContainers`` entry become GMS clients (control directory
  emptyDir and mount, ``GMS_SOCKET_DIR``, the claim instead of GPUs);
* a ``gms-server`` native sidecar (init container, ``restartPolicy: Always``) runs the server.

The ResourceClaimTemplate itself is a DGD-owned object that the DGD's shared-resources reconciler
syncs on both pathways (:func:`standalone_claim_templates`; ``internal/dra`` +
``dgd_gms_resource_claims_reconciler.go``): no labels, owner the DGD. A standalone DCD gets no
template (its controller creates none); its pods name ``<dcd>-<component>-gpu``.

The inter-pod layout (weight-server cliques, per-rank templates in the PCS) exists only on Grove:
:mod:`dynamo_pulumi.render.grove.gms`. Functions here take and return plain pod-spec dicts and
read only container names, resources, env and mounts; every other leaf passes through.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import KUBE_RESOURCE_GPU_NVIDIA, MAIN_CONTAINER_NAME
from dynamo_pulumi.render.backends.gpus import is_gpu_resource_name, scalar_gpu_count
from dynamo_pulumi.render.objects.common import k8s_object, object_meta

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields, DynamoGraphDeployment

__all__ = [
    "DRA_CLAIM_NAME",
    "DRA_REQUIRED_MESSAGE",
    "GMS_INTRA_POD_MOUNT_PATH",
    "GMS_SERVER_CONTAINER_NAME",
    "add_gpu_toleration",
    "apply_intra_pod_gms",
    "device_class_name",
    "exact_request",
    "gms_gpu_count",
    "intra_pod_claim_template_name",
    "remove_gpu_resources",
    "require_dra",
    "standalone_claim_templates",
]

# --- DRA (``internal/dra``) ----------------------------------------------------------------------
RESOURCE_API_VERSION = "resource.k8s.io/v1"
RESOURCE_CLAIM_TEMPLATE_KIND = "ResourceClaimTemplate"
DRA_CLAIM_NAME = "intrapod-shared-gpu"
DEFAULT_DEVICE_CLASS_NAME = "gpu.nvidia.com"
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
INTRA_POD_REQUEST_NAME = "gpus"
GPU_TOLERATION: dict[str, str] = {"key": KUBE_RESOURCE_GPU_NVIDIA, "operator": "Exists", "effect": "NoSchedule"}

# --- intra-pod GMS (``internal/gms``) ------------------------------------------------------------
GMS_SERVER_CONTAINER_NAME = "gms-server"
GMS_INTRA_POD_VOLUME_NAME = "gms-intrapod-control"
GMS_INTRA_POD_MOUNT_PATH = "/gms-intrapod-control"
GMS_ENV_SOCKET_DIR = "GMS_SOCKET_DIR"
GMS_SERVER_MODULE = "gpu_memory_service.cli.server"

DRA_REQUIRED_MESSAGE = (
    "gpuMemoryService / inter-pod GMS failover requires DRA (Dynamic Resource Allocation), but DRA is "
    "not available (either the resource.k8s.io/v1 API is not registered on this cluster, which requires "
    "Kubernetes 1.34+, or DRA has been explicitly disabled in the operator configuration)"
)


# --- DRA gate -------------------------------------------------------------------------------------


def needs_dra(component: ComponentSpecFields) -> bool:
    """GMS in any mode, or inter-pod failover, claims GPUs through ``resource.k8s.io/v1``."""
    failover = component.failover
    return component.gms is not None or (failover is not None and failover.effective_mode == "InterPod")


def require_dra(dgd: DynamoGraphDeployment, *, dra_off: bool) -> None:
    """The shared-resources reconciler fails the graph (either pathway) when DRA is off.

    Offline only an explicit ``dra.enabled: false`` turns DRA off (left unset, the API is assumed
    served, as on Kubernetes 1.34+): ``dra_off`` is that, read once by the caller.
    """
    if not dra_off:
        return
    for i, component in enumerate(dgd.components):
        if needs_dra(component):
            raise RenderError(DRA_REQUIRED_MESSAGE, f"spec.components[{i}].experimental")


# --- shared helpers -------------------------------------------------------------------------------


def main_resources(component: ComponentSpecFields) -> dict[str, Any]:
    """``GetMainContainerResources``: the user's ``main`` container resources (may be empty)."""
    spec = (component.pod_template or {}).get("spec") or {}
    for container in spec.get("containers") or []:
        if container.get("name") == MAIN_CONTAINER_NAME:
            return container.get("resources") or {}
    return {}


def gms_gpu_count(component: ComponentSpecFields) -> int:
    """``ExtractGPUCountFromResourceRequirements`` of the main container (scalar resources only)."""
    return scalar_gpu_count(main_resources(component))


def device_class_name(component: ComponentSpecFields) -> str:
    gms = component.gms
    return (gms.device_class_name if gms is not None else None) or DEFAULT_DEVICE_CLASS_NAME


def exact_request(name: str, device_class: str, count: int) -> dict[str, Any]:
    """A DRA ``DeviceRequest`` with an ``ExactCount`` allocation."""
    return {
        "name": name,
        "exactly": {"deviceClassName": device_class, "allocationMode": ALLOCATION_MODE_EXACT_COUNT, "count": count},
    }


def remove_gpu_resources(container: dict[str, Any]) -> None:
    """``dra.RemoveGPUResources`` on limits and requests; a map left empty is dropped (omitempty)."""
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


# --- the DGD-owned ResourceClaimTemplate ----------------------------------------------------------


def intra_pod_claim_template_name(parent_name: str, component_name: str) -> str:
    """``dra.ResourceClaimTemplateName``: ``<parent>-<lower(component)>-gpu``."""
    return f"{parent_name}-{component_name.lower()}-gpu"


def standalone_claim_templates(dgd: DynamoGraphDeployment, namespace: str) -> list[dict[str, Any]]:
    """The DGD-owned ResourceClaimTemplates: one per GMS component with at least one GPU.

    Synced by the DGD on both pathways for every component with a ``gpuMemoryService`` block
    (inter-pod components too, whose pods do not use it); without GPUs the template is deleted,
    i.e. not rendered. Metadata is name and namespace only.
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
            exact_request(INTRA_POD_REQUEST_NAME, device_class_name(component), count)
        ]}}}
        objects.append(k8s_object(RESOURCE_API_VERSION, RESOURCE_CLAIM_TEMPLATE_KIND,
                                  object_meta(name, namespace), spec=spec))
    return objects


# --- pod wiring -----------------------------------------------------------------------------------


def _go_quoted_list(names: list[str]) -> str:
    """Go's ``%q`` of a ``[]string``: ``["a" "b"]``."""
    return "[" + " ".join(json.dumps(n) for n in names) + "]"


def extra_client_containers_error(extra: list[str], containers: list[dict[str, Any]]) -> str | None:
    """``gmsExtraClientContainersError``: duplicate or missing client names, else None."""
    names = {c.get("name") for c in containers}
    seen: set[str] = set()
    missing: list[str] = []
    duplicates: list[str] = []
    for name in extra:
        if name in seen:
            duplicates.append(name)
            continue
        seen.add(name)
        if name not in names:
            missing.append(name)
    problems = []
    if duplicates:
        problems.append(f"contains duplicate names {_go_quoted_list(sorted(duplicates))}")
    if missing:
        problems.append(f"references missing pod containers {_go_quoted_list(sorted(missing))}")
    return f"gpuMemoryService.extraClientContainers {'; '.join(problems)}" if problems else None


def _ensure_client(pod_spec: dict[str, Any], container: dict[str, Any]) -> None:
    """``gms.EnsureClient``: control volume, mount, socket env, DRA claim instead of GPUs."""
    _upsert(pod_spec.setdefault("volumes", []), {"name": GMS_INTRA_POD_VOLUME_NAME, "emptyDir": {}})
    _upsert(container.setdefault("volumeMounts", []),
            {"name": GMS_INTRA_POD_VOLUME_NAME, "mountPath": GMS_INTRA_POD_MOUNT_PATH})
    _upsert(container.setdefault("env", []), {"name": GMS_ENV_SOCKET_DIR, "value": GMS_INTRA_POD_MOUNT_PATH})
    remove_gpu_resources(container)
    _add_claim(container, DRA_CLAIM_NAME)


def _server_sidecar(image: Any) -> dict[str, Any]:
    """``gms.Container`` + ``restartPolicy: Always`` (no probes); an empty image is omitted."""
    sidecar: dict[str, Any] = {"name": GMS_SERVER_CONTAINER_NAME}
    if image is not None and not (isinstance(image, str) and image == ""):
        sidecar["image"] = image
    sidecar.update({
        "command": ["python3", "-m", GMS_SERVER_MODULE],
        "env": [{"name": GMS_ENV_SOCKET_DIR, "value": GMS_INTRA_POD_MOUNT_PATH}],
        "resources": {"claims": [{"name": DRA_CLAIM_NAME}]},
        "volumeMounts": [{"name": GMS_INTRA_POD_VOLUME_NAME, "mountPath": GMS_INTRA_POD_MOUNT_PATH}],
        "restartPolicy": "Always",
    })
    return sidecar


def apply_intra_pod_gms(
    pod_spec: dict[str, Any], component: ComponentSpecFields, parent_name: str, component_name: str
) -> None:
    """``ApplyClaim`` + ``EnsureServerSidecar`` + extra clients on one rendered pod (in place).

    A no-op for components without GMS or with the inter-pod layout. ``parent_name`` is the DGD
    (a standalone DCD's own name); ``component_name`` the component (``GetDCDComponentName``).
    """
    gms = component.gms
    if gms is None or component.is_inter_pod_gms:
        return
    containers = pod_spec.get("containers") or []
    problem = extra_client_containers_error(list(gms.extra_client_containers or []), containers)
    if problem is not None:
        raise RenderError(problem, "spec.experimental.gpuMemoryService.extraClientContainers")
    if not containers:
        raise RenderError("failed to apply DRA claim for GMS: pod spec must have at least one container for DRA claim")
    main = containers[0]
    remove_gpu_resources(main)
    _add_claim(main, DRA_CLAIM_NAME)
    add_gpu_toleration(pod_spec)
    _upsert(pod_spec.setdefault("resourceClaims", []), {
        "name": DRA_CLAIM_NAME,
        "resourceClaimTemplateName": intra_pod_claim_template_name(parent_name, component_name),
    })
    _ensure_client(pod_spec, main)
    init = pod_spec.setdefault("initContainers", [])
    if not any(c.get("name") == GMS_SERVER_CONTAINER_NAME for c in init):
        init.append(_server_sidecar(main.get("image")))
    for extra in gms.extra_client_containers or []:
        _ensure_client(pod_spec, next(c for c in containers if c.get("name") == extra))
