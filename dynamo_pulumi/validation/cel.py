"""The CRD's object-level CEL rules (``x-kubernetes-validations``), evaluated in Python.

The API server evaluates these after defaulting and before any validating webhook, so a CEL
failure rejects the request on its own. It reports each failure at the schema node that carries
the rule, as ``Invalid value`` whose value is the node's OpenAPI type (``"object"``,
``"array"``, ``"string"``), followed by the rule's message — so do we.

Field-level limits the schema states directly (patterns, enums, minimums) are enforced when the
model loads (:mod:`dynamo_pulumi.api.parse`); list-map key uniqueness of ``spec.components`` and
``spec.experimental.componentGroups`` (and each group's members) is a structural rule the models do
not express, so it is checked here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.errors import ErrorType, FieldError, Path, duplicate
from dynamo_pulumi.floor.constants import (
    KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
    MAIN_CONTAINER_NAME,
)
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.validation.component_common import (
    COMPONENT_TYPE_EPP,
    COMPONENT_TYPE_LPX,
    GMS_MODE_INTER_POD,
    GMS_MODE_INTRA_POD,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        ComponentGroupSpec,
        ComponentSpecFields,
        DynamoComponentDeployment,
        DynamoComponentDeploymentSharedSpec,
        DynamoGraphDeployment,
        KvTransferPolicy,
    )

OBJECT = "object"
ARRAY = "array"
STRING = "string"

KV_ENFORCEMENT_PREFERRED = "preferred"
LABEL_KEY_PREFIX_MAX_LENGTH = 253
VLLM_DISTRIBUTED_EXECUTOR_BACKENDS = ("mp", "ray")

MSG_RESTART_ON_CREATE = (
    "spec.restart must be unset on create; set spec.restart.id after creation to request a restart"
)
MSG_AT_MOST_ONE_EPP = "at most one component may have type epp"
MSG_UNIQUE_CASE_INSENSITIVE = "component names must be unique case-insensitively"
MSG_EPP_CONFIG_TYPE = "eppConfig may only be set when type is epp"
MSG_MIN_AVAILABLE_LE_REPLICAS = "minAvailable must be less than or equal to replicas unless replicas is 0"
MSG_MIN_AVAILABLE_IMMUTABLE = "minAvailable is immutable after creation"
MSG_TYPE_IMMUTABLE = "type is immutable after it is set"
MSG_EPP_CONFIG_EXACTLY_ONE = "exactly one of configMapRef or config must be specified"
MSG_CHECKPOINT_JOB_WITH_REF = "checkpoint.job cannot be set when checkpointRef is specified"
MSG_GMS_CLIENT_CONTAINERS = "extraClientContainers is only supported with mode=IntraPod"
MSG_GMS_CLIENT_PODS_MODE = "extraClientPods is only supported with mode=InterPod"
MSG_GMS_CLIENT_PODS_RESERVED = "extraClientPods is reserved for inter-pod GMS and is not implemented yet"
MSG_POD_BACKEND_ANNOTATION = "podTemplate backend annotation must be mp or ray, case-insensitively"
MSG_SIDECAR_IMAGE = "sidecar containers must specify a non-empty image"
MSG_INIT_IMAGE = "init containers must specify a non-empty image"
MSG_KVT_EXACTLY_ONE = "exactly one of labelKey or clusterTopologyName is required"
MSG_KVT_WEIGHT_REQUIRED = "preferredWeight is required when enforcement is preferred"
MSG_KVT_WEIGHT_ONLY_PREFERRED = "preferredWeight may only be set when enforcement is preferred"
MSG_KVT_LABEL_PREFIX = "labelKey prefix must be 253 characters or less"
MSG_LPX_SCALING_ADAPTER = "scalingAdapter is not supported when type is lpx"


def cel_error(path: Path | str, node_type: str, message: str) -> FieldError:
    """A failed CEL rule as the API server reports it."""
    return FieldError(ErrorType.INVALID, str(path), message, node_type)


# --- DGD ------------------------------------------------------------------------------------------


def validate_graph_cel(
    dgd: DynamoGraphDeployment, old: DynamoGraphDeployment | None = None
) -> list[FieldError]:
    """Every CEL rule of a DGD; transition rules run when ``old`` (the stored object) is given."""
    spec_path = Path("spec")
    errors = restart_on_create_errors(dgd) if old is None else []
    components = dgd.spec.components
    if components is not None:
        errors += _components_list_errors(components, spec_path.child("components"))
        old_by_name = {c.name: c for c in (old.components if old is not None else [])}
        for i, comp in enumerate(components):
            path = spec_path.child("components").index(i)
            errors += validate_component_cel(comp, path)
            previous = old_by_name.get(comp.name)
            if previous is not None:
                errors += validate_component_transition_cel(comp, previous, path)
    experimental = dgd.spec.experimental
    if experimental is not None and experimental.kv_transfer_policy is not None:
        errors += kv_transfer_policy_errors(
            experimental.kv_transfer_policy, spec_path.child("experimental", "kvTransferPolicy")
        )
    if experimental is not None and experimental.component_groups is not None:
        errors += component_groups_list_errors(
            experimental.component_groups, spec_path.child("experimental", "componentGroups")
        )
    return errors


def restart_on_create_errors(dgd: DynamoGraphDeployment) -> list[FieldError]:
    """``spec.restart`` must be absent on create (a transition rule with an optional old self)."""
    if dgd.spec.restart is None:
        return []
    return [cel_error(Path("spec"), OBJECT, MSG_RESTART_ON_CREATE)]


def _components_list_errors(
    components: Sequence[DynamoComponentDeploymentSharedSpec], path: Path
) -> list[FieldError]:
    """List-map key uniqueness, then the two list-level CEL rules."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, comp in enumerate(components):
        if comp.name in seen:
            errors.append(duplicate(path.index(i), {"name": comp.name}))
        seen.add(comp.name)
    if sum(1 for c in components if c.type == COMPONENT_TYPE_EPP) > 1:
        errors.append(cel_error(path, ARRAY, MSG_AT_MOST_ONE_EPP))
    names = [c.name for c in components]
    clashes = sorted({n for n in names if sum(m.lower() == n.lower() for m in names) > 1}, key=names.index)
    if clashes:
        errors.append(replace(cel_error(path, ARRAY, MSG_UNIQUE_CASE_INSENSITIVE), fix=_clash_fix(clashes, names)))
    return errors


def _clash_fix(clashes: list[str], names: list[str]) -> str:
    """The rule's ``Invalid value: "array"`` says nothing of which names: ours does, and says
    when it is the same clash as a Duplicate value the API server also reports."""
    shown = ", ".join(f'"{n}"' for n in clashes)
    if all(names.count(n) == sum(m.lower() == n.lower() for m in names) for n in clashes):
        return f"the same names as the Duplicate value above ({shown}): rename one of each"
    return f"these names differ only in case: {shown}; rename one of each"


def _list_map_duplicates(names: Sequence[str], path: Path) -> list[FieldError]:
    """``x-kubernetes-list-type: map`` keyed by ``name``: each repeated key is a Duplicate value
    at the later item, as the API server's structural validation reports it."""
    seen: set[str] = set()
    errors: list[FieldError] = []
    for i, name in enumerate(names):
        if name in seen:
            errors.append(duplicate(path.index(i), {"name": name}))
        seen.add(name)
    return errors


def component_groups_list_errors(groups: Sequence[ComponentGroupSpec], path: Path) -> list[FieldError]:
    """The newest types' list maps: groups keyed by ``name``, and each group's members by ``name``."""
    errors = _list_map_duplicates([g.name for g in groups], path)
    for i, group in enumerate(groups):
        errors += _list_map_duplicates([m.name for m in group.components], path.index(i).child("components"))
    return errors


# --- DCD ------------------------------------------------------------------------------------------


def validate_component_deployment_cel(
    dcd: DynamoComponentDeployment, old: DynamoComponentDeployment | None = None
) -> list[FieldError]:
    """Every CEL rule of a DCD (the shared-spec rules at ``spec``)."""
    path = Path("spec")
    errors = validate_component_cel(dcd.spec, path)
    if old is not None:
        errors += validate_component_transition_cel(dcd.spec, old.spec, path)
    return errors


# --- the shared component spec --------------------------------------------------------------------


def validate_component_cel(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    """Object rules on one component (DGD item or DCD spec) and on its nested structs."""
    errors: list[FieldError] = []
    if comp.epp_config is not None and comp.type != COMPONENT_TYPE_EPP:
        errors.append(cel_error(path, OBJECT, MSG_EPP_CONFIG_TYPE))
    if not _min_available_fits(comp):
        errors.append(cel_error(path, OBJECT, MSG_MIN_AVAILABLE_LE_REPLICAS))
    if comp.type == COMPONENT_TYPE_LPX and comp.scaling_adapter is not None:
        errors.append(cel_error(path, OBJECT, MSG_LPX_SCALING_ADAPTER))
    epp = comp.epp_config
    if epp is not None and (epp.config_map_ref is None) == (epp.config is None):
        errors.append(cel_error(path.child("eppConfig"), OBJECT, MSG_EPP_CONFIG_EXACTLY_ONE))
    errors += _experimental_errors(comp, path.child("experimental"))
    errors += pod_template_cel(comp.pod_template, path.child("podTemplate"))
    return errors


def validate_component_transition_cel(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path
) -> list[FieldError]:
    """Transition rules: ``minAvailable`` set on both sides and ``type`` once set keep their value.

    The legacy ``minAvailable`` may be removed, so its value can migrate to the native provider
    override; whether the *effective* minimum is unchanged is the webhook's check
    (:func:`dynamo_pulumi.validation.image.validate_min_available_update`).
    """
    errors: list[FieldError] = []
    if (
        old.min_available is not None
        and new.min_available is not None
        and new.min_available != old.min_available
    ):
        errors.append(cel_error(path, OBJECT, MSG_MIN_AVAILABLE_IMMUTABLE))
    if old.type is not None and new.type != old.type:
        errors.append(cel_error(path, OBJECT, MSG_TYPE_IMMUTABLE))
    return errors


def _min_available_fits(comp: ComponentSpecFields) -> bool:
    """``!has(minAvailable) || replicas == 0 || minAvailable <= (has(replicas) ? replicas : 1)``."""
    if comp.min_available is None or comp.replicas == 0:
        return True
    return comp.min_available <= comp.effective_replicas


def _experimental_errors(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    checkpoint = comp.checkpoint
    if checkpoint is not None and checkpoint.job is not None and checkpoint.checkpoint_ref:
        errors.append(cel_error(path.child("checkpoint"), OBJECT, MSG_CHECKPOINT_JOB_WITH_REF))
    gms = comp.gms
    if gms is not None:
        gms_path = path.child("gpuMemoryService")
        # CEL sees the CRD-defaulted mode (IntraPod when omitted).
        if gms.extra_client_containers and gms.effective_mode != GMS_MODE_INTRA_POD:
            errors.append(cel_error(gms_path, OBJECT, MSG_GMS_CLIENT_CONTAINERS))
        if gms.extra_client_pods and gms.effective_mode != GMS_MODE_INTER_POD:
            errors.append(cel_error(gms_path, OBJECT, MSG_GMS_CLIENT_PODS_MODE))
        if gms.extra_client_pods:
            errors.append(cel_error(gms_path, OBJECT, MSG_GMS_CLIENT_PODS_RESERVED))
    return errors


def pod_template_cel(template: dict[str, Any] | None, path: Path) -> list[FieldError]:
    """Rules the CRD puts inside a component ``podTemplate``: backend annotation, container images.

    Source: the v1beta1 DGD/DCD CRDs add these ``x-kubernetes-validations`` to the component
    ``podTemplate`` (operator ``Makefile`` CRD patch, and the operator's envtest admission cases
    "sidecar without image is rejected by CEL" / "init container without image is rejected by
    CEL"). Rule 40a's remark that the newest *webhook* leaves component sidecar images to Pod
    validation is about the webhook layer; the CRD's CEL still rejects them first. Role templates
    are not covered by these CEL rules (their image checks are webhook rules, :mod:`.roles`).
    """
    if template is None:
        return []
    errors: list[FieldError] = []
    annotations = pods.pod_annotations(template)
    backend = annotations.get(KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
    if backend is not None and not (
        isinstance(backend, str) and backend.lower() in VLLM_DISTRIBUTED_EXECUTOR_BACKENDS
    ):
        errors.append(cel_error(path.child("metadata", "annotations"), OBJECT, MSG_POD_BACKEND_ANNOTATION))
    spec_path = path.child("spec")
    for i, container in _indexed(template, "containers"):
        if container.get("name") != MAIN_CONTAINER_NAME and _blank_image(container):
            errors.append(cel_error(spec_path.child("containers").index(i), OBJECT, MSG_SIDECAR_IMAGE))
    for i, container in _indexed(template, "initContainers"):
        if _blank_image(container):
            errors.append(cel_error(spec_path.child("initContainers").index(i), OBJECT, MSG_INIT_IMAGE))
    return errors


def _indexed(template: dict[str, Any], key: str) -> list[tuple[int, dict[str, Any]]]:
    items = pods.pod_spec(template).get(key)
    if not isinstance(items, list):
        return []
    return [(i, c) for i, c in enumerate(items) if isinstance(c, dict)]


def _blank_image(container: dict[str, Any]) -> bool:
    """``!has(self.image) || self.image == ""``; a non-string (e.g. a pulumi Output) counts as set."""
    image = container.get("image")
    return image is None or image == ""


# --- kvTransferPolicy -----------------------------------------------------------------------------


def kv_transfer_policy_errors(policy: KvTransferPolicy, path: Path) -> list[FieldError]:
    """The kvTransferPolicy CEL rules; the alpha CRD shares the struct and its rules."""
    errors: list[FieldError] = []
    if (policy.label_key is None) == (policy.cluster_topology_name is None):
        errors.append(cel_error(path, OBJECT, MSG_KVT_EXACTLY_ONE))
    preferred = policy.enforcement == KV_ENFORCEMENT_PREFERRED
    if preferred and policy.preferred_weight is None:
        errors.append(cel_error(path, OBJECT, MSG_KVT_WEIGHT_REQUIRED))
    if policy.preferred_weight is not None and not preferred:
        errors.append(cel_error(path, OBJECT, MSG_KVT_WEIGHT_ONLY_PREFERRED))
    key = policy.label_key
    if key is not None and "/" in key and len(key.split("/", 1)[0]) > LABEL_KEY_PREFIX_MAX_LENGTH:
        errors.append(cel_error(path.child("labelKey"), STRING, MSG_KVT_LABEL_PREFIX))
    return errors


# --- CEL beside schema errors --------------------------------------------------------------------

GROVE_OPT_OUT_ANNOTATION = "nvidia.com/enable-grove"


def replica_cel_beside_schema(data: Any, schema_errors: Sequence[FieldError]) -> list[FieldError]:
    """The ``minAvailable <= replicas`` rule of each component whose ``replicas`` the schema refused.

    The API server evaluates CEL on the defaulted object beside the schema errors wherever the
    value still parses: ``replicas: -1`` is refused by the schema's minimum *and* breaks the rule
    once the defaulting webhook gave a Grove component its ``minAvailable`` of 1. The model could
    not be built, so the rule is read off the wire dict. A DGD is taken as Grove-backed unless it
    opts out (``nvidia.com/enable-grove: "false"``), as the operator's default install routes it;
    a DCD is never Grove-backed, so only a written ``minAvailable`` counts there.
    """
    if not isinstance(data, dict) or not isinstance(data.get("spec"), dict):
        return []
    refused = {e.path for e in schema_errors}
    spec = data["spec"]
    if data.get("kind") == "DynamoComponentDeployment":
        return _replica_rule(spec, Path("spec"), refused, grove=False)
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    grove = str(annotations.get(GROVE_OPT_OUT_ANNOTATION, "")).lower() != "false"
    components = spec.get("components")
    if not isinstance(components, list):
        return []
    path = Path("spec").child("components")
    return [e for i, c in enumerate(components) if isinstance(c, dict)
            for e in _replica_rule(c, path.index(i), refused, grove)]


def _replica_rule(comp: dict[str, Any], path: Path, refused: set[str], grove: bool) -> list[FieldError]:
    replicas, minimum = comp.get("replicas"), comp.get("minAvailable")
    if str(path.child("replicas")) not in refused or not _is_int(replicas) or replicas == 0:
        return []
    written = minimum is not None
    if minimum is None and grove:
        minimum = 1  # the defaulting webhook's Grove minimum
    if not _is_int(minimum) or minimum <= replicas:
        return []
    error = cel_error(path, OBJECT, MSG_MIN_AVAILABLE_LE_REPLICAS)
    if written:
        return [error]
    return [replace(error, fix=f"minAvailable is not in your file: the operator's defaulting webhook gives a Grove "
                               f"component minAvailable 1, which the replicas of {replicas} (refused above) break; "
                               "fixing replicas fixes both")]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
