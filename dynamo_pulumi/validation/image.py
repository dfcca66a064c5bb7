"""Pod-template and placement rules of the shared component spec.

* V-RTV (38): the runtime image, and ``runtimeVersionOverride`` when its tag has no version;
  update ratchets only unchanged legacy gaps, never a newly introduced one.
* V-POD (40a): every user probe has exactly one handler (a probe that only tunes timing would
  otherwise silently replace the operator's default handler with none).
* V-ELASTIC-EP (20), V-SHM (29), V-MINAVAIL (27, plus the effective-minimum immutability of the
  seed reference), V-GROVE (36), V-TOPO-U (40).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.defaulting.webhooks import effective_min_available, native_min_available
from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, required
from dynamo_pulumi.floor.constants import MAIN_CONTAINER_NAME
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.model.runtime_version import parse_image_tag_version
from dynamo_pulumi.validation.component_common import (
    COMPONENT_TYPE_EPP,
    container_index,
    has_role_pod_templates,
    is_blank,
    is_lpx,
    role_main_image,
    runtime_image_and_path,
)
from dynamo_pulumi.validation.context import ValidationContext
from dynamo_pulumi.validation.epp import (
    epp_runtime_contract,
    epp_runtime_error,
    epp_runtime_update_error,
    same_epp_config,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields

RUNTIME_VERSION_OVERRIDE_REQUIRED_MESSAGE = (
    "is required when the specified main container image has no parseable semantic-version tag"
)
GROVE_ONLY_MESSAGE = "is currently supported only for Grove-backed DynamoGraphDeployment components"
MIN_AVAILABLE_IMMUTABLE_MESSAGE = (
    "effective minAvailable is immutable after creation, including when migrating to the native "
    "providerOverride form"
)
PROBE_KINDS = ("livenessProbe", "readinessProbe", "startupProbe")
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
ENABLE_ELASTIC_EP_FLAG = "--enable-elastic-ep"
DATA_PARALLEL_BACKEND_FLAGS = ("--data-parallel-backend", "-dpb")
DATA_PARALLEL_BACKEND_RAY = "ray"
BACKEND_FRAMEWORK_VLLM = "vllm"


# --- V-RTV -----------------------------------------------------------------------------------------


def tolerates_missing_override(comp: ComponentSpecFields, ctx: ValidationContext) -> bool:
    """Standalone DCDs may omit the override, except EPP (whose contract needs a version)."""
    return not ctx.in_dgd and comp.type != COMPONENT_TYPE_EPP


def override_required(image: Any, override: str | None) -> bool:
    """No override and a (string) image whose tag carries no semantic version.

    An image that is not a plain string (a ``pulumi.Output``) cannot be read before deployment;
    it is given the benefit of the doubt rather than rejected.
    """
    if override:
        return False
    return isinstance(image, str) and parse_image_tag_version(image) is None


def override_required_error(path: Path, image: Any) -> FieldError:
    """The webhook's refusal in its own words, with the image it read no version from and the fix."""
    return replace(
        required(path.child("runtimeVersionOverride"), RUNTIME_VERSION_OVERRIDE_REQUIRED_MESSAGE),
        fix=f"the image {json.dumps(str(image))} has no X.Y.Z tag: set runtimeVersionOverride to the Dynamo "
        'runtime version that image runs (for example "1.3.1"), or use an image tagged with it',
    )


def validate_runtime_version(
    comp: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    """Create: the EPP runtime contract, the runtime image, and the override when needed."""
    if is_lpx(comp):
        return []
    image, image_path = runtime_image_and_path(comp, path)
    errors: list[FieldError] = []
    contract_error = epp_runtime_error(epp_runtime_contract(comp, image), path.child("eppConfig"))
    if contract_error is not None:
        errors.append(contract_error)
    if has_role_pod_templates(comp):
        errors += _role_runtime_version(comp, path, ctx)
    elif is_blank(image):
        errors.append(required(image_path, "is required"))
    elif not tolerates_missing_override(comp, ctx) and override_required(
        image, comp.runtime_version_override
    ):
        errors.append(override_required_error(path, image))
    return errors


def _role_runtime_version(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    """With role templates, every role's ``main`` image must carry a version (or an override)."""
    if tolerates_missing_override(comp, ctx) or comp.runtime_version_override:
        return []
    for role in comp.roles or []:
        image = role_main_image(role)
        if not is_blank(image) and override_required(image, comp.runtime_version_override):
            return [override_required_error(path, image)]
    return []


def validate_runtime_version_update(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    """Update: reject only gaps the update introduces (removed image, changed image/override)."""
    if is_lpx(new):
        return []
    new_image, image_path = runtime_image_and_path(new, path)
    old_image, _ = runtime_image_and_path(old, path)
    override_changed = (new.runtime_version_override or "") != (old.runtime_version_override or "")
    errors: list[FieldError] = []
    if has_role_pod_templates(new):
        errors += _role_runtime_version_update(new, old, path, ctx)
    elif is_blank(new_image) and not is_blank(old_image):
        errors.append(required(image_path, "is required"))
    elif (
        not tolerates_missing_override(new, ctx)
        and override_required(new_image, new.runtime_version_override)
        and (new_image != old_image or override_changed)
    ):
        errors.append(override_required_error(path, new_image))
    contract_error = epp_runtime_update_error(
        epp_runtime_contract(new, new_image),
        epp_runtime_contract(old, old_image),
        same_epp_config(new, old),
        path.child("eppConfig"),
    )
    if contract_error is not None:
        errors.append(contract_error)
    return errors


def _role_runtime_version_update(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    if tolerates_missing_override(new, ctx) or new.runtime_version_override:
        return []
    old_images = {role.name: role_main_image(role) for role in old.roles or []}
    override_changed = (new.runtime_version_override or "") != (old.runtime_version_override or "")
    for role in new.roles or []:
        image = role_main_image(role)
        if (
            not is_blank(image)
            and override_required(image, new.runtime_version_override)
            and (image != old_images.get(role.name, "") or override_changed)
        ):
            return [override_required_error(path, image)]
    return []


# --- V-POD: probes -----------------------------------------------------------------------------------


def validate_probes(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    """Every probe in the component template and each role template has exactly one handler."""
    errors = _template_probe_errors(comp.pod_template, path.child("podTemplate"))
    for i, role in enumerate(comp.roles or []):
        errors += _template_probe_errors(role.pod_template, path.child("roles").index(i).child("podTemplate"))
    return errors


def _template_probe_errors(template: dict[str, Any] | None, path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("initContainers", "containers"):
        for i, container in enumerate(pods.containers(template, key)):
            container_path = path.child("spec", key).index(i)
            for kind in PROBE_KINDS:
                probe = container.get(kind)
                if probe is not None:
                    errors += probe_handler_errors(probe, container_path.child(kind))
    return errors


def probe_handler_errors(probe: Any, path: Path) -> list[FieldError]:
    """Kubernetes ``validateHandler``: one of exec/httpGet/tcpSocket/grpc, never more."""
    if not isinstance(probe, dict):
        return []
    present = [h for h in PROBE_HANDLERS if probe.get(h) is not None]
    if not present:
        return [required(path, "must specify a handler type")]
    return [forbidden(path.child(h), "may not specify more than 1 handler type") for h in present[1:]]


# --- V-ELASTIC-EP ------------------------------------------------------------------------------------


def _expanded_command_line(container: dict[str, Any]) -> list[str]:
    """Command and args split on whitespace; a malformed (non-list) field contributes nothing,
    since the schema stage reports it."""
    tokens: list[str] = []
    for key in ("command", "args"):
        values = container.get(key)
        for arg in values if isinstance(values, list) else []:
            if isinstance(arg, str):
                tokens += arg.split()
    return tokens


def _has_arg(tokens: list[str], flag: str, value: str) -> bool:
    for i, token in enumerate(tokens):
        if f"{flag}={value}" in token:
            return True
        if token == flag and i + 1 < len(tokens) and tokens[i + 1] == value:
            return True
    return False


def is_elastic_ep_ray_launch(container: dict[str, Any]) -> bool:
    """``--enable-elastic-ep`` with the Ray data-parallel backend (long flag or ``-dpb``)."""
    tokens = _expanded_command_line(container)
    return ENABLE_ELASTIC_EP_FLAG in tokens and any(
        _has_arg(tokens, flag, DATA_PARALLEL_BACKEND_RAY) for flag in DATA_PARALLEL_BACKEND_FLAGS
    )


def validate_elastic_ep(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    """vLLM elastic EP wraps ``main``'s command to start a Ray head, so it needs an explicit one."""
    if ctx.backend_framework != BACKEND_FRAMEWORK_VLLM or comp.pod_template is None:
        return []
    index = container_index(comp.pod_template, MAIN_CONTAINER_NAME)
    if index < 0:
        return []
    main = pods.containers(comp.pod_template)[index]
    if main.get("command") or not is_elastic_ep_ray_launch(main):
        return []
    return [
        required(
            path.child("podTemplate", "spec", "containers").index(index).child("command"),
            "elastic expert parallelism (--enable-elastic-ep with --data-parallel-backend ray) requires an explicit "
            "container command; the operator starts the single-pod Ray head by wrapping that command and cannot "
            "start it from the image ENTRYPOINT",
        )
    ]


# --- V-SHM, V-MINAVAIL, V-GROVE, V-TOPO-U -------------------------------------------------------------


def validate_shared_memory(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    size = comp.shared_memory_size
    if size is None:
        return []
    try:
        negative = parse_quantity(size) < 0
    except (ValueError, TypeError):
        return []
    if negative:
        return [invalid(path.child("sharedMemorySize"), str(size), "must be non-negative")]
    return []


def _grove_backed(ctx: ValidationContext) -> bool:
    """Only DGD components on the Grove pathway; a standalone DCD never is."""
    return ctx.in_dgd and ctx.grove_pathway


def validate_min_available(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    if comp.min_available is not None and not _grove_backed(ctx):
        return [forbidden(path.child("minAvailable"), GROVE_ONLY_MESSAGE)]
    return []


def validate_min_available_update(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path, ctx: ValidationContext
) -> list[FieldError]:
    """The effective minimum (legacy field, else native override value, else 1) never changes.

    Moving the same value from the legacy ``minAvailable`` to the component ``providerOverride``
    (``minAvailable`` / ``spec.minAvailable``) keeps the effective value and is allowed.
    """
    if not ctx.in_dgd:
        return []
    before, after = effective_min_available(old), effective_min_available(new)
    if before == after:
        return []
    return [
        invalid(_min_available_path(new, path), after, f"{MIN_AVAILABLE_IMMUTABLE_MESSAGE} (was {before})")
    ]


def _min_available_path(comp: ComponentSpecFields, path: Path) -> Path:
    """Where the new effective minimum comes from: the native override value, else the legacy field."""
    po = comp.provider_override
    if comp.min_available is None and native_min_available(comp) is not None and po is not None:
        value_path = path.child("providerOverride", "value")
        if "minAvailable" in po.value:
            return value_path.child("minAvailable")
        return value_path.child("spec", "minAvailable")
    return path.child("minAvailable")


def validate_grove(comp: ComponentSpecFields, path: Path, ctx: ValidationContext) -> list[FieldError]:
    if comp.is_scaling_group_forced and not _grove_backed(ctx):
        return [forbidden(path.child("experimental", "grove", "forceScalingGroup"), GROVE_ONLY_MESSAGE)]
    return []


def validate_grove_update(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path, owner_kind: str
) -> list[FieldError]:
    """The effective ``forceScalingGroup`` (nil = false) cannot change after creation."""
    new_grove = new.experimental.grove if new.experimental else None
    if new.is_scaling_group_forced == old.is_scaling_group_forced:
        return []
    value = new.is_scaling_group_forced if new_grove is not None else None
    return [
        invalid(
            path.child("experimental", "grove", "forceScalingGroup"),
            value,
            f"cannot be toggled after creation; delete and recreate the {owner_kind} to change it",
        )
    ]


def validate_topology_update(
    new: ComponentSpecFields, old: ComponentSpecFields, path: Path, owner_kind: str
) -> list[FieldError]:
    """Component ``topologyConstraint`` cannot be added, removed or changed."""
    new_tc, old_tc = new.topology_constraint, old.topology_constraint
    if new_tc is None and old_tc is None:
        return []
    if new_tc is not None and old_tc is not None and new_tc.pack_domain == old_tc.pack_domain:
        return []
    return [
        invalid(
            path.child("topologyConstraint"),
            new_tc.to_wire() if new_tc else None,
            f"is immutable and cannot be added, removed, or changed after creation; delete and recreate the "
            f"{owner_kind} to change topology constraints",
        )
    ]
