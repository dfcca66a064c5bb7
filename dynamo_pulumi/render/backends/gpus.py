"""How many GPUs one container asks for (``dra.ResolveGPUCount``, ERRATA 8-9).

vLLM decides between a single-node and a distributed launch, and TRT-LLM sizes ``mpirun -n``,
from this count. Scalar resources win: limits first, then requests; among GPU-like resource
names the first in sorted order counts, and it must be a whole number. Only when there is no
scalar GPU does the operator sum the container's DRA claims
(:mod:`dynamo_pulumi.render.backends.dra_claims`, over the objects given beside the graph).

The outputs (a component's ``gpus``, the graph's ``total_gpus``, ``preview``'s total) count each
rendered pod with :func:`pod_gpu_count`, the same rule, so they agree with the launch flags.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.quantity import parse_quantity
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import KUBE_RESOURCE_GPU_NVIDIA
from dynamo_pulumi.floor.placeholders import contains_output_token

if TYPE_CHECKING:
    from dynamo_pulumi.render.backends.dra_claims import DraInventory


def is_gpu_resource_name(name: str) -> bool:
    """``isGPUResourceName``: nvidia.com/gpu, gpu, ``*/gpu``, ``*/mig-*``, ``gpu.*`` (any case)."""
    lowered = name.lower()
    return (
        lowered in (KUBE_RESOURCE_GPU_NVIDIA, "gpu")
        or lowered.endswith("/gpu")
        or "/mig-" in lowered
        or lowered.startswith("gpu.")
    )


def _scalar_gpu_count(resource_list: Any, where: str) -> int | None:
    """The count from the first GPU-like name in sorted order; None when there is none."""
    if not isinstance(resource_list, dict):
        return None
    names = sorted(n for n in resource_list if isinstance(n, str) and is_gpu_resource_name(n))
    if not names:
        return None
    name = names[0]
    quantity = resource_list[name]
    path = f"{where}[{name}]"
    if contains_output_token(quantity):
        raise RenderError(
            "the GPU count decides the launch flags, and a pulumi.Output's value cannot be read at preview "
            "time; give a plain GPU count",
            path,
        )
    if isinstance(quantity, bool) or not isinstance(quantity, (str, int, float)):
        raise RenderError("GPU quantity must be a plain value to size the launch", path)
    try:
        value = Decimal(parse_quantity(quantity))
    except ValueError:
        raise RenderError(f"GPU resource {name!r} quantity {quantity!r} is not a quantity", path) from None
    if value != value.to_integral_value():
        raise RenderError(
            f"GPU resource {name!r} quantity {quantity!r} must be a whole number", path
        )
    return int(value)


def scalar_gpu_count(resources: Any) -> int:
    """The GPUs of a ``resources`` block's scalar resources (limits first, then requests); 0 if none.

    ``ExtractGPUCountFromResourceRequirements``: the count before any DRA claim is looked at.
    """
    if not isinstance(resources, dict):
        return 0
    for key in ("limits", "requests"):
        scalar = _scalar_gpu_count(resources.get(key), f"resources.{key}")
        if scalar is not None:
            return scalar
    return 0


def resolve_gpu_count(
    container: dict[str, Any] | None,
    pod_spec: Mapping[str, Any] | None = None,
    inventory: DraInventory | None = None,
) -> int:
    """The container's GPU count: scalar resources (limits, else requests), else its DRA claims.

    ``pod_spec`` holds the ``resourceClaims`` the container's claims refer to; ``inventory`` the
    claim templates, claims and DeviceClasses known offline. A claim neither resolves raises a
    RenderError naming it and the two ways to provide it.
    """
    resources = (container or {}).get("resources") or {}
    count = scalar_gpu_count(resources)
    claims = resources.get("claims") if isinstance(resources, dict) else None
    if count > 0 or not claims:
        return count
    return _claims_gpus(pod_spec, list(claims), inventory, "resources.claims")


def pod_gpu_count(pod_spec: Mapping[str, Any] | None, inventory: DraInventory | None = None) -> int:
    """The GPUs one pod asks for: :func:`resolve_gpu_count` over its regular containers.

    The same rule the launch flags are sized by, with one pod-level difference: containers that
    share a pod claim (the GMS clients share ``main``'s) share its devices, so each pod claim,
    or each of its requests, counts once however many containers name it. Init containers
    (native sidecars included) are not counted: the operator never gives them GPUs.
    """
    scalar, claims = 0, []
    for container in (pod_spec or {}).get("containers") or []:
        resources = container.get("resources") or {}
        count = scalar_gpu_count(resources)
        if count > 0:
            scalar += count
        elif isinstance(resources, dict):
            claims.extend(c for c in resources.get("claims") or [] if isinstance(c, Mapping))
    if not claims:
        return scalar
    return scalar + _claims_gpus(pod_spec, _shared_claims(claims), inventory)


def _shared_claims(claims: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The claim references of several containers, a request dropped where its whole claim is named."""
    whole = {str(c.get("name") or "") for c in claims if not c.get("request")}
    return [c for c in claims if not c.get("request") or str(c.get("name") or "") not in whole]


def _claims_gpus(
    pod_spec: Mapping[str, Any] | None, claims: list[Any], inventory: DraInventory | None, path: str = ""
) -> int:
    """:func:`~dynamo_pulumi.render.backends.dra_claims.claims_gpu_count`, its error at ``path``."""
    # imported here: dra_claims reads is_gpu_resource_name from this module
    from dynamo_pulumi.render.backends.dra_claims import EMPTY_INVENTORY, claims_gpu_count

    try:
        return claims_gpu_count(pod_spec, claims, inventory or EMPTY_INVENTORY)
    except RenderError as err:
        if not path:
            raise
        raise RenderError(str(err), path) from None
