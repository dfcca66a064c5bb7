"""Rule 19 (V-POWER): the GPU power-limit annotation on DGD components.

The Planner caps each GPU at the annotated wattage and plans with scalar GPU counts, so admission
makes sure the cap is a whole positive number, that allocation is scalar (no DRA), that the
component pins one exact GPU product, and that the cap lies in that product's settable range.
Once set, the cap and the inputs the Planner cached (GPU count, product, node count) are frozen.

Product violations an update carries forward unchanged are ratcheted: dropped from the errors
and reported as warnings, so an operator upgrade that adds a rule does not wedge old graphs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, required
from dynamo_pulumi.floor.constants import (
    KUBE_ANNOTATION_GPU_POWER_LIMIT,
    KUBE_RESOURCE_GPU_NVIDIA,
    MAIN_CONTAINER_NAME,
)
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.validation.component_common import FIELD_IMMUTABLE_ERROR_MSG

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields, DynamoGraphDeployment

GPU_PRODUCT_NODE_SELECTOR_LABEL = "nvidia.com/gpu.product"
RATCHET_WARNING_PREFIX = "Retained pre-existing GPU power violation: "
_INT64_MAX = 2**63 - 1
_DECIMAL_INTEGER = re.compile(r"^[+-]?[0-9]+$")


@record(eq=False, repr=False)  # never compared or printed: fewer methods to build at start-up
class PowerRange:
    """Inclusive whole-watt settable power interval of one GPU product."""

    min: int
    max: int


#: The reviewed products (exact GPU Feature Discovery ``nvidia.com/gpu.product`` labels) and
#: their settable power ranges in watts. Not a hardware support list: only what this release can
#: range-check an annotation against.
POWER_RANGES: Mapping[str, PowerRange] = {
    name: PowerRange(lo, hi)
    for name, lo, hi in (
        ("NVIDIA-A10", 100, 150),
        ("NVIDIA-A100-80GB-PCIe", 150, 300),
        ("NVIDIA-A100-PCIE-40GB", 150, 250),
        ("NVIDIA-A100-SXM4-40GB", 100, 400),
        ("NVIDIA-A100-SXM4-80GB", 100, 400),
        ("NVIDIA-A16", 49, 62),
        ("NVIDIA-A2", 35, 60),
        ("NVIDIA-A30", 100, 165),
        ("NVIDIA-A40", 100, 300),
        ("NVIDIA-AX800", 250, 350),
        ("NVIDIA-B200", 200, 1000),
        ("NVIDIA-GH200-120GB", 100, 900),
        ("NVIDIA-GH200-480GB", 100, 900),
        ("NVIDIA-GeForce-RTX-2070-SUPER", 125, 260),
        ("NVIDIA-GeForce-RTX-3070", 100, 240),
        ("NVIDIA-GeForce-RTX-3070-Ti", 100, 320),
        ("NVIDIA-GeForce-RTX-3080", 100, 370),
        ("NVIDIA-GeForce-RTX-3090", 100, 400),
        ("NVIDIA-GeForce-RTX-4090", 10, 600),
        ("NVIDIA-GeForce-RTX-5080", 250, 360),
        ("NVIDIA-GeForce-RTX-5090", 400, 600),
        ("NVIDIA-H100", 200, 700),
        ("NVIDIA-H100-80GB-HBM3", 200, 700),
        ("NVIDIA-H100-NVL", 200, 400),
        ("NVIDIA-H100-PCIe", 200, 350),
        ("NVIDIA-H20", 200, 500),
        ("NVIDIA-H20-3e", 200, 500),
        ("NVIDIA-H200", 200, 700),
        ("NVIDIA-H200-NVL", 200, 600),
        ("NVIDIA-H800-NVL", 200, 400),
        ("NVIDIA-L2", 40, 72),
        ("NVIDIA-L20", 150, 350),
        ("NVIDIA-L4", 40, 72),
        ("NVIDIA-L40", 100, 300),
        ("NVIDIA-L40G", 100, 300),
        ("NVIDIA-L40S", 100, 350),
        ("NVIDIA-RTX-4500-Ada-Generation", 100, 210),
        ("NVIDIA-RTX-5000-Ada-Generation", 100, 250),
        ("NVIDIA-RTX-6000-Ada-Generation", 100, 300),
        ("NVIDIA-RTX-A4000", 100, 140),
        ("NVIDIA-RTX-A5000", 100, 230),
        ("NVIDIA-RTX-A6000", 100, 300),
        ("NVIDIA-RTX-PRO-2000-Blackwell", 56, 70),
        ("NVIDIA-RTX-PRO-4500-Blackwell-Server-Edition", 100, 165),
        ("NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition", 300, 600),
        ("NVIDIA-RTX-PRO-6000-Blackwell-Workstation-Edition", 150, 600),
        ("Quadro-GP100", 118, 235),
        ("Quadro-RTX-6000", 100, 260),
        ("Quadro-RTX-8000", 100, 260),
        ("Tesla-P100-PCIE-16GB", 125, 250),
        ("Tesla-T4", 60, 70),
        ("Tesla-V100-PCIE-32GB", 100, 250),
        ("Tesla-V100-SXM2-16GB", 100, 300),
        ("Tesla-V100-SXM3-32GB", 100, 350),
    )
}


# --- reading the component ------------------------------------------------------------------------


def power_limit(comp: ComponentSpecFields) -> str | None:
    """The annotation value on the component pod template, None when absent."""
    value = pods.pod_annotations(comp.pod_template).get(KUBE_ANNOTATION_GPU_POWER_LIMIT)
    return None if value is None else str(value)


def gpu_product(comp: ComponentSpecFields) -> str:
    selector = pods.pod_spec(comp.pod_template).get("nodeSelector")
    value = selector.get(GPU_PRODUCT_NODE_SELECTOR_LABEL, "") if isinstance(selector, dict) else ""
    return value if isinstance(value, str) else str(value)


def parse_watts(value: str) -> int | None:
    """``strconv.ParseInt(value, 10, 64)``: optional sign, decimal digits, int64 range."""
    if not _DECIMAL_INTEGER.match(value):
        return None
    watts = int(value)
    return watts if -_INT64_MAX - 1 <= watts <= _INT64_MAX else None


def _annotation_path(path: Path) -> Path:
    return path.child("podTemplate", "metadata", "annotations").key(KUBE_ANNOTATION_GPU_POWER_LIMIT)


def _selector_path(path: Path) -> Path:
    return path.child("podTemplate", "spec", "nodeSelector").key(GPU_PRODUCT_NODE_SELECTOR_LABEL)


# --- create -------------------------------------------------------------------------------------


def validate_power(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    """The whole stateless rule for one DGD component (nothing when the annotation is absent)."""
    value = power_limit(comp)
    if value is None:
        return []
    errors = _value_errors(value, _annotation_path(path))
    dra = dra_path(comp, path)
    if dra is not None:
        errors.append(
            forbidden(
                dra,
                f'cannot be combined with annotation "{KUBE_ANNOTATION_GPU_POWER_LIMIT}": power-aware '
                "planning does not support DRA-backed device allocation",
            )
        )
    return errors + product_errors(comp, path)


def _value_errors(value: str, path: Path) -> list[FieldError]:
    watts = parse_watts(value)
    if watts is None:
        return [invalid(path, value, "must be a decimal integer")]
    if watts <= 0:
        return [invalid(path, value, "must be greater than zero")]
    return []


def dra_path(comp: ComponentSpecFields, path: Path) -> Path | None:
    """Where the component asks for DRA devices: GMS, or the first container with resource claims."""
    if comp.gms is not None:
        return path.child("experimental", "gpuMemoryService")
    spec_path = path.child("podTemplate", "spec")
    for key in ("containers", "initContainers"):
        for i, container in enumerate(pods.containers(comp.pod_template, key)):
            resources = container.get("resources")
            if isinstance(resources, dict) and resources.get("claims"):
                return spec_path.child(key).index(i).child("resources", "claims")
    return None


def product_errors(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    """The GPU-product part of the rule (the part an unchanged update ratchets)."""
    value = power_limit(comp)
    if value is None:
        return []
    errors: list[FieldError] = []
    product = gpu_product(comp)
    selector_path = _selector_path(path)
    watts = parse_watts(value)
    product_range = POWER_RANGES.get(product)
    if product == "":
        errors.append(
            required(
                selector_path,
                f'is required when annotation "{KUBE_ANNOTATION_GPU_POWER_LIMIT}" is set, so the requested '
                "power limit can be validated against the selected GPU product",
            )
        )
    elif product_range is None:
        errors.append(
            invalid(
                selector_path,
                product,
                "has no reviewed GPU power range in this operator release; select a GPU product with a "
                f'reviewed range or remove annotation "{KUBE_ANNOTATION_GPU_POWER_LIMIT}". Power-aware '
                "planning requires exclusive full GPUs, so MIG, time-sliced, and other shared product "
                "labels are never eligible",
            )
        )
    elif watts is not None and watts > 0 and not product_range.min <= watts <= product_range.max:
        errors.append(
            invalid(
                _annotation_path(path),
                value,
                f"must be between {product_range.min} and {product_range.max} watts inclusive for GPU "
                f'product "{product}"',
            )
        )
    if pods.pod_spec(comp.pod_template).get("nodeName"):
        errors.append(
            forbidden(
                path.child("podTemplate", "spec", "nodeName"),
                f'cannot be combined with annotation "{KUBE_ANNOTATION_GPU_POWER_LIMIT}": bypassing the '
                f'scheduler invalidates the GPU product selected by "{GPU_PRODUCT_NODE_SELECTOR_LABEL}"',
            )
        )
    return errors


# --- update -------------------------------------------------------------------------------------


def validate_power_update(new: ComponentSpecFields, old: ComponentSpecFields, path: Path) -> list[FieldError]:
    """Annotation frozen; while it is set, GPU count, GPU product and node count are frozen too."""
    errors: list[FieldError] = []
    new_limit, old_limit = power_limit(new), power_limit(old)
    if new_limit != old_limit:
        errors.append(invalid(_annotation_path(path), new_limit, FIELD_IMMUTABLE_ERROR_MSG))
    if old_limit is None:
        return errors
    new_gpus, old_gpus = main_gpu_count(new, path), main_gpu_count(old, path)
    if not _same_gpu_count(new_gpus, old_gpus):
        errors.append(invalid(new_gpus[1], _quantity_text(new_gpus[0]), FIELD_IMMUTABLE_ERROR_MSG))
    new_product = gpu_product(new)
    if new_product != gpu_product(old):
        errors.append(invalid(_selector_path(path), new_product or None, FIELD_IMMUTABLE_ERROR_MSG))
    if new.number_of_nodes != old.number_of_nodes:
        errors.append(
            invalid(path.child("multinode", "nodeCount"), new.number_of_nodes, FIELD_IMMUTABLE_ERROR_MSG)
        )
    return errors


def main_gpu_count(comp: ComponentSpecFields, path: Path) -> tuple[Any, Path]:
    """The main container's scalar ``nvidia.com/gpu`` (limit before request) and where it sits."""
    containers_path = path.child("podTemplate", "spec", "containers")
    found = pods.find_container(comp.pod_template, MAIN_CONTAINER_NAME)
    if found is None:
        return None, containers_path
    index, container = found
    resources_path = containers_path.index(index).child("resources")
    resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
    for kind in ("limits", "requests"):
        values = resources.get(kind)
        if isinstance(values, dict) and KUBE_RESOURCE_GPU_NVIDIA in values:
            return values[KUBE_RESOURCE_GPU_NVIDIA], resources_path.child(kind).key(KUBE_RESOURCE_GPU_NVIDIA)
    return None, resources_path


def _same_gpu_count(a: tuple[Any, Path], b: tuple[Any, Path]) -> bool:
    """Equal presence and equal quantity ("1" == 1 == "1000m")."""
    if (a[0] is None) != (b[0] is None):
        return False
    return a[0] is None or _quantity(a[0]) == _quantity(b[0])


def _quantity(value: Any) -> Decimal | str:
    try:
        return parse_quantity(value)
    except (ValueError, TypeError, InvalidOperation):
        return str(value)


def _quantity_text(value: Any) -> str | None:
    """The quantity as Go's ``Quantity.String()`` prints whole numbers ("1000m" -> "1")."""
    if value is None:
        return None
    parsed = _quantity(value)
    if isinstance(parsed, Decimal) and parsed == parsed.to_integral_value():
        return str(int(parsed))
    return str(value)


def power_contract(comp: ComponentSpecFields) -> tuple[Any, ...]:
    """Every input of the product rule; whole placement only when no product is pinned."""
    limit = power_limit(comp)
    spec = pods.pod_spec(comp.pod_template)
    product = gpu_product(comp)
    placement: tuple[Any, ...] = ()
    if product == "":
        placement = (spec.get("nodeSelector") or {}, spec.get("affinity"))
    return (limit, product, spec.get("nodeName") or "", placement)


def ratchet_product_errors(
    errors: list[FieldError], new: DynamoGraphDeployment, old: DynamoGraphDeployment
) -> tuple[list[FieldError], list[str]]:
    """Drop product violations an update carries forward unchanged; warn about each one.

    Fails closed: if any candidate does not match exactly one error, nothing is dropped.
    """
    old_by_name = {c.name: c for c in old.components}
    candidates: list[FieldError] = []
    for i, comp in enumerate(new.components):
        previous = old_by_name.get(comp.name)
        if previous is not None and power_contract(previous) == power_contract(comp):
            candidates += product_errors(comp, Path("spec", "components").index(i))
    suppressed: set[int] = set()
    for candidate in candidates:
        matches = [i for i, e in enumerate(errors) if e == candidate]
        if len(matches) != 1 or matches[0] in suppressed:
            return errors, []
        suppressed.add(matches[0])
    kept = [e for i, e in enumerate(errors) if i not in suppressed]
    warnings = [f"{RATCHET_WARNING_PREFIX}{e}" for i, e in enumerate(errors) if i in suppressed]
    return kept, warnings
