"""Volumes and mounts the operator adds to every pod: compilation cache, ``/dev/shm``, and the
final ordering of pod volumes after the main container's mounts.

Each function returns a new list or dict; inputs are never mutated. Errors are the operator's
render errors (a user template that the operator would refuse to turn into a pod).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    BACKEND_FRAMEWORK_VLLM,
    DEFAULT_SHARED_MEMORY_MOUNT_PATH,
    DEFAULT_SHARED_MEMORY_SIZE,
    DEFAULT_VLLM_CACHE_MOUNT_POINT,
    KUBE_VALUE_NAME_SHARED_MEMORY,
)
from dynamo_pulumi.floor.placeholders import contains_output_token
from dynamo_pulumi.render.pod.merge import clone
from dynamo_pulumi.render.pod.quantity import canonical_quantity

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import CompilationCacheConfig

_CACHE_PATH = "spec.compilationCache"

# --- compilation cache ----------------------------------------------------------------------------


def default_compilation_cache_mount_path(framework: str) -> str:
    """Only vLLM has a default cache directory; SGLang and TRT-LLM must name one."""
    return DEFAULT_VLLM_CACHE_MOUNT_POINT if framework == BACKEND_FRAMEWORK_VLLM else ""


def compilation_cache_mount_path(cache: CompilationCacheConfig | None, framework: str) -> str | None:
    """The mount path after defaulting; None without a cache; a RenderError when none applies."""
    if cache is None:
        return None
    if not cache.pvc_name:
        raise RenderError("compilationCache.pvcName is required when compilationCache is set", _CACHE_PATH)
    path = cache.mount_path or default_compilation_cache_mount_path(framework)
    if not path:
        raise RenderError(
            f"compilationCache.mountPath is required for backend framework {framework} (no default available)",
            f"{_CACHE_PATH}.mountPath",
        )
    return path


def apply_compilation_cache_mount(mounts: list[dict[str, Any]], pvc: str, path: str) -> list[dict[str, Any]]:
    """``applyCompilationCache``: mount the PVC once at ``path``; refuse a clash or a read-only mount.

    A mount of the PVC without a path (left by older conversions) is given the cache path first.
    """
    result: list[dict[str, Any]] = []
    mounted = False
    for original in mounts:
        mount = dict(original)
        if mount.get("name") == pvc and not mount.get("mountPath"):
            mount["mountPath"] = path
        if mount.get("mountPath") != path:
            result.append(mount)
            continue
        if mount.get("name") != pvc:
            raise RenderError(
                f'compilationCache.mountPath "{path}" is already used by volume "{mount.get("name")}"',
                f"{_CACHE_PATH}.mountPath",
            )
        if mount.get("readOnly") is True:
            raise RenderError(f'compilation cache volume "{pvc}" at "{path}" must be writable', _CACHE_PATH)
        if not mounted:
            result.append(mount)
            mounted = True
    if not mounted:
        result.append({"name": pvc, "mountPath": path})
    return result


def apply_compilation_cache_volume(volumes: list[dict[str, Any]], pvc: str) -> list[dict[str, Any]]:
    """``applyCompilationCacheVolume``: add the PVC volume unless a writable one of that name exists."""
    found = False
    for volume in volumes:
        if volume.get("name") != pvc:
            continue
        claim = volume.get("persistentVolumeClaim")
        if not isinstance(claim, dict):
            raise RenderError(f'compilation cache volume "{pvc}" must reference PVC "{pvc}"', _CACHE_PATH)
        if claim.get("claimName") != pvc:
            raise RenderError(
                f'compilation cache volume "{pvc}" references PVC "{claim.get("claimName")}" instead of "{pvc}"',
                _CACHE_PATH,
            )
        if claim.get("readOnly") is True:
            raise RenderError(f'compilation cache PVC "{pvc}" must be writable', _CACHE_PATH)
        if found:
            raise RenderError(f'compilation cache volume "{pvc}" is defined more than once', _CACHE_PATH)
        found = True
    if found:
        return list(volumes)
    return [*volumes, {"name": pvc, "persistentVolumeClaim": {"claimName": pvc}}]


def validate_volume_mounts(mounts: list[dict[str, Any]]) -> None:
    """``validateContainerVolumeMounts``: every main-container mount needs a name and a path."""
    for mount in mounts:
        if not mount.get("name"):
            raise RenderError("volumeMount.name is required", "spec.podTemplate.spec.containers[main].volumeMounts")
        if not mount.get("mountPath"):
            raise RenderError(
                f"volumeMount.mountPath is required for {mount.get('name')}",
                "spec.podTemplate.spec.containers[main].volumeMounts",
            )


# --- shared memory --------------------------------------------------------------------------------


def shared_memory_size(size: Any) -> Any | None:
    """The tmpfs size: 8Gi when unset, None (no volume) when the quantity is zero."""
    if size is None:
        return DEFAULT_SHARED_MEMORY_SIZE
    if contains_output_token(size):
        raise RenderError(
            "the rendering reads this size (0 means no /dev/shm volume), and a pulumi.Output's value "
            "cannot be read at preview time; give a plain quantity", "spec.sharedMemorySize")
    if isinstance(size, (str, int, float)) and not isinstance(size, bool):
        try:
            if parse_quantity(size) == 0:
                return None
        except ValueError:
            raise RenderError(f"invalid sharedMemorySize {size!r}", "spec.sharedMemorySize") from None
    return size


def apply_shared_memory(
    volumes: list[dict[str, Any]], mounts: list[dict[str, Any]], size: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``ApplySharedMemoryVolumeAndMount``: (volumes, main mounts) with ``/dev/shm`` moved last.

    Any volume named ``shared-memory`` is replaced, and any main mount of that name or at
    ``/dev/shm`` is dropped, so the operator's tmpfs is the only one.
    """
    limit = shared_memory_size(size)
    if limit is None:
        return list(volumes), list(mounts)
    volume = {
        "name": KUBE_VALUE_NAME_SHARED_MEMORY,
        "emptyDir": {"medium": "Memory", "sizeLimit": canonical_quantity(limit)},
    }
    mount = {"name": KUBE_VALUE_NAME_SHARED_MEMORY, "mountPath": DEFAULT_SHARED_MEMORY_MOUNT_PATH}
    kept_volumes = [v for v in volumes if v.get("name") != KUBE_VALUE_NAME_SHARED_MEMORY]
    kept_mounts = [
        m
        for m in mounts
        if m.get("name") != KUBE_VALUE_NAME_SHARED_MEMORY and m.get("mountPath") != DEFAULT_SHARED_MEMORY_MOUNT_PATH
    ]
    return [*kept_volumes, volume], [*kept_mounts, mount]


# --- ordering -------------------------------------------------------------------------------------


def order_volumes_by_mounts(volumes: list[dict[str, Any]], mounts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``appendMissingPVCVolumesForMounts``: main-mount order first, then the rest as they were.

    A mount with no volume of its name gets a PVC volume of the same name, which is how
    templates converted from v1alpha1 top-level PVCs keep working.
    """
    by_name = {v.get("name"): v for v in volumes}
    ordered: list[dict[str, Any]] = []
    seen: set[Any] = set()
    for mount in mounts:
        name = mount.get("name")
        if not name or name in seen:
            continue
        seen.add(name)
        if name in by_name:
            ordered.append(by_name[name])
        else:
            ordered.append({"name": name, "persistentVolumeClaim": {"claimName": name}})
    ordered.extend(v for v in volumes if v.get("name") not in seen)
    return [clone(v) for v in ordered]


def append_missing_mounts(dst: list[dict[str, Any]], mounts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``appendMissingVolumeMounts``: add mounts whose names ``dst`` does not have yet."""
    result = list(dst)
    seen = {m.get("name") for m in dst}
    for mount in mounts:
        if mount.get("name") in seen:
            continue
        result.append(clone(mount))
        seen.add(mount.get("name"))
    return result
