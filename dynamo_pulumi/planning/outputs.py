"""What a deployed graph tells its Pulumi program: workload kinds and names, Service names,
replicas, GPUs, the Dynamo namespace and the frontend URL.

Everything is computed from the plan (the rendered objects), so preview knows these values
before anything exists, and they are exactly what the cluster will be asked to run. GPUs are
counted per rendered pod by the renderer's own rule (:func:`pod_gpu_count`: scalar GPUs, else
DRA claims resolved over the objects given beside the graph and the rendered claim templates,
else the platform fact), so they agree with the launch flags (``mpirun -n``, ``--nnodes``).
A claim nothing resolves offline counts 0 and is reported by :func:`gpu_count_warnings`; the
renderer only refuses it where a launch needs the count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_FRONTEND,
    DYNAMO_SERVICE_PORT,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_NAMESPACE,
)
from dynamo_pulumi.floor.naming import component_service_name, dynamo_namespace
from dynamo_pulumi.floor.placeholders import OUTPUT_TOKEN_RE, UnknownValue
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.render.backends.dra_claims import DraInventory, claim_template_gpus
from dynamo_pulumi.render.backends.gpus import is_gpu_resource_name, pod_gpu_count

if TYPE_CHECKING:
    from dynamo_pulumi.planning.plan import ComponentPlan, GraphPlan, PlannedObject
    from dynamo_pulumi.planning.unknowns import OutputTable

WORKLOAD_KINDS = ("Deployment", "StatefulSet", "LeaderWorkerSet", "PodCliqueSet")


@record
class ComponentSummary:
    """Per component outputs (issue 5, item 5)."""

    component: str
    workload_kind: str
    workload_names: list[str]
    service_name: str | None
    replicas: int
    gpus: int
    #: Why some pods' GPUs are not in ``gpus`` (a DRA claim nothing resolves offline).
    uncounted_gpus: tuple[str, ...] = ()
    #: Ids of the ``pulumi.Output`` values not known yet that the GPU count depends on (a replica
    #: count, a GPU quantity): while any is listed, ``gpus`` holds a stand-in and is no count.
    unknown_gpus: tuple[str, ...] = ()
    #: The same for ``replicas``.
    unknown_replicas: tuple[str, ...] = ()

    @property
    def known_gpus(self) -> int | None:
        """The GPU count, or None while it depends on a value not known yet."""
        return None if self.unknown_gpus else self.gpus

    @property
    def known_replicas(self) -> int | None:
        return None if self.unknown_replicas else self.replicas

    def as_dict(self) -> dict[str, Any]:
        return {
            "workloadKind": self.workload_kind,
            "workloadNames": list(self.workload_names),
            "serviceName": self.service_name,
            "replicas": self.replicas,
            "gpus": self.gpus,
        }


@record
class GraphSummary:
    dynamo_namespace: str
    frontend_url: str | None
    total_gpus: int
    components: dict[str, ComponentSummary] = field(default_factory=dict)


def _int(value: Any) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return 0


class _Counter:
    """Integers read off rendered objects, noting each that is the stand-in of an Output whose
    value is not known yet (the count built from it is then no count)."""

    def __init__(self, table: OutputTable | None) -> None:
        self.integers = table.integers if table is not None else {}
        self.unknown: list[str] = []

    def __call__(self, value: Any) -> int:
        if isinstance(value, UnknownValue):
            self.unknown.append(value.ident)
        elif isinstance(value, int) and not isinstance(value, bool) and value in self.integers:
            self.unknown.append(self.integers[value])
        elif isinstance(value, str):
            self.unknown += OUTPUT_TOKEN_RE.findall(value)
        return _int(value)


def _template_spec(template: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return (template or {}).get("spec") or {}


def _pods_of_workload(
    obj: Mapping[str, Any], component: str, count: _Counter | None = None
) -> Iterable[tuple[int, Mapping[str, Any]]]:
    """(pod count, pod spec) pairs the workload runs for ``component``."""
    count = count or _Counter(None)
    spec = obj.get("spec") or {}
    kind = obj.get("kind")
    replicas = count(spec.get("replicas", 1))
    if kind in ("Deployment", "StatefulSet"):
        yield replicas, _template_spec(spec.get("template"))
    elif kind == "LeaderWorkerSet":
        lwt = spec.get("leaderWorkerTemplate") or {}
        size = max(count(lwt.get("size", 1)), 1)
        worker = _template_spec(lwt.get("workerTemplate"))
        leader = _template_spec(lwt.get("leaderTemplate")) if lwt.get("leaderTemplate") else worker
        yield replicas, leader
        yield replicas * (size - 1), worker
    elif kind == "PodCliqueSet":
        yield from _pods_of_pcs(spec, component, replicas, count)


def _pods_of_pcs(
    spec: Mapping[str, Any], component: str, pcs_replicas: int, count: _Counter
) -> Iterable[tuple[int, Mapping[str, Any]]]:
    template = spec.get("template") or {}
    group_of: dict[str, Any] = {}
    for group in template.get("podCliqueScalingGroups") or []:
        for clique in group.get("cliqueNames") or []:
            group_of[clique] = group.get("replicas", 1)
    for clique in template.get("cliques") or []:
        if (clique.get("labels") or {}).get(KUBE_LABEL_DYNAMO_COMPONENT) != component:
            continue
        clique_spec = clique.get("spec") or {}
        per_group = count(group_of.get(clique.get("name", ""), 1)) or 1
        yield pcs_replicas * per_group * count(clique_spec.get("replicas", 1)), clique_spec.get("podSpec") or {}


def _component_workloads(component: ComponentPlan, graph_objects: list[PlannedObject]) -> list[PlannedObject]:
    own = [o for o in component.objects if o.kind in WORKLOAD_KINDS]
    if own:
        return own
    return [o for o in graph_objects if o.kind == "PodCliqueSet"]


def _service_name(component: ComponentPlan) -> str | None:
    services = [o.name for o in component.objects if o.kind == "Service"]
    preferred = component_service_name(component.dcd_name)
    if preferred in services:
        return preferred
    return services[0] if services else None


def _replicas(component: ComponentPlan, plan: GraphPlan, count: _Counter) -> int:
    if component.dcd is not None and "replicas" in (component.dcd.get("spec") or {}):
        return count(component.dcd["spec"]["replicas"])
    graph = plan.graph
    spec = graph.spec if plan.kind != "DynamoGraphDeployment" else graph.spec.component(component.name)  # type: ignore[union-attr]
    return count(spec.effective_replicas) if spec is not None else 1


def gpu_inventory(plan: GraphPlan) -> DraInventory:
    """The DRA objects a pod's claims may name: those given beside the graph (as rendering read
    them), the claim templates the graph renders itself (GMS), and ``cluster.resourceClaimGpus``."""
    rendered = [o.obj for o in plan.all_objects()]
    return DraInventory.of(
        [*plan.objects_beside, *rendered], plan.namespace, plan.platform.cluster.resource_claim_gpus
    )


def _shared_claims_of_pcs(
    spec: Mapping[str, Any], component: str, count: _Counter
) -> Iterable[tuple[int, str, Mapping[str, Any]]]:
    """(claims, template name, claim spec) of the component's Grove-shared claims.

    Inter-pod GMS shares one claim per rank between a rank's weight-server and engine cliques:
    a scaling group's ``resourceSharing`` entry of scope ``PerReplica`` makes Grove create one
    ResourceClaim per group replica from the PodCliqueSet's ``resourceClaimTemplates`` (the
    pods' own specs carry neither the claim nor GPUs, Grove injects it).
    """
    template = spec.get("template") or {}
    templates = {t.get("name"): (t.get("templateSpec") or {}).get("spec") or {}
                 for t in template.get("resourceClaimTemplates") or []}
    own = {c.get("name") for c in template.get("cliques") or []
           if (c.get("labels") or {}).get(KUBE_LABEL_DYNAMO_COMPONENT) == component}
    pcs_replicas = count(spec.get("replicas", 1))
    for group in template.get("podCliqueScalingGroups") or []:
        for sharing in group.get("resourceSharing") or []:
            cliques = set((sharing.get("filter") or {}).get("childCliqueNames") or [])
            if not cliques & own or sharing.get("name") not in templates:
                continue
            per_group = count(group.get("replicas", 1)) if sharing.get("scope") == "PerReplica" else 1
            yield pcs_replicas * per_group, str(sharing["name"]), templates[sharing["name"]]


def _gpu_quantity_outputs(pod: Mapping[str, Any]) -> list[str]:
    """Ids of the Outputs (still unknown) among the pod's GPU quantities."""
    return [
        ident
        for container in [*(pod.get("containers") or []), *(pod.get("initContainers") or [])]
        for section in ((container.get("resources") or {}).get(s) or {} for s in ("limits", "requests"))
        for name, quantity in section.items() if is_gpu_resource_name(str(name)) and isinstance(quantity, str)
        for ident in ([quantity.ident] if isinstance(quantity, UnknownValue) else OUTPUT_TOKEN_RE.findall(quantity))
    ]


def _workload_gpus(
    workloads: list[PlannedObject], component: str, inventory: DraInventory, count: _Counter
) -> tuple[int, tuple[str, ...]]:
    """GPUs of the component's pods and of the claims Grove shares between them, and why any
    could not be counted (a GPU quantity that is an Output not known yet is no reason: ``count``
    notes it, and the count is unknown, not short)."""
    total, uncounted = 0, []
    for workload in workloads:
        for pods, pod in _pods_of_workload(workload.obj, component, count):
            quantity_outputs = _gpu_quantity_outputs(pod)
            if quantity_outputs:
                count.unknown += quantity_outputs
                continue
            try:
                total += pods * pod_gpu_count(pod, inventory)
            except RenderError as err:
                uncounted.append(f"{workload.kind} {workload.name}: {err}")
        if workload.kind != "PodCliqueSet":
            continue
        for claims, name, claim_spec in _shared_claims_of_pcs(workload.obj.get("spec") or {}, component, count):
            try:
                total += claims * claim_template_gpus(name, claim_spec, inventory)
            except RenderError as err:
                uncounted.append(f"{workload.kind} {workload.name}: {err}")
    return total, tuple(dict.fromkeys(uncounted))


def summarize_component(
    component: ComponentPlan, plan: GraphPlan, inventory: DraInventory | None = None
) -> ComponentSummary:
    workloads = _component_workloads(component, plan.graph_objects)
    gpu_count, replica_count = _Counter(plan.outputs), _Counter(plan.outputs)
    gpus, uncounted = _workload_gpus(workloads, component.name, inventory or gpu_inventory(plan), gpu_count)
    return ComponentSummary(
        component=component.name,
        workload_kind=workloads[0].kind if workloads else "",
        workload_names=[w.name for w in workloads],
        service_name=_service_name(component),
        replicas=_replicas(component, plan, replica_count),
        gpus=gpus,
        uncounted_gpus=uncounted,
        unknown_gpus=tuple(dict.fromkeys(gpu_count.unknown)),
        unknown_replicas=tuple(dict.fromkeys(replica_count.unknown)),
    )


def _dynamo_namespace(plan: GraphPlan) -> str:
    for planned in plan.all_objects():
        for labels in _template_label_sets(planned.obj):
            value = labels.get(KUBE_LABEL_DYNAMO_NAMESPACE)
            if isinstance(value, str) and value:
                return value
    return dynamo_namespace(plan.namespace, plan.name)


def _template_label_sets(obj: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    spec = obj.get("spec") or {}
    yield ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    for clique in (spec.get("template") or {}).get("cliques") or []:
        yield clique.get("labels") or {}


def _frontend_url(plan: GraphPlan, summaries: Mapping[str, ComponentSummary]) -> str | None:
    for component in plan.components:
        if component.type != COMPONENT_TYPE_FRONTEND:
            continue
        service = next((o for o in component.objects if o.kind == "Service"), None)
        if service is None:
            return None
        ports = (service.obj.get("spec") or {}).get("ports") or [{}]
        port = _int(ports[0].get("port", DYNAMO_SERVICE_PORT)) or DYNAMO_SERVICE_PORT
        ns = (service.obj.get("metadata") or {}).get("namespace") or plan.namespace
        return f"http://{service.name}.{ns}.svc.cluster.local:{port}"
    return None


def summarize(plan: GraphPlan) -> GraphSummary:
    inventory = gpu_inventory(plan)
    summaries = {c.name: summarize_component(c, plan, inventory) for c in plan.components}
    return GraphSummary(
        dynamo_namespace=_dynamo_namespace(plan),
        frontend_url=_frontend_url(plan, summaries),
        total_gpus=sum(s.gpus for s in summaries.values()),
        components=summaries,
    )


def gpu_count_warnings(plan: GraphPlan) -> list[str]:
    """One warning per pod whose GPUs the outputs leave out, naming the claim and the remedy."""
    return [
        f"component {summary.component!r}: GPUs not counted in the gpus/totalGpus outputs for {reason}"
        for summary in summarize(plan).components.values()
        for reason in summary.uncounted_gpus
    ]
