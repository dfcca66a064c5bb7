"""v1alpha1 pod fields -> a v1beta1 ``podTemplate`` (api-and-validation.md section 8).

Alpha spreads the main container over ten dedicated fields (``resources``, ``envs``,
``envFromSecret``, probes, ``volumeMounts``) plus ``extraPodSpec.mainContainer``; v1beta1 has
one PodTemplateSpec whose ``main`` container holds them all. The conversion webhook builds the
main container from the dedicated fields, merges ``mainContainer`` over it with override
semantics (env additive, mounts concatenated), places it first, keeps the other containers as
sidecars and appends a ``sidecar-frontend`` container for ``frontendSidecar``.

Every beta location built here is recorded with the alpha location it came from, so admission
errors can be reported where the user wrote the field.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from dynamo_pulumi.api.quantity import canonical_quantity
from dynamo_pulumi.api.v1alpha1 import (
    DynamoComponentDeploymentSharedSpec,
    FrontendSidecarSpec,
    ResourceItem,
    Resources,
)
from dynamo_pulumi.floor.constants import FRONTEND_SIDECAR_CONTAINER_NAME, MAIN_CONTAINER_NAME

#: The GPU resource key when ``gpuType`` is not given (``defaultGPUResourceName``).
DEFAULT_GPU_RESOURCE_NAME = "nvidia.com/gpu"

#: Records ``beta sub-path -> alpha sub-path`` relative to the component.
Record = Callable[[str, str], None]


def _canonical(value: str) -> str | None:
    """The quantity as Go re-serializes it, or None when Go's parser rejects it."""
    try:
        return canonical_quantity(value)
    except (ValueError, TypeError, ArithmeticError):
        return None


def item_to_resource_list(item: ResourceItem | None) -> dict[str, str] | None:
    """cpu/memory/gpu/custom as a ResourceList; unparsable quantities are dropped, as Go does."""
    if item is None:
        return None
    entries: list[tuple[str, str | None]] = [("cpu", item.cpu), ("memory", item.memory)]
    entries.append((item.gpu_type or DEFAULT_GPU_RESOURCE_NAME, item.gpu))
    entries += list((item.custom or {}).items())
    out: dict[str, str] = {}
    for key, raw in entries:
        value = _canonical(raw) if raw else None
        if value is not None:
            out[key] = value
    # A Go map marshals with its keys sorted.
    return {k: out[k] for k in sorted(out)} or None


def resources_to_native(resources: Resources) -> dict[str, Any]:
    out: dict[str, Any] = {}
    limits = item_to_resource_list(resources.limits)
    requests = item_to_resource_list(resources.requests)
    if limits:
        out["limits"] = limits
    if requests:
        out["requests"] = requests
    if resources.claims:
        out["claims"] = copy.deepcopy(resources.claims)
    return out


def _secret_env_from(name: str) -> list[dict[str, Any]]:
    return [{"secretRef": {"name": name}}]


def main_from_dedicated(spec: DynamoComponentDeploymentSharedSpec, record: Record) -> dict[str, Any]:
    """``buildMainContainerFromDedicated``: the flat alpha fields as a container named main."""
    main: dict[str, Any] = {"name": MAIN_CONTAINER_NAME}
    if spec.resources is not None:
        native = resources_to_native(spec.resources)
        if native:
            main["resources"] = native
            record("resources", "resources")
    if spec.envs:
        main["env"] = copy.deepcopy(spec.envs)
        record("env", "envs")
    if spec.env_from_secret:
        main["envFrom"] = _secret_env_from(spec.env_from_secret)
        record("envFrom", "envFromSecret")
    for probe, key in (("livenessProbe", "liveness_probe"), ("readinessProbe", "readiness_probe")):
        value = getattr(spec, key)
        if value is not None:
            main[probe] = copy.deepcopy(value)
            record(probe, probe)
    mounts = [
        {"name": vm.name, "mountPath": vm.mount_point or ""} for vm in spec.volume_mounts or []
    ]
    if mounts:
        main["volumeMounts"] = mounts
        for i, _ in enumerate(mounts):
            record(f"volumeMounts[{i}]", f"volumeMounts[{i}]")
            record(f"volumeMounts[{i}].mountPath", f"volumeMounts[{i}].mountPoint")
    return main


def _is_zero(value: Any) -> bool:
    """Go's zero value, which ``mergo.WithOverride`` never copies over a set field."""
    if value is None or isinstance(value, bool):
        return value is not True
    if isinstance(value, (int, float)):
        return value == 0
    if isinstance(value, (str, list, Mapping)):
        return not value
    return False  # pulumi.Output and other opaque leaves are always "set"


def merge_override(dst: dict[str, Any], src: Mapping[str, Any]) -> dict[str, Any]:
    """``mergo.Merge(dst, src, WithOverride)`` on wire mappings: non-zero src values win,
    mappings merge key by key, lists are replaced."""
    out = dict(dst)
    for key, value in src.items():
        if _is_zero(value):
            continue
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge_override(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _as_list(value: Any) -> list[Any]:
    """A list field as given; anything else (a schema violation kept as given) as empty."""
    return list(value) if isinstance(value, list) else []


def merge_envs(common: list[Any], specific: list[Any]) -> list[Any]:
    """``mergeEnvs``: all common entries in order, then each specific entry replaces the latest
    entry of the same name in place or is appended (duplicates within ``common`` stay)."""
    out: list[Any] = []
    seen: dict[str, int] = {}
    for entry in common:
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if isinstance(name, str):
            seen[name] = len(out)
        out.append(entry)
    for entry in specific:
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if isinstance(name, str) and name in seen:
            out[seen[name]] = entry
            continue
        if isinstance(name, str):
            seen[name] = len(out)
        out.append(entry)
    return out


def _env_name(entry: Any) -> str | None:
    name = entry.get("name") if isinstance(entry, Mapping) else None
    return name if isinstance(name, str) else None


def _env_origins(common: list[Any], specific: list[Any]) -> list[str]:
    """Where each entry of ``merge_envs(common, specific)`` came from: ``envs[i]`` (the dedicated
    field) or ``extraPodSpec.mainContainer.env[j]``, following merge_envs step by step."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(common):
        name = _env_name(entry)
        if name is not None:
            seen[name] = len(out)
        out.append(f"envs[{i}]")
    for j, entry in enumerate(specific):
        name = _env_name(entry)
        origin = f"extraPodSpec.mainContainer.env[{j}]"
        if name is not None and name in seen:
            out[seen[name]] = origin
            continue
        if name is not None:
            seen[name] = len(out)
        out.append(origin)
    return out


def merge_main_container(
    base: dict[str, Any], main: Mapping[str, Any], record: Record, dedicated_mounts: int
) -> dict[str, Any]:
    """``mergeExtraPodSpecMainContainer``: mainContainer over the dedicated fields."""
    merged = merge_override(base, {k: v for k, v in main.items() if k != "name"})
    env = merge_envs(_as_list(base.get("env")), _as_list(main.get("env")))
    if env:
        merged["env"] = env
    main_mounts = _as_list(main.get("volumeMounts"))
    mounts = copy.deepcopy(main_mounts) + _as_list(base.get("volumeMounts"))
    if mounts:
        merged["volumeMounts"] = mounts
    if main.get("startupProbe") is not None:
        merged["startupProbe"] = copy.deepcopy(main["startupProbe"])
    for key in main:
        if key not in ("name", "env", "volumeMounts") and not _is_zero(main[key]):
            record(key, f"extraPodSpec.mainContainer.{key}")
    if main.get("env"):
        record("env", "extraPodSpec.mainContainer.env")
        origins = _env_origins(_as_list(base.get("env")), _as_list(main.get("env")))
        for i, origin in enumerate(origins):
            record(f"env[{i}]", origin)
    # The user's mounts come first now: shift the dedicated mounts' records after them.
    for i in range(len(main_mounts)):
        record(f"volumeMounts[{i}]", f"extraPodSpec.mainContainer.volumeMounts[{i}]")
        record(f"volumeMounts[{i}].mountPath", f"extraPodSpec.mainContainer.volumeMounts[{i}].mountPath")
    for j in range(dedicated_mounts):
        record(f"volumeMounts[{len(main_mounts) + j}]", f"volumeMounts[{j}]")
        record(f"volumeMounts[{len(main_mounts) + j}].mountPath", f"volumeMounts[{j}].mountPoint")
    merged["name"] = MAIN_CONTAINER_NAME
    return merged


def _pod_spec_is_zero(extra_pod_spec: Mapping[str, Any] | None) -> bool:
    if not extra_pod_spec:
        return True
    return all(_is_zero(v) for v in extra_pod_spec.values())


def has_pod_template_content(spec: DynamoComponentDeploymentSharedSpec) -> bool:
    """``hasPodTemplateContent``: anything that lands in the beta podTemplate."""
    return bool(
        spec.resources is not None
        or spec.envs
        or spec.env_from_secret is not None
        or any(not vm.use_as_compilation_cache for vm in spec.volume_mounts or [])
        or spec.liveness_probe is not None
        or spec.readiness_probe is not None
        or not _pod_spec_is_zero(spec.extra_pod_spec)
        or spec.extra_pod_metadata is not None
        or spec.frontend_sidecar is not None
    )


def frontend_sidecar_container(fs: FrontendSidecarSpec) -> dict[str, Any]:
    """``appendFrontendSidecar``: the alpha sidecar struct as a regular container."""
    ctr: dict[str, Any] = {"name": FRONTEND_SIDECAR_CONTAINER_NAME, "image": fs.image}
    if fs.args:
        ctr["args"] = list(fs.args)
    if fs.envs:
        ctr["env"] = copy.deepcopy(fs.envs)
    if fs.env_from_secret:
        ctr["envFrom"] = _secret_env_from(fs.env_from_secret)
    return ctr


def _metadata(spec: DynamoComponentDeploymentSharedSpec, record: Record) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    epm = spec.extra_pod_metadata
    if epm is not None and epm.annotations:
        meta["annotations"] = dict(epm.annotations)
        record("metadata.annotations", "extraPodMetadata.annotations")
    if epm is not None and epm.labels:
        meta["labels"] = dict(epm.labels)
        record("metadata.labels", "extraPodMetadata.labels")
    if epm is not None:
        record("metadata", "extraPodMetadata")
    return meta


def build_pod_template(
    spec: DynamoComponentDeploymentSharedSpec, record: Record
) -> dict[str, Any] | None:
    """``buildSharedPodTemplateFromAlpha``; None when the alpha spec has no pod content.

    ``record(beta, alpha)`` receives paths relative to ``podTemplate`` and the component.
    """
    if not has_pod_template_content(spec):
        return None
    record("", "extraPodSpec")
    template: dict[str, Any] = {}
    meta = _metadata(spec, record)
    if meta:
        template["metadata"] = meta
    pod_spec = {k: copy.deepcopy(v) for k, v in (spec.extra_pod_spec or {}).items() if k != "mainContainer"}
    record("spec", "extraPodSpec")

    def main_record(beta: str, alpha: str) -> None:
        record(f"spec.containers[0].{beta}", alpha)

    main = main_from_dedicated(spec, main_record)
    record("spec.containers[0]", "extraPodSpec.mainContainer")
    user_main = spec.main_container
    if user_main is not None:
        main = merge_main_container(main, user_main, main_record, len(spec.volume_mounts or []))
    main["name"] = MAIN_CONTAINER_NAME
    containers = [main]
    for i, ctr in enumerate(_as_list(pod_spec.get("containers"))):
        if isinstance(ctr, Mapping) and ctr.get("name") == MAIN_CONTAINER_NAME:
            continue
        record(f"spec.containers[{len(containers)}]", f"extraPodSpec.containers[{i}]")
        containers.append(ctr)
    if spec.frontend_sidecar is not None and not any(
        isinstance(c, Mapping) and c.get("name") == FRONTEND_SIDECAR_CONTAINER_NAME for c in containers
    ):
        _record_sidecar(record, len(containers))
        containers.append(frontend_sidecar_container(spec.frontend_sidecar))
    pod_spec["containers"] = containers
    template["spec"] = canonical_pod_quantities(pod_spec)
    return template


def _canonical_resource_list(entries: Any) -> Any:
    if not isinstance(entries, Mapping):
        return entries
    out: dict[str, Any] = {}
    for name, value in entries.items():
        canonical = _canonical(str(value)) if isinstance(value, (str, int, float)) else None
        out[name] = canonical if canonical is not None else value
    return out


def canonical_pod_quantities(pod_spec: dict[str, Any]) -> dict[str, Any]:
    """Container resource quantities as the webhook's Go round trip spells them (``1000m`` ->
    ``1``, ``1`` -> ``"1"``); values Go could not parse (or deploy-time tokens) stay as given."""
    for key in ("containers", "initContainers"):
        for ctr in _as_list(pod_spec.get(key)):
            res = ctr.get("resources") if isinstance(ctr, dict) else None
            if isinstance(res, dict):
                for list_name in ("limits", "requests"):
                    if list_name in res:
                        res[list_name] = _canonical_resource_list(res[list_name])
    return pod_spec


def _record_sidecar(record: Record, index: int) -> None:
    base = f"spec.containers[{index}]"
    record(base, "frontendSidecar")
    for beta, alpha in (("env", "envs"), ("envFrom", "envFromSecret")):
        record(f"{base}.{beta}", f"frontendSidecar.{alpha}")
