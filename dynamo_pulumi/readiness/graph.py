"""The DGD aggregation, and the mapping from a rendered graph plus live objects to its verdict.

``checkResourcesReadiness`` (``internal/controller/dgd_workload_result.go``) sorts the graph's
resources by name and reports either "All resources are ready" or "Resources not ready:
<name>: <reason>; ...". On the Grove pathway the generic reason is replaced by the components'
classification (``checkGroveResourcesReadiness``), and Services, Ingress and VirtualServices are
resources that are always ready (ERRATA section 3, items 10-11).

:func:`graph_readiness` applies that to what :func:`dynamo_pulumi.render.render_graph` returns.
We deploy the operator's *output* ourselves, so on the component pathway there are no DCD objects
to read; each Deployment or LeaderWorkerSet stands in for the DCD it was rendered from (same
name; the LWS carries a ``-0`` suffix), worded as the DGD controller would word that DCD.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from dynamo_pulumi.floor.constants import (
    LWS_NAME_SUFFIX,
    POD_CLIQUE_KIND,
    POD_CLIQUE_SCALING_GROUP_KIND,
    POD_CLIQUE_SET_KIND,
)
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.readiness._fields import name_of, namespace_of
from dynamo_pulumi.readiness.grove import (
    GroveComponentReadiness,
    child_ready,
    grove_components,
    merge_classifications,
    pod_clique_set_ready,
)
from dynamo_pulumi.readiness.readers import ObjectReader
from dynamo_pulumi.readiness.result import (
    ALL_RESOURCES_ARE_READY,
    ALL_RESOURCES_ARE_READY_MESSAGE,
    READY,
    RESOURCES_NOT_READY_PREFIX,
    SOME_RESOURCES_ARE_NOT_READY,
    ReadinessResult,
)
from dynamo_pulumi.readiness.workloads import (
    dcd_ready,
    deployment_ready,
    leader_worker_set_ready,
    workload_as_dcd,
)

DEFAULT_NAMESPACE: Final = "default"
#: Kinds the Grove pathway adds to the aggregation as always ready (component Services, the
#: frontend Ingress or VirtualService); on the component pathway they cannot change the verdict.
ALWAYS_READY_KINDS: Final = frozenset({"Service", "Ingress", "VirtualService"})


@record
class ResourceReadiness:
    """One entry of the DGD aggregation: the name it is listed under and its verdict.

    ``components`` holds the per-component verdicts of a PodCliqueSet (empty for other kinds), so
    callers can show which Grove child is behind a not-ready PodCliqueSet.
    """

    name: str
    kind: str
    result: ReadinessResult
    components: tuple[GroveComponentReadiness, ...] = ()


def check_resources_readiness(
    resources: Iterable[ResourceReadiness], classification: str = ""
) -> ReadinessResult:
    """``checkResourcesReadiness``, plus the Grove reason override when ``classification`` is set.

    Resources are sorted by name so the message is deterministic whatever order they were
    discovered in. ``detail`` gathers the resources' own details (ours, for logs).
    """
    ordered = sorted(resources, key=lambda r: r.name)
    not_ready = [r for r in ordered if not r.result.ready]
    if not not_ready:
        return ReadinessResult(True, ALL_RESOURCES_ARE_READY, ALL_RESOURCES_ARE_READY_MESSAGE)
    message = RESOURCES_NOT_READY_PREFIX + "; ".join(f"{r.name}: {r.result.message}" for r in not_ready)
    detail = "; ".join(f"{r.name}: {r.result.detail}" for r in not_ready if r.result.detail)
    return ReadinessResult(False, classification or SOME_RESOURCES_ARE_NOT_READY, message, detail)


def _group(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def _dcd_name_of_lws(name: str) -> str:
    return name[: -len(LWS_NAME_SUFFIX)] if name.endswith(LWS_NAME_SUFFIX) else name


def _evaluate(obj: Mapping[str, Any], reader: ObjectReader, namespace: str) -> ResourceReadiness | None:
    api_version = str(obj.get("apiVersion", ""))
    kind = str(obj.get("kind", ""))
    group = _group(api_version)
    name = name_of(obj)

    def live() -> dict[str, Any] | None:
        return reader.get(api_version, kind, namespace, name)

    if group == "apps" and kind == "Deployment":
        return ResourceReadiness(name, kind, workload_as_dcd(deployment_ready(live())))
    if group == "leaderworkerset.x-k8s.io" and kind == "LeaderWorkerSet":
        return ResourceReadiness(
            _dcd_name_of_lws(name), kind, workload_as_dcd(leader_worker_set_ready(live()))
        )
    if group == "nvidia.com" and kind == "DynamoComponentDeployment":
        return ResourceReadiness(name, kind, dcd_ready(live()))
    if group == "grove.io" and kind in (POD_CLIQUE_KIND, POD_CLIQUE_SCALING_GROUP_KIND):
        return ResourceReadiness(name, kind, child_ready(kind, live()))
    if group == "grove.io" and kind == POD_CLIQUE_SET_KIND:
        # Children live in the PCS's group/version and namespace, one per component.
        components = tuple(
            GroveComponentReadiness(
                component,
                child_ready(
                    component.kind, reader.get(api_version, component.kind, namespace, component.name)
                ),
            )
            for component in grove_components(obj)
        )
        return ResourceReadiness(name, kind, pod_clique_set_ready(components), components)
    if kind in ALWAYS_READY_KINDS:
        # The operator lists these as resources whose readiness is constantly true; no read needed.
        return ResourceReadiness(name, kind, READY)
    # RBAC, ConfigMaps, PVCs, adapters and the like are not resources of the aggregation at all.
    return None


def resource_readiness(
    objects: Iterable[Mapping[str, Any]], reader: ObjectReader, namespace: str | None = None
) -> list[ResourceReadiness]:
    """The aggregation's resources for a rendered object list, each judged on its live object.

    ``namespace`` applies to objects without ``metadata.namespace`` (default ``default``).
    Only workloads, DCDs and Grove objects are read; Services, Ingress and VirtualServices are
    listed as ready without a read, and every other kind is left out.
    """
    results: list[ResourceReadiness] = []
    for obj in objects:
        ns = namespace_of(obj) or namespace or DEFAULT_NAMESPACE
        evaluated = _evaluate(obj, reader, ns)
        if evaluated is not None:
            results.append(evaluated)
    return results


def aggregate(resources: Sequence[ResourceReadiness]) -> ReadinessResult:
    """The DGD verdict for already judged resources, with the Grove classification applied.

    The classification comes only from not-ready PodCliqueSets (the component pathway keeps the
    generic reason), merged like components are when there is more than one.
    """
    classification = merge_classifications(
        [r.result.reason for r in resources if r.kind == POD_CLIQUE_SET_KIND and not r.result.ready]
    )
    return check_resources_readiness(resources, classification)


def graph_readiness(
    objects: Iterable[Mapping[str, Any]], reader: ObjectReader, namespace: str | None = None
) -> ReadinessResult:
    """The graph's DGD ``Ready`` verdict: ``render_graph(...).objects`` judged on live objects."""
    return aggregate(resource_readiness(objects, reader, namespace))
