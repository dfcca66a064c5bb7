"""GPUs a container gets from DRA ResourceClaims (``dra.ResolveGPUCount`` past the scalar case).

The operator reads the claim's ResourceClaimTemplate (or ResourceClaim) and every DeviceClass it
names from the API server, counts the GPU devices of each request, and sums over the container's
claims. Offline, those objects come from a :class:`DraInventory`: the Kubernetes objects given
beside the graph (the same YAML file, or ``objects=`` in a Pulumi program), plus the explicit
platform fact ``cluster.resourceClaimGpus`` (claim or template name -> GPUs). A claim found in
neither is refused with an error naming it and both ways to provide it.

Two offline allowances, both recorded in docs/ARCHITECTURE.md: a DeviceClass that is not given
but whose name looks like a GPU driver's (``gpu.nvidia.com``, the NVIDIA DRA driver's class)
counts as GPUs, as the operator classifies a selector-less class of that name; and a platform
fact wins over the objects for the same name (it is the user's explicit statement).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.render.backends.gpus import is_gpu_resource_name

_DRIVER_EQUALS = re.compile(r"""(?:^|&&)\s*\(*\s*device\.driver\s*==\s*["']([^"']+)["']""")

KIND_CLAIM_TEMPLATE = "ResourceClaimTemplate"
KIND_CLAIM = "ResourceClaim"
KIND_DEVICE_CLASS = "DeviceClass"
_RESOURCE_API_GROUP = "resource.k8s.io/"


def looks_like_gpu_identifier(name: str) -> bool:
    """``looksLikeGPUIdentifier``: a driver or class name that reads as a GPU."""
    lowered = name.lower()
    return (
        lowered == "gpu"
        or lowered.startswith(("gpu.", "gpu/"))
        or lowered.endswith("/gpu")
        or "/gpu." in lowered
        or "/gpu-" in lowered
    )


@record
class DraInventory:
    """The DRA objects rendering may read, by name (claims of the render namespace only)."""

    claim_templates: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    claims: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    device_classes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Platform fact ``cluster.resourceClaimGpus``: template or claim name -> GPUs per container.
    stated_gpus: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, objects: Iterable[Mapping[str, Any]], namespace: str,
           stated_gpus: Mapping[str, int] | None = None) -> DraInventory:
        """Index the ``resource.k8s.io`` objects among ``objects``.

        Namespaced objects without a namespace count as the render namespace's (they would be
        created there); objects of another namespace are not visible to the graph's pods.
        """
        by_kind: dict[str, dict[str, Mapping[str, Any]]] = {
            KIND_CLAIM_TEMPLATE: {}, KIND_CLAIM: {}, KIND_DEVICE_CLASS: {}
        }
        for obj in objects:
            kind = obj.get("kind")
            if kind not in by_kind or not str(obj.get("apiVersion", "")).startswith(_RESOURCE_API_GROUP):
                continue
            meta = obj.get("metadata") or {}
            if kind != KIND_DEVICE_CLASS and (meta.get("namespace") or namespace) != namespace:
                continue
            if isinstance(meta.get("name"), str):
                by_kind[kind][meta["name"]] = obj
        return cls(
            claim_templates=by_kind[KIND_CLAIM_TEMPLATE],
            claims=by_kind[KIND_CLAIM],
            device_classes=by_kind[KIND_DEVICE_CLASS],
            stated_gpus=dict(stated_gpus or {}),
        )


EMPTY_INVENTORY = DraInventory()


def claims_gpu_count(pod_spec: Mapping[str, Any] | None, claims: list[Any], inventory: DraInventory) -> int:
    """The GPUs of a container's ``resources.claims`` (each claim/request pair counted once)."""
    pod_claims = {c.get("name"): c for c in (pod_spec or {}).get("resourceClaims") or [] if isinstance(c, Mapping)}
    total = 0
    seen: set[tuple[str, str]] = set()
    for claim in claims:
        name, request = str(claim.get("name") or ""), str(claim.get("request") or "")
        if (name, request) in seen:
            continue
        seen.add((name, request))
        pod_claim = pod_claims.get(name)
        if pod_claim is None:
            raise RenderError(f"container ResourceClaim {name!r} has no matching pod resourceClaim")
        try:
            total += _pod_claim_gpus(pod_claim, request, inventory)
        except _ClaimError as err:
            raise RenderError(f"cannot determine GPU count for ResourceClaim {name!r}: {err}") from None
    return total


def claim_template_gpus(name: str, claim_spec: Mapping[str, Any], inventory: DraInventory) -> int:
    """The GPUs one claim made from a ResourceClaimTemplate's ``spec`` gets (all its requests):
    the count of a Grove-shared claim (PodCliqueSet ``resourceClaimTemplates``)."""
    try:
        return _claim_spec_gpus(claim_spec, "", inventory)
    except _ClaimError as err:
        raise RenderError(f"cannot determine GPU count for ResourceClaimTemplate {name!r}: {err}") from None


class _ClaimError(Exception):
    """A claim-level problem, wrapped with the claim's name by :func:`claims_gpu_count`."""


def _pod_claim_gpus(pod_claim: Mapping[str, Any], request: str, inventory: DraInventory) -> int:
    template_name = pod_claim.get("resourceClaimTemplateName")
    claim_name = pod_claim.get("resourceClaimName")
    if template_name:
        source, kind, store = str(template_name), KIND_CLAIM_TEMPLATE, inventory.claim_templates
    elif claim_name:
        source, kind, store = str(claim_name), KIND_CLAIM, inventory.claims
    else:
        raise _ClaimError(f"pod resourceClaim {pod_claim.get('name')!r} does not reference a ResourceClaim "
                          "or ResourceClaimTemplate")
    if source in inventory.stated_gpus:
        return int(inventory.stated_gpus[source])
    obj = store.get(source)
    if obj is None:
        raise _ClaimError(
            f"{kind} {source!r} is not known offline (the operator reads it from the cluster): put the "
            f"{kind} in the same file as the graph (or pass it to the Pulumi component as objects=[...]), "
            f"or state its GPU count as the platform fact cluster.resourceClaimGpus: {{{source}: <count>}}"
        )
    spec = (obj.get("spec") or {}).get("spec") if kind == KIND_CLAIM_TEMPLATE else obj.get("spec")
    return _claim_spec_gpus(spec or {}, request, inventory)


def _claim_spec_gpus(spec: Mapping[str, Any], request_name: str, inventory: DraInventory) -> int:
    """``gpuCountFromClaimSpec``: GPU devices over the requests (only ``request_name`` if set)."""
    total = 0
    found = request_name == ""
    for request in (spec.get("devices") or {}).get("requests") or []:
        if request_name and request.get("name") != request_name:
            continue
        found = True
        count, is_gpu = _request_gpus(request, inventory)
        if is_gpu:
            total += count
    if not found:
        raise _ClaimError(f"device request {request_name!r} was not found")
    return total


def _request_gpus(request: Mapping[str, Any], inventory: DraInventory) -> tuple[int, bool]:
    """``gpuCountFromDeviceRequest``: (count, whether the request asks for GPUs)."""
    exactly = request.get("exactly")
    if exactly is not None:
        if not _is_gpu_class(exactly.get("deviceClassName") or "", exactly.get("selectors") or [], inventory):
            return 0, False
        return _exact_count(exactly.get("allocationMode") or "", exactly.get("count") or 0), True
    alternatives = request.get("firstAvailable") or []
    if not alternatives:
        raise _ClaimError(f"device request {request.get('name')!r} must set exactly or firstAvailable")
    count, has_gpu, has_other = 0, False, False
    for sub in alternatives:
        if not _is_gpu_class(sub.get("deviceClassName") or "", sub.get("selectors") or [], inventory):
            has_other = True
            continue
        candidate = _exact_count(sub.get("allocationMode") or "", sub.get("count") or 0)
        if has_gpu and candidate != count:
            raise _ClaimError(f"GPU device request {request.get('name')!r} has firstAvailable alternatives "
                              "with different counts")
        count, has_gpu = candidate, True
    if has_gpu and has_other:
        raise _ClaimError(f"device request {request.get('name')!r} mixes GPU and non-GPU firstAvailable alternatives")
    return count, has_gpu


def _exact_count(mode: str, count: int) -> int:
    """``exactDeviceCount``: ExactCount (default) with 0 meaning 1; ``All`` is not countable."""
    if mode in ("", "ExactCount"):
        if count == 0:
            return 1
        if count < 0:
            raise _ClaimError("GPU device count must be positive")
        return int(count)
    if mode == "All":
        raise _ClaimError(f'GPU allocationMode "{mode}" has no deterministic per-node device count')
    raise _ClaimError(f'unsupported GPU allocationMode "{mode}"')


def _is_gpu_class(name: str, request_selectors: list[Any], inventory: DraInventory) -> bool:
    """``deviceClassResolver.isGPU`` over the given DeviceClass (or a GPU-named stand-in)."""
    device_class = inventory.device_classes.get(name)
    if device_class is None:
        if not looks_like_gpu_identifier(name):
            raise _ClaimError(
                f"DeviceClass {name!r} is not known offline (the operator reads it from the cluster): put "
                "the DeviceClass in the same file as the graph (or pass it as objects=[...]), or state the "
                "claim's GPU count as the platform fact cluster.resourceClaimGpus"
            )
        device_class = {"metadata": {"name": name}, "spec": {}}
    is_gpu, known = _classify(device_class, request_selectors)
    if not known:
        raise _ClaimError(
            f"cannot determine whether DeviceClass {name!r} provides GPUs: set spec.extendedResourceName or "
            "constrain device.driver in a DeviceClass or request CEL selector"
        )
    return is_gpu


def _classify(device_class: Mapping[str, Any], request_selectors: list[Any]) -> tuple[bool, bool]:
    """``classifyDeviceRequest``: (is GPU, known) from driver equalities, else the extended
    resource name, else a GPU-like class name when there are no selectors at all."""
    spec = device_class.get("spec") or {}
    name = (device_class.get("metadata") or {}).get("name") or ""
    selectors = [*(spec.get("selectors") or []), *request_selectors]
    is_gpu, has_driver = False, False
    for selector in selectors:
        expression = ((selector or {}).get("cel") or {}).get("expression")
        if not isinstance(expression, str) or "||" in expression:
            continue
        for driver in _DRIVER_EQUALS.findall(expression):
            candidate = looks_like_gpu_identifier(driver)
            if has_driver and candidate != is_gpu:
                raise _ClaimError(f"DeviceClass {name!r} and its request selectors constrain device.driver to "
                                  "both GPU and non-GPU drivers")
            is_gpu, has_driver = candidate, True
    if has_driver:
        return is_gpu, True
    extended = spec.get("extendedResourceName")
    if extended is not None:
        return is_gpu_resource_name(str(extended)), True
    if not selectors and looks_like_gpu_identifier(name):
        return True, True
    return False, False
