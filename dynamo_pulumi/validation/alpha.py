"""v1alpha1 admission at alpha paths: the alpha CRD's CEL rules, and the webhook's v1alpha1
compatibility pass (api-and-validation.md 4.6).

Order matters and follows the API server: an alpha object meets its own schema and CEL rules
first (:func:`alpha_schema_errors`, before conversion), then the v1beta1 webhook on the
converted object, then the compatibility pass (:func:`alpha_compat_findings`) on the alpha
view. CEL failures are ``Invalid value`` with the schema node's type as value, at the path the
CEL walker builds (map entries as ``[key]``); webhook errors use ``field.Path.Key`` too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.api import v1alpha1 as alpha
from dynamo_pulumi.api.preservation import preserved_alpha_spec
from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError, Findings, Path, forbidden, invalid, required, too_many
from dynamo_pulumi.floor.constants import (
    FRONTEND_SIDECAR_CONTAINER_NAME,
    KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
)
from dynamo_pulumi.floor.naming import dynamo_namespace
from dynamo_pulumi.validation.cel import (
    MSG_CHECKPOINT_JOB_WITH_REF,
    MSG_MIN_AVAILABLE_IMMUTABLE,
    MSG_MIN_AVAILABLE_LE_REPLICAS,
    MSG_RESTART_ON_CREATE,
    OBJECT,
    VLLM_DISTRIBUTED_EXECUTOR_BACKENDS,
    cel_error,
    kv_transfer_policy_errors,
)

MAX_SERVICES = 25
ALPHA_GMS_MODE_INTRA_POD = "intraPod"
ALPHA_GMS_MODE_INTER_POD = "interPod"
MSG_SHARED_MEMORY_SIZE = "size is required when disabled is false"
MSG_GMS_CLIENT_CONTAINERS = "extraClientContainers is only supported with mode=intraPod"
MSG_GMS_CLIENT_PODS_MODE = "extraClientPods is only supported with mode=interPod"
MSG_GMS_CLIENT_PODS_RESERVED = "extraClientPods is reserved for inter-pod GMS and is not implemented yet"
MSG_PVC_NAME = "is required"
MSG_PVC_CREATE = "When create is true, size, storageClass, and volumeAccessMode are required"
MSG_MOUNT_POINT = "is required when useAsCompilationCache is false"
MSG_INGRESS_HOST = "is required when ingress is enabled"
MSG_EPP_EXACTLY_ONE = "exactly one of configMapRef or config is required"
MSG_VLLM_BACKEND = 'must be "mp" or "ray"'
MSG_SIDECAR_CONFLICT = (
    f'cannot inject frontend sidecar: a container named "{FRONTEND_SIDECAR_CONTAINER_NAME}" '
    "already exists in extraPodSpec.containers"
)
MSG_NUM_SHADOWS = (
    'is invalid for mode="intraPod": intraPod uses a fixed 1 primary + 1 shadow sidecar; '
    'use failover.mode="interPod" to configure numShadows'
)
WARN_DYNAMO_NAMESPACE = (
    "{path}.dynamoNamespace is deprecated and ignored. Value {value} will be replaced with {replacement}. "
    "Remove this field from your configuration"
)
WARN_AUTOSCALING = (
    "{path}.autoscaling is deprecated and ignored. Use DynamoGraphDeploymentScalingAdapter with HPA, KEDA, "
    "or Planner for autoscaling instead. See docs/kubernetes/autoscaling.md"
)


def _go_quote(value: str) -> str:
    """Go's ``%q`` for plain strings."""
    return json.dumps(value, ensure_ascii=False)


# --- alpha schema: CEL rules ------------------------------------------------------------------


def alpha_schema_errors(
    obj: alpha.AlphaObject, old: alpha.AlphaObject | None = None, *, on_create: bool = True
) -> list[FieldError]:
    """The alpha CRD's CEL and map-size rules (the OpenAPI field rules live in the models).

    ``old`` is the stored object on update (transition rules run against it). ``on_create``
    adds the create-only rule (``spec.restart`` unset); loading leaves it to the v1beta1 CEL
    pass, which reports it at the same path.
    """
    if isinstance(obj, alpha.DynamoGraphDeployment):
        previous = old if isinstance(old, alpha.DynamoGraphDeployment) else None
        return _dgd_schema_errors(obj, previous, on_create and previous is None)
    if isinstance(obj, alpha.DynamoComponentDeployment):
        previous = old.spec if isinstance(old, alpha.DynamoComponentDeployment) else None
        return [*_empty_mount_names(obj.spec, "spec"), *_service_cel(obj.spec, Path("spec"), previous)]
    return []


def _dgd_schema_errors(
    dgd: alpha.DynamoGraphDeployment, old: alpha.DynamoGraphDeployment | None, on_create: bool
) -> list[FieldError]:
    spec_path = Path("spec")
    errors: list[FieldError] = []
    if on_create and dgd.spec.restart is not None:
        errors.append(cel_error(spec_path, OBJECT, MSG_RESTART_ON_CREATE))
    for i, pvc in enumerate(dgd.spec.pvcs or []):
        if not _pvc_create_fits(pvc):
            errors.append(cel_error(spec_path.child("pvcs").index(i), OBJECT, MSG_PVC_CREATE))
    services = dgd.spec.services or {}
    if len(services) > MAX_SERVICES:
        errors.append(too_many(spec_path.child("services"), len(services), MAX_SERVICES))
    old_services = (old.spec.services or {}) if old is not None else {}
    for name in sorted(services):
        svc = services[name]
        if svc is not None:
            errors += _empty_mount_names(svc, f"spec.services.{name}")
            errors += _service_cel(svc, spec_path.child("services").key(name), old_services.get(name))
    experimental = dgd.spec.experimental
    if experimental is not None and experimental.kv_transfer_policy is not None:
        errors += kv_transfer_policy_errors(
            experimental.kv_transfer_policy, spec_path.child("experimental", "kvTransferPolicy")
        )
    return errors


def _pvc_create_fits(pvc: alpha.PVC) -> bool:
    """``!has(self.create) || self.create == false || (has(size) && has(storageClass) && has(volumeAccessMode))``."""
    if not pvc.create:
        return True
    return pvc.size is not None and pvc.storage_class is not None and pvc.volume_access_mode is not None


def alpha_transition_errors(new: Any, old: Any) -> list[FieldError]:
    """The alpha CRD's transition rules on an update sent in v1alpha1, at alpha paths.

    ``new`` and ``old`` are the converted (v1beta1) objects; the API server converts the stored
    object to the request's version for ``oldSelf``, and the only alpha transition rule
    (``minAvailable is immutable after creation``, per service / DCD spec) reads a field both
    versions share. DGD services match by name (map key = component name).
    """
    if isinstance(new, DynamoGraphDeployment) and isinstance(old, DynamoGraphDeployment):
        old_by_name = {c.name: c for c in old.components if c.name}
        services = Path("spec").child("services")
        errors: list[FieldError] = []
        for comp in sorted((c for c in new.components if c.name), key=lambda c: c.name or ""):
            previous = old_by_name.get(comp.name)
            if previous is not None and _min_available_changed(comp, previous):
                errors.append(cel_error(services.key(comp.name or ""), OBJECT, MSG_MIN_AVAILABLE_IMMUTABLE))
        return errors
    if (
        isinstance(new, DynamoComponentDeployment)
        and isinstance(old, DynamoComponentDeployment)
        and _min_available_changed(new.spec, old.spec)
    ):
        return [cel_error(Path("spec"), OBJECT, MSG_MIN_AVAILABLE_IMMUTABLE)]
    return []


def _min_available_changed(new: Any, old: Any) -> bool:
    """``!has(oldSelf.minAvailable) || (has(self.minAvailable) && self.minAvailable == oldSelf.minAvailable)`` fails."""
    return old.min_available is not None and new.min_available != old.min_available


def _empty_mount_names(svc: alpha.DynamoComponentDeploymentSharedSpec, prefix: str) -> list[FieldError]:
    """A volume mount's required ``name`` written as ``""``: the API server answers
    ``Required value`` at the schema's dotted path (the DGD envtest "v1alpha1 converted compilation
    cache mount with an empty PVC name is rejected"), before conversion could turn it into an empty
    v1beta1 ``compilationCache.pvcName``."""
    return [
        FieldError(ErrorType.REQUIRED, f"{prefix}.volumeMounts[{i}].name", "")
        for i, mount in enumerate(svc.volume_mounts or [])
        if mount.name == ""
    ]


def _service_cel(
    svc: alpha.DynamoComponentDeploymentSharedSpec,
    path: Path,
    old: alpha.DynamoComponentDeploymentSharedSpec | None,
) -> list[FieldError]:
    errors: list[FieldError] = []
    if not _min_available_fits(svc):
        errors.append(cel_error(path, OBJECT, MSG_MIN_AVAILABLE_LE_REPLICAS))
    if old is not None and old.min_available is not None and svc.min_available != old.min_available:
        errors.append(cel_error(path, OBJECT, MSG_MIN_AVAILABLE_IMMUTABLE))
    if svc.checkpoint is not None and svc.checkpoint.job is not None and svc.checkpoint.checkpoint_ref:
        errors.append(cel_error(path.child("checkpoint"), OBJECT, MSG_CHECKPOINT_JOB_WITH_REF))
    if svc.gpu_memory_service is not None:
        errors += _gms_cel(svc.gpu_memory_service, path.child("gpuMemoryService"))
    if svc.shared_memory is not None and not _shared_memory_fits(svc.shared_memory):
        errors.append(cel_error(path.child("sharedMemory"), OBJECT, MSG_SHARED_MEMORY_SIZE))
    return errors


def _min_available_fits(svc: alpha.DynamoComponentDeploymentSharedSpec) -> bool:
    if svc.min_available is None or svc.replicas == 0:
        return True
    return svc.min_available <= (1 if svc.replicas is None else svc.replicas)


def _shared_memory_fits(shm: alpha.SharedMemorySpec) -> bool:
    """``disabled || quantity(size) > 0``."""
    if shm.disabled:
        return True
    if shm.size is None:
        return False
    try:
        return parse_quantity(shm.size) > 0
    except (ValueError, TypeError):
        return False


def _gms_cel(gms: alpha.GPUMemoryServiceSpec, path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    mode = gms.mode or ALPHA_GMS_MODE_INTRA_POD  # the CRD default, applied before CEL runs
    if gms.extra_client_containers and mode != ALPHA_GMS_MODE_INTRA_POD:
        errors.append(cel_error(path, OBJECT, MSG_GMS_CLIENT_CONTAINERS))
    if gms.extra_client_pods and mode != ALPHA_GMS_MODE_INTER_POD:
        errors.append(cel_error(path, OBJECT, MSG_GMS_CLIENT_PODS_MODE))
    if gms.extra_client_pods:
        errors.append(cel_error(path, OBJECT, MSG_GMS_CLIENT_PODS_RESERVED))
    return errors


# --- webhook: the v1alpha1 compatibility pass -------------------------------------------------


def has_compat_fields(spec: alpha.DynamoGraphDeploymentSpec) -> bool:
    """``hasV1Alpha1CompatibilityFields``: is there alpha-only data the pass must look at?"""
    if spec.pvcs:
        return True
    for svc in (spec.services or {}).values():
        if svc is None:
            return True
        gms_disabled = svc.gpu_memory_service is not None and not svc.gpu_memory_service.enabled
        if (
            svc.ingress is not None
            or svc.annotations
            or svc.dynamo_namespace is not None
            or svc.autoscaling is not None
            or svc.volume_mounts
            or svc.shared_memory is not None
            or svc.epp_config is not None
            or svc.frontend_sidecar is not None
            or svc.failover is not None
            or gms_disabled
        ):
            return True
    return False


def alpha_compat_findings(
    obj: alpha.DynamoGraphDeployment | alpha.DynamoComponentDeployment,
    namespace: str = "default",
    alpha_source: bool = True,
) -> Findings:
    """The webhook's v1alpha1 pass over an alpha object (or the alpha view of a beta one).

    ``alpha_source``: the request was made in v1alpha1 (the pass always runs then; otherwise
    only when alpha-only data is present). Runtime-version checks at alpha paths are not done
    here: the v1beta1 rules find them and :func:`dynamo_pulumi.loading.documents.validate_loaded` moves
    them to the alpha paths.
    """
    findings = Findings()
    if isinstance(obj, alpha.DynamoGraphDeployment):
        if not alpha_source and not has_compat_fields(obj.spec):
            return findings
        spec_path = Path("spec")
        for i, pvc in enumerate(obj.spec.pvcs or []):
            if not pvc.name:
                findings.errors.append(required(spec_path.child("pvcs").index(i).child("name"), MSG_PVC_NAME))
        services = obj.spec.services or {}
        for name in sorted(services):
            svc = services[name]
            if svc is None:
                continue
            dyn_ns = dynamo_namespace(namespace, obj.name, bool(svc.global_dynamo_namespace))
            findings.extend(_shared_compat(svc, spec_path.child("services").key(name), dyn_ns))
        return findings
    owner = _owner_graph_name(obj.metadata)
    dyn_ns = dynamo_namespace(namespace, owner, bool(obj.spec.global_dynamo_namespace))
    findings.extend(_shared_compat(obj.spec, Path("spec"), dyn_ns))
    return findings


def preserved_alpha_view(obj: Any) -> alpha.DynamoGraphDeployment | alpha.DynamoComponentDeployment | None:
    """The alpha view of a v1beta1 object: the alpha-only data in its conversion annotation."""
    preserved = preserved_alpha_spec(obj)
    if preserved is None:
        return None
    meta = alpha.ObjectMeta.model_validate(obj.metadata.to_wire())
    if isinstance(obj, DynamoGraphDeployment) and isinstance(preserved, alpha.DynamoGraphDeploymentSpec):
        return alpha.DynamoGraphDeployment(metadata=meta, spec=preserved)
    if isinstance(obj, DynamoComponentDeployment) and isinstance(preserved, alpha.DynamoComponentDeploymentSpec):
        return alpha.DynamoComponentDeployment(metadata=meta, spec=preserved)
    return None


def preserved_compat_findings(obj: Any, namespace: str | None = None, alpha_source: bool = False) -> Findings:
    """The compatibility pass over the alpha data a v1beta1 object carries (none: no findings).

    The operator's ``Validate`` runs it on every create and update (the update's stateless
    pass included), on the alpha view it reconstructs from the object.
    """
    view = preserved_alpha_view(obj)
    if view is None:
        return Findings()
    ns = namespace or obj.metadata.namespace or "default"
    return alpha_compat_findings(view, ns, alpha_source=alpha_source)


def _owner_graph_name(meta: alpha.ObjectMeta) -> str:
    """``GetParentGraphDeploymentName``: the DGD among the owner references, else ""."""
    refs = (meta.model_extra or {}).get("ownerReferences")
    for ref in refs if isinstance(refs, list) else []:
        if isinstance(ref, Mapping) and ref.get("kind") == "DynamoGraphDeployment":
            return str(ref.get("name", ""))
    return ""


def _shared_compat(svc: alpha.DynamoComponentDeploymentSharedSpec, path: Path, dyn_ns: str) -> Findings:
    """``validateDynamoComponentDeploymentSharedSpecV1alpha1``, in the operator's order."""
    found = Findings()
    backend = (svc.annotations or {}).get(KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
    if backend is not None and backend.lower() not in VLLM_DISTRIBUTED_EXECUTOR_BACKENDS:
        key_path = path.child("annotations").key(KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
        found.errors.append(invalid(key_path, backend, MSG_VLLM_BACKEND))
    if svc.dynamo_namespace:
        found.warnings.append(WARN_DYNAMO_NAMESPACE.format(
            path=path, value=_go_quote(svc.dynamo_namespace), replacement=_go_quote(dyn_ns)))
    if svc.autoscaling is not None:
        found.warnings.append(WARN_AUTOSCALING.format(path=path))
    for i, mount in enumerate(svc.volume_mounts or []):
        if not mount.use_as_compilation_cache and not mount.mount_point:
            found.errors.append(required(path.child("volumeMounts").index(i).child("mountPoint"), MSG_MOUNT_POINT))
    if svc.ingress is not None and svc.ingress.enabled and not svc.ingress.host:
        found.errors.append(required(path.child("ingress", "host"), MSG_INGRESS_HOST))
    epp = svc.epp_config
    if epp is not None and (epp.config_map_ref is None) == (epp.config is None):
        found.errors.append(forbidden(path.child("eppConfig"), MSG_EPP_EXACTLY_ONE))
    if svc.frontend_sidecar is not None and _has_container(svc.extra_pod_spec, FRONTEND_SIDECAR_CONTAINER_NAME):
        found.errors.append(forbidden(path.child("frontendSidecar"), MSG_SIDECAR_CONFLICT))
    failover = svc.failover
    if (
        failover is not None
        and failover.enabled
        and (failover.mode or ALPHA_GMS_MODE_INTRA_POD) == ALPHA_GMS_MODE_INTRA_POD
        and failover.num_shadows not in (None, 0, 1)
    ):
        found.errors.append(invalid(path.child("failover", "numShadows"), failover.num_shadows, MSG_NUM_SHADOWS))
    return found


def _has_container(extra_pod_spec: Mapping[str, Any] | None, name: str) -> bool:
    containers = (extra_pod_spec or {}).get("containers")
    if not isinstance(containers, list):
        return False
    return any(isinstance(c, Mapping) and c.get("name") == name for c in containers)
