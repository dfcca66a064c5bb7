"""Containers: ``validateContainers``, ``validateInitContainers`` and ``validateContainerCommon``.

Names are required DNS-1123 labels, unique across containers and init containers; ports, env,
mounts, pull policy and resources follow their own modules; probes and lifecycle hooks are
allowed on regular containers and on restartable (``restartPolicy: Always``) init containers only;
``restartPolicy`` itself only on init containers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, duplicate, forbidden, invalid, not_supported, required
from dynamo_pulumi.floor.kube_names import dns1123_label_problems
from dynamo_pulumi.validation.apiserver._common import integer, items, mapping, text
from dynamo_pulumi.validation.apiserver.enums import PULL_POLICIES, TERMINATION_MESSAGE_POLICIES, enum_errors
from dynamo_pulumi.validation.apiserver.env import env_errors, env_from_errors
from dynamo_pulumi.validation.apiserver.ports import container_port_errors
from dynamo_pulumi.validation.apiserver.probes import DEFAULT_GRACE_PERIOD, lifecycle_errors, probe_errors
from dynamo_pulumi.validation.apiserver.resources import resource_requirement_errors
from dynamo_pulumi.validation.apiserver.volumes import volume_mount_errors

_PROBES = (("livenessProbe", "liveness"), ("readinessProbe", "readiness"), ("startupProbe", "startup"))
_INIT_ONLY_MESSAGE = "may not be set for init containers without restartPolicy=Always"


def containers_errors(spec: Mapping[str, Any], volumes: set[str] | None, path: Path) -> list[FieldError]:
    """``validateContainers`` then ``validateInitContainers`` of one pod spec."""
    regular = items(spec.get("containers"))
    grace = _grace_period(spec)
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, raw in enumerate(regular):
        container, at = mapping(raw), path.child("containers").index(i)
        errors += container_common_errors(container, volumes, at)
        errors += _unique_name(container, names, at)
        errors += _probes_and_hooks(container, at, grace)
        if container.get("restartPolicy") is not None:
            errors.append(forbidden(at.child("restartPolicy"), "may not be set for non-init containers"))
    errors += host_port_conflicts(regular, path.child("containers"))
    for i, raw in enumerate(items(spec.get("initContainers"))):
        errors += _init_container_errors(mapping(raw), volumes, names, path.child("initContainers").index(i), grace)
    return errors


def _grace_period(spec: Mapping[str, Any]) -> int | None:
    """The pod's termination grace period after defaulting (None: written but not known)."""
    grace = spec.get("terminationGracePeriodSeconds")
    return DEFAULT_GRACE_PERIOD if grace is None else integer(grace)


def host_port_conflicts(containers: list[Any], path: Path) -> list[FieldError]:
    """``AccumulateUniqueHostPorts``: one (protocol, hostIP, hostPort) per pod."""
    seen: set[str] = set()
    errors: list[FieldError] = []
    for i, raw in enumerate(containers):
        for j, port in enumerate(items(mapping(raw).get("ports"))):
            host_port = mapping(port).get("hostPort")
            if not isinstance(host_port, int) or isinstance(host_port, bool) or host_port == 0:
                continue
            key = f'{mapping(port).get("protocol") or "TCP"}/{mapping(port).get("hostIP") or ""}/{host_port}'
            if key in seen:
                errors.append(duplicate(path.index(i).child("ports").index(j).child("hostPort"), key))
            seen.add(key)
    return errors


def _unique_name(container: Mapping[str, Any], names: set[str], at: Path) -> list[FieldError]:
    name = text(container.get("name"))
    if name is None:
        return []
    if name in names:
        return [duplicate(at.child("name"), name)]
    if name:
        names.add(name)
    return []


def _init_container_errors(
    container: Mapping[str, Any], volumes: set[str] | None, names: set[str], at: Path, grace: int | None
) -> list[FieldError]:
    errors = container_common_errors(container, volumes, at)
    policy = container.get("restartPolicy")
    if policy is not None and policy != "Always":
        errors.append(not_supported(at.child("restartPolicy"), policy, ("Always",)))
    errors += _unique_name(container, names, at)
    if policy == "Always":
        return errors + _probes_and_hooks(container, at, grace)
    for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
        if container.get(key) is not None:
            errors.append(forbidden(at.child(key), _INIT_ONLY_MESSAGE))
    return errors


def _probes_and_hooks(container: Mapping[str, Any], at: Path, grace: int | None) -> list[FieldError]:
    errors = lifecycle_errors(container.get("lifecycle"), at.child("lifecycle"), grace)
    for key, kind in _PROBES:
        errors += probe_errors(container.get(key), at.child(key), kind)
    return errors


def container_common_errors(container: Mapping[str, Any], volumes: set[str] | None, at: Path) -> list[FieldError]:
    """``validateContainerCommon``: name, image, enums, ports, env, mounts, resources."""
    errors: list[FieldError] = []
    name = container.get("name")
    if name is None or name == "":
        errors.append(required(at.child("name")))
    elif (known := text(name)) is not None:
        errors += [invalid(at.child("name"), known, p) for p in dns1123_label_problems(known)]
    if container.get("image") == "":
        errors.append(required(at.child("image")))
    errors += enum_errors(container.get("terminationMessagePolicy"), at.child("terminationMessagePolicy"), TERMINATION_MESSAGE_POLICIES)
    errors += container_port_errors(container.get("ports"), at.child("ports"))
    errors += env_errors(container.get("env"), at.child("env"))
    errors += env_from_errors(container.get("envFrom"), at.child("envFrom"))
    errors += volume_mount_errors(container.get("volumeMounts"), volumes, at.child("volumeMounts"))
    errors += enum_errors(container.get("imagePullPolicy"), at.child("imagePullPolicy"), PULL_POLICIES)
    errors += resource_requirement_errors(container.get("resources"), at.child("resources"))
    return errors
