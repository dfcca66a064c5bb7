"""V-EPP (rule 31): the endpoint picker's pod contract follows its runtime version.

Images before 1.5.0 run the legacy Go EPP (config file from ``eppConfig``, a single replica);
1.5.0 and later run the native Rust EPP, configured by environment only, so ``eppConfig`` there
would silently select a contract the image cannot honour. The InferencePool API must exist for a
DGD's EPP because the controller creates an InferencePool next to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, required
from dynamo_pulumi.floor.constants import INFERENCE_POOL_API_GROUP
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.model.runtime_version import (
    parse_image_tag_version,
    parse_runtime_version,
    runtime_gate_enabled,
)
from dynamo_pulumi.validation.component_common import COMPONENT_TYPE_EPP
from dynamo_pulumi.validation.context import ValidationContext

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields


def is_legacy_go_epp(comp: ComponentSpecFields) -> bool:
    """Presence of ``eppConfig`` selects the legacy Go EPP pod contract."""
    return comp.epp_config is not None


def validate_epp(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    """Create/update-stateless EPP rules (the runtime contract is in :func:`epp_runtime_error`)."""
    errors: list[FieldError] = []
    if comp.type == COMPONENT_TYPE_EPP:
        if ctx.in_dgd and not ctx.platform.cluster.inference_pool_available:
            errors.append(
                forbidden(
                    path.child("type"),
                    f"cannot deploy EPP component: InferencePool API group ({INFERENCE_POOL_API_GROUP}) is not "
                    "available in the cluster; install the Gateway API Inference Extension before deploying "
                    "EPP components",
                )
            )
        if is_legacy_go_epp(comp) and comp.replicas is not None and comp.replicas != 1:
            errors.append(invalid(path.child("replicas"), comp.replicas, "EPP component must have exactly 1 replica"))
    ref = comp.epp_config.config_map_ref if comp.epp_config else None
    if ref is not None and not ref.name:
        errors.append(required(path.child("eppConfig", "configMapRef", "name"), "is required"))
    return errors


@record
class EPPRuntimeContract:
    """Everything the EPP runtime contract depends on; equal contracts ratchet on update."""

    component_type: str | None
    image: Any
    runtime_version_override: str
    has_epp_config: bool


def epp_runtime_contract(comp: ComponentSpecFields, image: Any) -> EPPRuntimeContract:
    return EPPRuntimeContract(comp.type, image, comp.runtime_version_override or "", comp.epp_config is not None)


def epp_runtime_error(contract: EPPRuntimeContract, epp_config_path: Path) -> FieldError | None:
    """eppConfig forbidden at >= 1.5.0, required below; unresolvable versions are left to V-RTV."""
    if contract.component_type != COMPONENT_TYPE_EPP:
        return None
    if contract.runtime_version_override:
        version = parse_runtime_version(contract.runtime_version_override)
    else:
        version = parse_image_tag_version(contract.image)
    if version is None:
        return None
    if runtime_gate_enabled("NativeRustEPP", version):
        if contract.has_epp_config:
            return forbidden(epp_config_path, "must be omitted for native Rust EPP images with runtime version 1.5.0 or later")
        return None
    if not contract.has_epp_config:
        return required(epp_config_path, "is required for legacy Go EPP images with runtime version earlier than 1.5.0")
    return None


def epp_runtime_update_error(
    new: EPPRuntimeContract, old: EPPRuntimeContract, same_epp_config: bool, epp_config_path: Path
) -> FieldError | None:
    """Only an identical pre-existing contract violation (same eppConfig too) is ratcheted."""
    error = epp_runtime_error(new, epp_config_path)
    if error is None or (new == old and same_epp_config):
        return None
    return error


def same_epp_config(new: ComponentSpecFields, old: ComponentSpecFields) -> bool:
    left = new.epp_config.to_wire() if new.epp_config else None
    right = old.epp_config.to_wire() if old.epp_config else None
    return left == right
