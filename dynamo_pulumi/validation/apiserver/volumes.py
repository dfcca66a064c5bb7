"""Volumes and mounts: ``ValidateVolumes`` (unique DNS-1123 label names, at most one source:
``validateVolumeSource``) and ``ValidateVolumeMounts`` (each mount names a volume of the pod,
has a path, no two mounts of a container share a path, and ``subPath``/``subPathExpr`` stay
below the volume: ``validateLocalDescendingPath``).

A volume with no source at all is not refused: the API server's defaulting (``SetDefaults_Volume``)
makes it an ``emptyDir`` before validation runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import ErrorType, FieldError, Path, duplicate, forbidden, invalid, required
from dynamo_pulumi.floor.kube_names import dns1123_label_problems
from dynamo_pulumi.validation.apiserver._common import items, mapping, text

#: The volume source fields of core/v1 ``VolumeSource``, in the API server's checking order.
VOLUME_SOURCES = (
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs",
    "iscsi", "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte",
    "downwardAPI", "fc", "flexVolume", "configMap", "azureFile", "vsphereVolume", "photonPersistentDisk",
    "portworxVolume", "azureDisk", "storageos", "projected", "scaleIO", "csi", "ephemeral", "image",
)


def volume_errors(volumes: Any, path: Path) -> tuple[set[str], list[FieldError]]:
    """``ValidateVolumes``: the names of the valid volumes (what mounts may name) and the errors."""
    names: set[str] = set()
    errors: list[FieldError] = []
    for i, raw in enumerate(items(volumes)):
        volume, at = mapping(raw), path.index(i)
        found = _source_errors(volume, at)
        name = volume.get("name")
        if name is None or name == "":
            found.append(required(at.child("name")))
        elif (known := text(name)) is not None:
            found += [invalid(at.child("name"), known, p) for p in dns1123_label_problems(known)]
            if known in names:
                found.append(duplicate(at.child("name"), known))
        if not found and isinstance(name, str):
            names.add(name)
        errors += found
    return names, errors


def _source_errors(volume: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``validateVolumeSource``'s count: at most one source (the first wins, others forbidden);
    none at all is defaulted to ``emptyDir``."""
    present = [key for key in VOLUME_SOURCES if volume.get(key) is not None]
    return [forbidden(path.child(key), "may not specify more than 1 volume type") for key in present[1:]]


def volume_mount_errors(mounts: Any, volumes: set[str] | None, path: Path) -> list[FieldError]:
    """``ValidateVolumeMounts`` (``volumes`` None: the pod's volumes are not all known, e.g. a
    parked Output, so names are not checked)."""
    errors: list[FieldError] = []
    paths: set[str] = set()
    for i, raw in enumerate(items(mounts)):
        mount, at = mapping(raw), path.index(i)
        name, mount_path = mount.get("name"), mount.get("mountPath")
        if name is None or name == "":
            errors.append(required(at.child("name")))
        if volumes is not None and text(name) is not None and name not in volumes:
            errors.append(FieldError(ErrorType.NOT_FOUND, str(at.child("name")), "", name))
        if mount_path is None or mount_path == "":
            errors.append(required(at.child("mountPath")))
        elif (known := text(mount_path)) is not None:
            if known in paths:
                errors.append(invalid(at.child("mountPath"), known, "must be unique"))
            paths.add(known)
        for key in ("subPath", "subPathExpr"):
            if (sub := text(mount.get(key))):
                errors += [invalid(at.child(key), sub, p) for p in local_descending_path_problems(sub)]
        if mount.get("subPath") and mount.get("subPathExpr"):
            errors.append(invalid(at.child("subPathExpr"), mount.get("subPathExpr"), "subPathExpr and subPath are mutually exclusive"))
    return errors


def local_descending_path_problems(target: str) -> list[str]:
    """``validateLocalDescendingPath``: relative, and no ``..`` element (split at ``/``: the API
    server runs on Linux, where ``filepath.ToSlash`` leaves a backslash alone).

    The API server reports these at ``volumeMounts.subPath`` without the mount's index (it is given
    the list's path); we name the mount."""
    problems = ["must be a relative path"] if target.startswith("/") else []
    if ".." in target.split("/"):
        problems.append("must not contain '..'")
    return problems
