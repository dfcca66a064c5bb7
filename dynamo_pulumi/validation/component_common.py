"""Small readers the shared-component admission rules have in common.

The rules read pod templates as the user's own mappings (so ``pulumi.Output`` leaves survive);
these helpers answer the few questions they ask of them: where is the ``main`` container, what
image does it carry, how many GPUs does it ask for, does the component use role templates.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.api.kinds import WORKER_CLASS_TYPES
from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.errors import ErrorType, FieldError, Path, invalid
from dynamo_pulumi.floor.constants import COMPONENT_TYPE_EPP as COMPONENT_TYPE_EPP
from dynamo_pulumi.floor.constants import COMPONENT_TYPE_LPX as COMPONENT_TYPE_LPX
from dynamo_pulumi.floor.constants import MAIN_CONTAINER_NAME

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentRoleSpec, ComponentSpecFields

GMS_MODE_INTRA_POD = "IntraPod"
GMS_MODE_INTER_POD = "InterPod"
#: field.ErrorList's standard message for a changed immutable field.
FIELD_IMMUTABLE_ERROR_MSG = "field is immutable"


def is_lpx(comp: ComponentSpecFields | None) -> bool:
    return comp is not None and comp.type == COMPONENT_TYPE_LPX


def is_worker_component(component_type: str | None) -> bool:
    """``IsWorkerComponent``: worker, prefill or decode."""
    return component_type in WORKER_CLASS_TYPES


def has_role_pod_templates(comp: ComponentSpecFields) -> bool:
    return comp.has_role_pod_templates


def container_index(template: dict[str, Any] | None, name: str, key: str = "containers") -> int:
    """Index of the first container with this name, -1 when absent."""
    found = pods.find_container(template, name, key)
    return found[0] if found else -1


def has_container_named(template: dict[str, Any] | None, name: str) -> bool:
    return container_index(template, name) >= 0


def image_of(container: dict[str, Any] | None) -> Any:
    """The container's image ("" when unset); non-string images are returned as given."""
    if container is None:
        return ""
    image = container.get("image")
    return "" if image is None else image


def is_blank(value: Any) -> bool:
    """An unset or empty string; a ``pulumi.Output`` is never blank."""
    return value is None or value == ""


def main_image_and_path(template: dict[str, Any] | None, path: Path) -> tuple[Any, Path]:
    """``runtimeVersionImageAndPath`` over a template: main's image and its exact field path."""
    containers_path = path.child("podTemplate", "spec", "containers")
    index = container_index(template, MAIN_CONTAINER_NAME)
    if index < 0:
        return "", containers_path
    return image_of(pods.containers(template)[index]), containers_path.index(index).child("image")


def runtime_image_and_path(comp: ComponentSpecFields, path: Path) -> tuple[Any, Path]:
    """The runtime image: the ``runtime`` init container's in sidecar mode, else ``main``'s."""
    template = comp.pod_template
    index = container_index(template, pods.RUNTIME_INIT_CONTAINER, "initContainers")
    if index >= 0:
        image_path = path.child("podTemplate", "spec", "initContainers").index(index).child("image")
        return image_of(pods.init_containers(template)[index]), image_path
    return main_image_and_path(template, path)


def role_main_image(role: ComponentRoleSpec | None) -> Any:
    if role is None or role.pod_template is None:
        return ""
    return image_of(pods.main_container(role.pod_template))


def main_container_resources(comp: ComponentSpecFields) -> dict[str, Any]:
    """``GetMainContainerResources``: the main container's resources block ({} when absent)."""
    main = pods.main_container(comp.pod_template)
    resources = main.get("resources") if main else None
    return resources if isinstance(resources, dict) else {}


def _is_gpu_resource_name(name: str) -> bool:
    lowered = name.lower()
    return (
        lowered in ("nvidia.com/gpu", "gpu")
        or lowered.endswith("/gpu")
        or "/mig-" in lowered
        or lowered.startswith("gpu.")
    )


class GPUCountError(ValueError):
    """A GPU quantity the operator cannot read as a whole number."""


def _gpu_count_from(resource_list: Any) -> int | None:
    if not isinstance(resource_list, dict):
        return None
    names = sorted(n for n in resource_list if isinstance(n, str) and _is_gpu_resource_name(n))
    if not names:
        return None
    name, raw = names[0], resource_list[names[0]]
    try:
        quantity = parse_quantity(raw)
    except (ValueError, TypeError) as exc:
        raise GPUCountError(f"GPU resource {name!r} quantity {raw!r} is not a valid quantity") from exc
    if quantity != quantity.to_integral_value():
        raise GPUCountError(f'GPU resource "{name}" quantity "{raw}" must be a whole number')
    return int(Decimal(quantity))


def gpu_count(resources: dict[str, Any]) -> int:
    """``ExtractGPUCountFromResourceRequirements``: limits first, then requests, else 0.

    Raises :class:`GPUCountError` for a fractional or unparseable quantity.
    """
    for key in ("limits", "requests"):
        count = _gpu_count_from(resources.get(key))
        if count is not None:
            return count
    return 0


# --- metadata.annotations (apimachinery ValidateAnnotations) ---------------------------------------

_QUALIFIED_NAME_MAX = 63
_DNS1123_SUBDOMAIN_MAX = 253
TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024
_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
    "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
_PREFIX_MSG = (
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def qualified_name_errors(value: str) -> list[str]:
    """``IsQualifiedName``: an optional DNS-subdomain prefix and a 63-character name part."""
    parts = value.split("/")
    if len(parts) == 1:
        prefix, name = "", parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if prefix == "":
            return ["prefix part must be non-empty"]
    else:
        return [
            "a qualified name "
            + _NAME_PART_MSG.replace("name part ", "", 1)
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    errors: list[str] = []
    if prefix:
        if len(prefix) > _DNS1123_SUBDOMAIN_MAX:
            errors.append(f"prefix part must be no more than {_DNS1123_SUBDOMAIN_MAX} characters")
        if not _DNS1123_SUBDOMAIN.match(prefix):
            errors.append(_PREFIX_MSG)
    if name == "":
        errors.append("name part must be non-empty")
    elif len(name) > _QUALIFIED_NAME_MAX:
        errors.append(f"name part must be no more than {_QUALIFIED_NAME_MAX} characters")
    if name and not _NAME_PART.match(name):
        errors.append(_NAME_PART_MSG)
    return errors


def validate_annotations(annotations: dict[str, Any], path: Path) -> list[FieldError]:
    """Annotation keys are qualified names (checked lower-cased); total size at most 256 KiB."""
    errors = [
        invalid(path, key, msg)
        for key in sorted(annotations)
        for msg in qualified_name_errors(str(key).lower())
    ]
    size = sum(len(str(k)) + len(v) for k, v in annotations.items() if isinstance(v, str))
    if size > TOTAL_ANNOTATION_SIZE_LIMIT_B:
        errors.append(FieldError(ErrorType.TOO_LONG, str(path), f"may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes"))
    return errors
