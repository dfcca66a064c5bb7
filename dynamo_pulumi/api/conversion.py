"""v1alpha1 -> v1beta1 conversion (api-and-validation.md section 8), as the conversion webhook does.

The API server stores v1beta1, so an alpha object is what its conversion makes of it: the
``services`` map becomes a ``components`` list sorted by name, the dedicated pod fields and
``extraPodSpec`` become one ``podTemplate`` (:mod:`dynamo_pulumi.api.conversion_pod`), features
with ``enabled: false`` disappear. Alpha-only data with no beta field (pvcs, component
annotations/labels, ingress, dynamoNamespace, autoscaling, a non-promoting subComponentType,
disabled features) is preserved in the ``nvidia.com/dgd-spec`` / ``nvidia.com/dcd-spec``
annotation, the operator's own side channel, which renderers read back with
:func:`preserved_alpha_spec`. The alpha ``status`` is not converted (controllers write it).

Each conversion also returns a :class:`PathMap` from beta field paths back to the alpha paths
the user wrote, so admission errors can be reported there.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from dynamo_pulumi.api import v1alpha1 as alpha
from dynamo_pulumi.api import v1beta1 as beta
from dynamo_pulumi.api.conversion_pod import build_pod_template
from dynamo_pulumi.api.epp_schema import alpha_object_epp_errors
from dynamo_pulumi.api.parse import object_name, parse_model, translate_errors
from dynamo_pulumi.api.path_map import PathMap, Recorder
from dynamo_pulumi.api.pod_schema import alpha_object_errors
from dynamo_pulumi.api.preservation import (
    DCD_SPEC_ANNOTATION,
    DGD_SPEC_ANNOTATION,
    PRESERVED_ENVELOPE_VERSION,
    PROMOTED_SUB_TYPES,
    metadata_with,
    preserved_alpha_spec,
    preserved_shared_spec,
)
from dynamo_pulumi.api.quantity import canonical_quantity
from dynamo_pulumi.errors import FieldError, GraphValidationError
from dynamo_pulumi.floor.constants import FRONTEND_SIDECAR_CONTAINER_NAME
from dynamo_pulumi.floor.records import record

__all__ = [
    "DCD_SPEC_ANNOTATION",
    "DGD_SPEC_ANNOTATION",
    "PRESERVED_ENVELOPE_VERSION",
    "Conversion",
    "PathMap",
    "convert",
    "parse_alpha",
    "preserved_alpha_spec",
]

_BETA_COMPONENT_TYPES = beta.COMPONENT_TYPES
MULTINODE_DEFAULT_NODE_COUNT = 2
_GMS_MODES = {"intraPod": "IntraPod", "interPod": "InterPod"}


@record
class Conversion:
    """An alpha object, what it converts to, and how to find alpha paths again."""

    source: alpha.AlphaObject
    object: beta.DynamoObject
    path_map: PathMap
    #: The alpha-only data kept on the object (also in its conversion annotation), or None.
    preserved: alpha.DynamoGraphDeploymentSpec | alpha.DynamoComponentDeploymentSpec | None


# --- shared spec ------------------------------------------------------------------------------


def component_type_to_hub(spec: alpha.DynamoComponentDeploymentSharedSpec) -> str:
    """``worker`` + ``subComponentType: prefill|decode`` is the beta type prefill|decode."""
    if spec.component_type == "worker" and spec.sub_component_type in PROMOTED_SUB_TYPES:
        return spec.sub_component_type
    return spec.component_type or ""


def _shared_memory_size(spec: alpha.DynamoComponentDeploymentSharedSpec) -> str | None:
    """``"0"`` when disabled, else the (canonical) size; absent when not disabled and zero."""
    shm = spec.shared_memory
    if shm is None:
        return None
    if shm.disabled:
        return "0"
    if shm.size is None:
        return None
    try:
        size = canonical_quantity(shm.size)
    except (ValueError, TypeError, ArithmeticError):
        return None  # the schema pattern admits only parseable quantities; nothing to convert
    return None if size == "0" else size


def _multinode_to_hub(multinode: alpha.MultinodeSpec) -> dict[str, Any]:
    """nodeCount (the CRD default 2 is applied before conversion) and, where the v1beta1 model
    has them, the per-role provider overrides (otherwise they stay in the preserved data)."""
    out: dict[str, Any] = {"nodeCount": multinode.node_count or MULTINODE_DEFAULT_NODE_COUNT}
    for role in ("leader", "worker"):
        value = getattr(multinode, role)
        if value is not None and role in beta.MultinodeSpec.model_fields:
            out[role] = value.to_wire()
    return out


def _non_empty(wire: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The ``keys`` of a wire dict that are set and not empty/zero/false, in ``keys`` order."""
    return {key: wire[key] for key in keys if wire.get(key)}


def _mode_feature_to_hub(
    feature: alpha.GPUMemoryServiceSpec | alpha.FailoverSpec, keys: tuple[str, ...]
) -> dict[str, Any]:
    """An enabled GMS/failover spec: ``mode`` in beta casing, then the non-empty ``keys``."""
    out: dict[str, Any] = {"mode": _GMS_MODES[feature.mode]} if feature.mode else {}
    return out | _non_empty(feature.to_wire(), keys)


def _gms_to_hub(gms: alpha.GPUMemoryServiceSpec) -> dict[str, Any]:
    return _mode_feature_to_hub(gms, ("deviceClassName", "extraClientContainers", "extraClientPods"))


def _failover_to_hub(failover: alpha.FailoverSpec) -> dict[str, Any]:
    return _mode_feature_to_hub(failover, ("numShadows",))


def _checkpoint_to_hub(cp: alpha.ServiceCheckpointConfig) -> dict[str, Any]:
    """Converted whether enabled or not (``enabled`` is required in beta; CRD default false)."""
    wire = cp.to_wire()
    out: dict[str, Any] = {"enabled": bool(cp.enabled)}
    out |= _non_empty(
        wire, ("mode", "startupPolicy", "deletionPolicy", "checkpointRef", "identity", "targetContainerName")
    )
    if cp.job is not None:
        out["job"] = cp.job.to_wire()
    return out


def _experimental_to_hub(spec: alpha.DynamoComponentDeploymentSharedSpec, rec: Recorder) -> dict[str, Any]:
    exp: dict[str, Any] = {}
    if spec.gpu_memory_service is not None and spec.gpu_memory_service.enabled:
        exp["gpuMemoryService"] = _gms_to_hub(spec.gpu_memory_service)
        rec("experimental.gpuMemoryService", "gpuMemoryService")
    if spec.failover is not None and spec.failover.enabled:
        exp["failover"] = _failover_to_hub(spec.failover)
        rec("experimental.failover", "failover")
    if spec.checkpoint is not None:
        exp["checkpoint"] = _checkpoint_to_hub(spec.checkpoint)
        rec("experimental.checkpoint", "checkpoint")
    return exp


_SAME_NAME_FIELDS = (
    "runtimeVersionOverride",
    "globalDynamoNamespace",
    "replicas",
    "minAvailable",
    "modelRef",
    "topologyConstraint",
    "eppConfig",
    "providerOverride",
)


def convert_shared_spec(
    spec: alpha.DynamoComponentDeploymentSharedSpec, rec: Recorder
) -> tuple[dict[str, Any], str]:
    """``ConvertFromDynamoComponentDeploymentSharedSpec`` as a beta wire dict (no ``name``),
    plus the component type (kept apart: alpha allows types the beta enum does not)."""
    wire = spec.to_wire()
    out: dict[str, Any] = {k: wire[k] for k in _SAME_NAME_FIELDS if wire.get(k) is not None}
    ctype = component_type_to_hub(spec)
    rec("type", "subComponentType" if ctype != (spec.component_type or "") else "componentType")
    if spec.multinode is not None:
        out["multinode"] = _multinode_to_hub(spec.multinode)
    size = _shared_memory_size(spec)
    if size is not None:
        out["sharedMemorySize"] = size
        rec("sharedMemorySize", "sharedMemory.disabled" if size == "0" else "sharedMemory.size")
    _compilation_cache(spec, out, rec)
    if spec.scaling_adapter is not None and spec.scaling_adapter.enabled:
        out["scalingAdapter"] = {}
    experimental = _experimental_to_hub(spec, rec)
    if experimental:
        out["experimental"] = experimental
    template = build_pod_template(spec, rec.sub("podTemplate"))
    if template is not None:
        out["podTemplate"] = template
        if spec.frontend_sidecar is not None:
            out["frontendSidecar"] = FRONTEND_SIDECAR_CONTAINER_NAME
    return out, ctype


def _compilation_cache(spec: alpha.DynamoComponentDeploymentSharedSpec, out: dict[str, Any], rec: Recorder) -> None:
    """The first mount flagged ``useAsCompilationCache`` becomes ``compilationCache``."""
    for i, vm in enumerate(spec.volume_mounts or []):
        if vm.use_as_compilation_cache:
            cache: dict[str, Any] = {"pvcName": vm.name}
            if vm.mount_point:
                cache["mountPath"] = vm.mount_point
            out["compilationCache"] = cache
            rec("compilationCache", f"volumeMounts[{i}]")
            rec("compilationCache.pvcName", f"volumeMounts[{i}].name")
            rec("compilationCache.mountPath", f"volumeMounts[{i}].mountPoint")
            return


def _build_component(
    model: type[beta.ComponentSpecFields], data: dict[str, Any], ctype: str, paths: PathMap, where: str
) -> Any:
    """Validate the converted dict as a beta model; a type outside the beta enum is kept as is."""
    if ctype and ctype in _BETA_COMPONENT_TYPES:
        data = {"type": ctype, **data}
    try:
        comp = _beyond_beta_bounds(model, data)
    except ValidationError as exc:
        errors = [paths.map_error(e) for e in translate_errors(exc, data, where)]
        raise _ConversionFailed(errors) from None
    if ctype and ctype not in _BETA_COMPONENT_TYPES:
        # The conversion webhook copies any alpha componentType; the beta enum is not re-checked.
        comp.type = ctype  # type: ignore[assignment]
    return comp


def _beyond_beta_bounds(model: type[beta.ComponentSpecFields], data: dict[str, Any]) -> Any:
    """``data`` as ``model``, keeping values the alpha schema admitted beyond v1beta1's bounds.

    The converted object never meets the v1beta1 schema (the API server checks the version it
    was sent in), so an empty alpha service key or ``failover.numShadows: 2`` reach the webhook
    as written, which then answers in its own words. A bound error (minimum, maximum, minimum
    length) is validated with the bound in its place and the written value put back; any other
    error is raised.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        found = exc.errors()
        stand_ins = [_within_bound(e) for e in found]
        if any(s is _NO_STAND_IN for s in stand_ins):
            raise
        patched = copy.deepcopy(data)
        for error, stand_in in zip(found, stand_ins, strict=True):
            _put(patched, error["loc"], stand_in)
        comp = model.model_validate(patched)
        for error in found:
            _put_attribute(comp, error["loc"], error["input"])
        return comp


_NO_STAND_IN = object()


def _within_bound(error: Any) -> Any:
    """A value meeting the bound ``error`` names, or ``_NO_STAND_IN``."""
    ctx = error.get("ctx") or {}
    kind = error["type"]
    if kind == "greater_than_equal":
        return ctx["ge"]
    if kind == "less_than_equal":
        return ctx["le"]
    if kind == "string_too_short":
        return "x" * int(ctx["min_length"])
    return _NO_STAND_IN


def _put(data: Any, loc: tuple[Any, ...], value: Any) -> None:
    for key in loc[:-1]:
        data = data[key]
    data[loc[-1]] = value


def _put_attribute(obj: Any, loc: tuple[Any, ...], value: Any) -> None:
    """Set the field at wire location ``loc`` of a model tree (aliases resolved per model)."""
    for i, key in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(obj, (dict, list)):
            if last:
                obj[key] = value
                return
            obj = obj[key]
            continue
        attr = next((n for n, f in type(obj).model_fields.items() if key in (f.alias, n)), key)
        if last:
            object.__setattr__(obj, attr, value)
            return
        obj = getattr(obj, attr)


class _ConversionFailed(Exception):
    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        super().__init__("conversion failed")


# --- objects ----------------------------------------------------------------------------------


def _dgd_spec_to_hub(spec: alpha.DynamoGraphDeploymentSpec, paths: PathMap) -> dict[str, Any]:
    wire = spec.to_wire()
    out: dict[str, Any] = {}
    for key in ("annotations", "labels", "priorityClassName", "backendFramework"):
        if wire.get(key):  # Go's omitempty drops empty maps and strings
            out[key] = wire[key]
    for key in ("providerOverride", "restart"):
        if key in wire:
            out[key] = wire[key]
    if spec.topology_constraint is not None:
        tc: dict[str, Any] = {"clusterTopologyName": spec.topology_constraint.topology_profile}
        if spec.topology_constraint.pack_domain:
            tc["packDomain"] = spec.topology_constraint.pack_domain
        out["topologyConstraint"] = tc
        paths.add("spec.topologyConstraint.clusterTopologyName", "spec.topologyConstraint.topologyProfile")
    if spec.experimental is not None:
        out["experimental"] = {}
        if spec.experimental.kv_transfer_policy is not None:
            out["experimental"]["kvTransferPolicy"] = spec.experimental.kv_transfer_policy.to_wire()
    if spec.envs:
        out["env"] = wire["envs"]
        paths.add("spec.env", "spec.envs")
    return out


def _convert_dgd(src: alpha.DynamoGraphDeployment) -> Conversion:
    paths = PathMap()
    paths.add("spec.components", "spec.services")
    spec = _dgd_spec_to_hub(src.spec, paths)
    components: list[Any] = []
    preserved: dict[str, Any] = {}
    if src.spec.pvcs:
        preserved["pvcs"] = [p.to_wire() for p in src.spec.pvcs]
    services = src.spec.services or {}
    for name in sorted(services):
        svc = services[name]
        if svc is None:  # no component, but kept so the operator restores the null entry
            preserved.setdefault("services", {})[name] = None
            continue
        where = f"spec.components[{len(components)}]"
        rec = Recorder(paths, where, f"spec.services[{name}]")
        rec("name", "")  # the map key is the name
        data, ctype = convert_shared_spec(svc, rec)
        components.append(_build_component(beta.DynamoComponentDeploymentSharedSpec, {"name": name, **data},
                                           ctype, paths, where))
        kept = preserved_shared_spec(svc, name)
        if kept:
            preserved.setdefault("services", {})[name] = kept
    obj = beta.DynamoGraphDeployment.model_validate(
        {"metadata": metadata_with(src.metadata, DGD_SPEC_ANNOTATION, preserved), "spec": spec}
    )
    if components:
        obj.spec.components = components
    return Conversion(src, obj, paths, _preserved_model(alpha.DynamoGraphDeploymentSpec, preserved))


def _convert_dcd(src: alpha.DynamoComponentDeployment) -> Conversion:
    paths = PathMap()
    rec = Recorder(paths, "spec", "spec")
    data, ctype = convert_shared_spec(src.spec, rec)
    if src.spec.backend_framework:
        data["backendFramework"] = src.spec.backend_framework
    # v1beta1 needs spec.name: serviceName, else the object name.
    name = src.spec.service_name or src.name
    if name:
        data["name"] = name
    paths.add("spec.name", "spec.serviceName" if src.spec.service_name else "metadata.name")
    spec = _build_component(beta.DynamoComponentDeploymentSpec, data, ctype, paths, "spec")
    preserved = preserved_shared_spec(src.spec, None)
    obj = beta.DynamoComponentDeployment.model_validate(
        {"metadata": metadata_with(src.metadata, DCD_SPEC_ANNOTATION, preserved), "spec": {}}
    )
    obj.spec = spec
    return Conversion(src, obj, paths, _preserved_model(alpha.DynamoComponentDeploymentSpec, preserved))


def _convert_dgdsa(src: alpha.DynamoGraphDeploymentScalingAdapter) -> Conversion:
    paths = PathMap()
    paths.add("spec.dgdRef.componentName", "spec.dgdRef.serviceName")
    obj = beta.DynamoGraphDeploymentScalingAdapter.model_validate(
        {
            "metadata": src.metadata.to_wire(),
            "spec": {
                "replicas": src.spec.replicas,
                "dgdRef": {"name": src.spec.dgd_ref.name, "componentName": src.spec.dgd_ref.service_name},
            },
        }
    )
    return Conversion(src, obj, paths, None)


def _preserved_model(model: type[Any], preserved: dict[str, Any]) -> Any:
    return model.model_validate(preserved) if preserved else None


def convert(src: alpha.AlphaObject) -> Conversion:
    """Convert a schema-valid alpha object; raises GraphValidationError (alpha paths) if the
    result is not a valid beta object (alpha accepts a few values beta's schema does not)."""
    try:
        if isinstance(src, alpha.DynamoGraphDeployment):
            return _convert_dgd(src)
        if isinstance(src, alpha.DynamoComponentDeployment):
            return _convert_dcd(src)
        return _convert_dgdsa(src)
    except _ConversionFailed as failed:
        raise GraphValidationError(failed.errors, kind=src.kind, name=src.name) from None


#: Subtrees the alpha CRD keeps as given (x-kubernetes-preserve-unknown-fields): nulls stay.
_OPAQUE_KEYS = frozenset({"value", "config", "podTemplate"})


def prune_nulls(data: Any) -> Any:
    """Drop ``null`` values the way the API server prunes them from non-nullable schema fields."""
    if isinstance(data, Mapping):
        return {
            k: (v if k in _OPAQUE_KEYS else prune_nulls(v)) for k, v in data.items() if v is not None
        }
    if isinstance(data, list):
        return [prune_nulls(v) for v in data]
    return data


def _with_null_services(data: Mapping[str, Any], pruned: Any) -> Any:
    """``pruned`` with the ``null`` entries of ``spec.services`` put back.

    We convert a v1alpha1 graph ourselves and send the v1beta1 hub (operator mode), so the null
    entry reaches conversion as it does the webhook's ``ConvertTo`` in
    ``TestDGD_SpokeSaveCarriesNilServicesSparsely``: no component, but kept in the
    ``nvidia.com/dgd-spec`` payload so the object reads back in v1alpha1 with the entry. (An
    alpha file applied with kubectl loses it earlier: the API server's decoder prunes the null.)"""
    spec = data.get("spec")
    services = spec.get("services") if isinstance(spec, Mapping) else None
    if not isinstance(services, Mapping) or None not in services.values():
        return pruned
    kept = {key: (None if value is None else pruned["spec"]["services"][key]) for key, value in services.items()}
    return {**pruned, "spec": {**pruned["spec"], "services": kept}}


def _alpha_schema_errors(data: Any) -> list[FieldError]:
    """What the alpha CRD's schema refuses beyond the models: the embedded core/v1 types, and the
    EPP config as the defaulting webhook's round trip hands it back (:mod:`.epp_schema`)."""
    return [*alpha_object_errors(data), *alpha_object_epp_errors(data)]


def parse_alpha(data: Mapping[str, Any]) -> alpha.AlphaObject:
    """An alpha wire dict as its model; schema errors at alpha (wire) paths."""
    kind = str(data.get("kind"))
    model = alpha.ALPHA_KINDS[kind]
    pruned = _with_null_services(data, prune_nulls(data)) if kind == "DynamoGraphDeployment" else prune_nulls(data)
    return parse_model(  # type: ignore[return-value]
        model, pruned, kind=kind, name=object_name(data), extra_errors=_alpha_schema_errors
    )
