"""Alpha-only data kept on a converted object, as the operator keeps it.

v1beta1 has no field for some alpha data (component annotations/labels, ingress,
dynamoNamespace, autoscaling, a non-promoting subComponentType, pvcs, disabled features). The
conversion webhook keeps it in one spec annotation per object (``nvidia.com/dgd-spec`` /
``nvidia.com/dcd-spec``, a versioned JSON envelope), where the operator's renderer and the
compatibility pass read it back; so do we (:func:`preserved_alpha_spec`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.v1beta1_helpers import ComponentDeploymentHelpers, GraphHelpers

if TYPE_CHECKING:  # the models (and pydantic) are imported only when alpha data is really present
    from dynamo_pulumi.api import v1alpha1 as alpha
    from dynamo_pulumi.api import v1beta1 as beta

DGD_SPEC_ANNOTATION = "nvidia.com/dgd-spec"
DCD_SPEC_ANNOTATION = "nvidia.com/dcd-spec"
PRESERVED_ENVELOPE_VERSION = 1
PROMOTED_SUB_TYPES = ("prefill", "decode")


def preserved_shared_spec(spec: alpha.DynamoComponentDeploymentSharedSpec, name: str | None) -> dict[str, Any]:
    """The alpha-only fields of one service (``saveSharedAlphaOnlySpec``, without origin splits)."""
    wire = spec.to_wire()
    keep: dict[str, Any] = {}
    if spec.sub_component_type and not _promotes(spec):
        keep["subComponentType"] = spec.sub_component_type
    for key in ("dynamoNamespace", "autoscaling", "ingress"):
        if key in wire and wire[key] is not None:
            keep[key] = wire[key]
    for key in ("annotations", "labels"):
        if wire.get(key):
            keep[key] = wire[key]
    for key, feature in (("scalingAdapter", spec.scaling_adapter), ("gpuMemoryService", spec.gpu_memory_service),
                         ("failover", spec.failover)):
        if feature is not None and not feature.enabled:
            keep[key] = wire[key]
    from dynamo_pulumi.api import v1beta1 as beta  # late: an alpha conversion builds models anyway

    multinode = wire.get("multinode") or {}
    # Per-role overrides the v1beta1 model cannot hold yet are kept rather than lost.
    roles = {k: v for k, v in multinode.items() if k in ("leader", "worker") and k not in beta.MultinodeSpec.model_fields}
    if roles:
        keep["multinode"] = roles
    if name is not None and spec.service_name and spec.service_name != name:
        keep["serviceName"] = spec.service_name
    return keep


def _envelope(spec: dict[str, Any]) -> str:
    return json.dumps({"version": PRESERVED_ENVELOPE_VERSION, "spec": spec}, separators=(",", ":"))


def metadata_with(meta: alpha.ObjectMeta, annotation: str, preserved: dict[str, Any]) -> dict[str, Any]:
    """Object metadata as given, any stale conversion annotation replaced by this conversion's."""
    out = meta.to_wire()
    annotations = {k: v for k, v in (out.get("annotations") or {}).items() if k != annotation}
    if preserved:
        annotations[annotation] = _envelope(preserved)
    if annotations:
        out["annotations"] = annotations
    else:
        out.pop("annotations", None)
    return out


def has_preserved_spec(obj: Any) -> bool:
    """Whether a v1beta1 DGD/DCD carries a conversion annotation (alpha-only data)."""
    if isinstance(obj, GraphHelpers):
        return bool(obj.annotations.get(DGD_SPEC_ANNOTATION))
    if isinstance(obj, ComponentDeploymentHelpers):
        return bool(obj.annotations.get(DCD_SPEC_ANNOTATION))
    return False


def preserved_alpha_spec(
    obj: beta.DynamoObject,
) -> alpha.DynamoGraphDeploymentSpec | alpha.DynamoComponentDeploymentSpec | None:
    """The alpha-only data a converted object carries in its conversion annotation, if any.

    Renderers read component annotations/labels, ingress, dynamoNamespace, pvcs and a
    non-promoting subComponentType from here, as the operator does.
    """
    if not has_preserved_spec(obj):
        return None
    from pydantic import ValidationError

    from dynamo_pulumi.api import v1alpha1 as alpha

    if isinstance(obj, GraphHelpers):
        key, model = DGD_SPEC_ANNOTATION, alpha.DynamoGraphDeploymentSpec
    else:
        key, model = DCD_SPEC_ANNOTATION, alpha.DynamoComponentDeploymentSpec
    raw = obj.annotations.get(key)
    try:
        decoded = json.loads(raw)
        spec = decoded.get("spec", decoded) if isinstance(decoded, dict) else None
        return model.model_validate(spec) if isinstance(spec, dict) else None
    except (ValueError, ValidationError):
        return None


def _promotes(spec: alpha.DynamoComponentDeploymentSharedSpec) -> bool:
    """``worker`` + ``subComponentType: prefill|decode`` becomes a beta type: nothing to keep."""
    return spec.component_type == "worker" and spec.sub_component_type in PROMOTED_SUB_TYPES
