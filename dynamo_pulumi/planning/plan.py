"""From a user's spec to a *plan*: the validated graph, its rendered objects grouped by owner,
and stable Pulumi names for each. Pure (no Pulumi registration), so the ComponentResources,
``preview`` and ``diff`` all see exactly the same objects under exactly the same names.

Ownership follows the operator: objects of one component (its workload, Services, ingress,
scaling adapter) belong to that component's DynamoComponentDeployment; graph-wide objects (RBAC,
ConfigMaps, InferencePool, the Grove PodCliqueSet) belong to the graph. When the renderer says
which component an object belongs to we use that; otherwise the ``nvidia.com/dynamo-component``
label decides.

Pulumi names are the operator's object names with the worker hash taken out, prefixed with the
namespace (the ``namespace/name`` convention of pulumi-kubernetes' ``yaml/v2``). A worker change
therefore keeps the Pulumi name and changes ``metadata.name``: the provider replaces the object,
creating the new hash-named workload before deleting the old one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dynamo_pulumi.api.v1beta1 import (
    DCD_KIND,
    DGD_KIND,
    DynamoComponentDeployment,
    DynamoComponentDeploymentSpec,
    DynamoGraphDeployment,
    DynamoGraphDeploymentSpec,
)
from dynamo_pulumi.errors import DynamoPulumiError, GraphValidationError, InputError
from dynamo_pulumi.floor.constants import (
    CLUSTER_SCOPED_KINDS,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_WORKER_HASH,
)
from dynamo_pulumi.floor.records import field, record, replace
from dynamo_pulumi.loading.documents import LoadedObject, companion_note, is_companion
from dynamo_pulumi.model.deploy_mode import DEFAULT_MODE, Mode, check_mode
from dynamo_pulumi.planning.directives import Directives, apply_directives, split
from dynamo_pulumi.planning.outputs import gpu_count_warnings
from dynamo_pulumi.planning.placement import GpuPlacement
from dynamo_pulumi.planning.typed_outputs import crashed, explain, refuse_output_names, scrub
from dynamo_pulumi.planning.unknowns import OutputTable, park, read_by_rendering
from dynamo_pulumi.platform import Platform, load_platform
from dynamo_pulumi.render.objects.rbac import is_namespace_shared

GraphModel = DynamoGraphDeployment | DynamoComponentDeployment
SpecSource = GraphModel | DynamoGraphDeploymentSpec | DynamoComponentDeploymentSpec | Mapping[str, Any] | str | Path

#: Kinds that always belong to the graph, whatever their labels say (issue 5, item 2).
GRAPH_LEVEL_KINDS = frozenset(
    {
        "PodCliqueSet",
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "ConfigMap",
        "InferencePool",
        "HTTPRoute",
    }
)


@record(frozen=False)
class PlannedObject:
    """One object to create, with its stable Pulumi name."""

    obj: dict[str, Any]
    pulumi_name: str
    #: One of the per-namespace objects several graphs render alike (planner/EPP RBAC): applied
    #: as a server-side-apply patch so each graph co-owns it instead of fighting over it.
    shared: bool = False
    #: ``metadata.name`` carries the worker hash: a new worker generation is an object of a new
    #: name (replaced create-before-delete), never the same name recreated.
    generation_named: bool = False

    @property
    def api_version(self) -> str:
        return str(self.obj.get("apiVersion", ""))

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind", ""))

    @property
    def name(self) -> str:
        return str((self.obj.get("metadata") or {}).get("name", ""))

    @property
    def resource_kind(self) -> str:
        """The kind of the Pulumi resource: ``<Kind>Patch`` for a namespace-shared object."""
        return f"{self.kind}Patch" if self.shared else self.kind

    @property
    def key(self) -> tuple[str, str, str]:
        """Identity as Pulumi sees it: type and logical name."""
        return (self.api_version, self.kind, self.pulumi_name)


@record(frozen=False)
class ComponentPlan:
    """One component: its DCD document (if the pathway has one) and the objects it owns."""

    name: str
    type: str | None
    dcd_name: str
    pulumi_name: str
    dcd: dict[str, Any] | None = None
    worker_hash: str = ""
    scaling_adapter: bool = False
    objects: list[PlannedObject] = field(default_factory=list)


@record(frozen=False)
class GraphPlan:
    """Everything a DGD (or a standalone DCD) creates."""

    kind: str
    name: str
    namespace: str
    graph: GraphModel
    platform: Platform
    components: list[ComponentPlan]
    graph_objects: list[PlannedObject]
    outputs: OutputTable = field(default_factory=OutputTable)
    warnings: list[str] = field(default_factory=list)
    #: ``render``: the objects are created; ``operator``: they are the operator's predicted expansion.
    mode: Mode = DEFAULT_MODE
    #: Kubernetes objects deployed beside the graph (its file's other documents, ``objects=``),
    #: which rendering read DRA claim templates from; the outputs count GPUs over the same.
    objects_beside: list[Mapping[str, Any]] = field(default_factory=list)

    def all_objects(self) -> list[PlannedObject]:
        found = list(self.graph_objects)
        for component in self.components:
            found.extend(component.objects)
        return found

    def component(self, name: str) -> ComponentPlan | None:
        return next((c for c in self.components if c.name == name), None)


# --- loading ----------------------------------------------------------------------------------------


def _as_document(spec: SpecSource, name: str, table: OutputTable) -> Any:
    """The spec as something :func:`load_graph` reads, with Outputs parked as tokens."""
    if isinstance(spec, (DynamoGraphDeployment, DynamoComponentDeployment)):
        return park(spec.to_wire(), table)  # models hold Outputs only inside podTemplate dicts
    if isinstance(spec, DynamoGraphDeploymentSpec):  # a typed bare spec: named after the resource
        spec = spec.to_wire()
    if isinstance(spec, DynamoComponentDeploymentSpec):  # a standalone component's typed spec
        return {"apiVersion": "nvidia.com/v1beta1", "kind": DCD_KIND, "metadata": {"name": name},
                "spec": park(spec.to_wire(), table, "spec")}
    from dynamo_pulumi.floor.sources import SourceText

    if isinstance(spec, (Path, str, SourceText)):
        return spec  # SourceText: YAML the CLI read from a file or stdin, with its name
    if isinstance(spec, Mapping):
        if "apiVersion" in spec or "kind" in spec:
            return park(dict(spec), table)
        # A bare DGD spec (``{"components": [...]}``): wrap it under the resource's name.
        return {
            "apiVersion": "nvidia.com/v1beta1",
            "kind": DGD_KIND,
            "metadata": {"name": name},
            "spec": park(dict(spec), table, "spec"),
        }
    raise InputError(f"spec must be a model, a mapping or a YAML file path, not {type(spec).__name__}")


def load_spec(spec: SpecSource, name: str = "") -> tuple[GraphModel, OutputTable]:
    """The graph model of ``spec`` (v1alpha1 converted) and the Outputs parked in it."""
    entry, table = load_spec_entry(spec, name)
    return entry.object, table  # type: ignore[return-value]


def load_spec_entry(spec: SpecSource, name: str = "") -> tuple[LoadedObject, OutputTable]:
    """Like :func:`load_spec`, keeping where the graph came from (v1alpha1 paths for errors).

    A graph without ``metadata.name`` takes the Pulumi resource name ``name``."""
    from dynamo_pulumi.planning.typed_outputs import load_with_outputs

    table = OutputTable()
    entry = load_with_outputs(_as_document(spec, name, table), table)
    graph = entry.object
    if not graph.metadata.name and name:
        graph.metadata.name = name
    return entry, table


def side_documents(spec: SpecSource) -> list[dict[str, Any]]:
    """The non-Dynamo documents of a YAML file or text spec (none for models and mappings)."""
    from dynamo_pulumi.floor.sources import SourceText

    if not isinstance(spec, (str, Path, SourceText)):
        return []
    from dynamo_pulumi.loading.documents import load_documents

    return list(load_documents(spec).others)


def _placed(entry: LoadedObject, placement: GpuPlacement, table: OutputTable) -> LoadedObject:
    """The graph with the GPU placement written into its GPU components' pod templates."""
    from dynamo_pulumi.loading.documents import load_graph

    wire = entry.object.to_wire()
    placement.apply(wire)
    return replace(entry, object=load_graph(park(wire, table)))


def _without_directives(entry: LoadedObject, table: OutputTable) -> tuple[LoadedObject, Directives]:
    """The graph without the ``pulumi.com/`` directives of its spec (never rendered nor hashed:
    :mod:`.directives`), and those directives."""
    wire, directives = split(entry.object.to_wire())
    if not directives:
        return entry, directives
    from dynamo_pulumi.loading.documents import load_graph

    return replace(entry, object=load_graph(park(wire, table))), directives


#: The graph's namespace when neither the caller nor ``metadata.namespace`` names one: a name,
#: or a function asked only then (a Pulumi component's provider, read once it is needed).
DefaultNamespace = str | Callable[[], str]


def _default_namespace(default: DefaultNamespace) -> str:
    return default() if callable(default) else default


# --- grouping ---------------------------------------------------------------------------------------


def _labels(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _worker_hash_of(dcd: Mapping[str, Any] | None) -> str:
    if not dcd:
        return ""
    labels = dict(_labels(dcd))
    template_labels = (((dcd.get("spec") or {}).get("podTemplate") or {}).get("metadata") or {}).get("labels") or {}
    value = labels.get(KUBE_LABEL_DYNAMO_WORKER_HASH) or template_labels.get(KUBE_LABEL_DYNAMO_WORKER_HASH) or ""
    return "" if value == "legacy" else str(value)


def stable_name(object_name: str, worker_hash: str) -> str:
    """The object name with the worker hash taken out (``g-decode-1a2b3c4d-0`` -> ``g-decode-0``)."""
    if worker_hash and f"-{worker_hash}" in object_name:
        return object_name.replace(f"-{worker_hash}", "", 1)
    return object_name


def pulumi_name(obj: Mapping[str, Any], worker_hash: str, namespace: str) -> str:
    name = stable_name(str((obj.get("metadata") or {}).get("name", "")), worker_hash)
    if obj.get("kind") in CLUSTER_SCOPED_KINDS:
        return name
    ns = (obj.get("metadata") or {}).get("namespace") or namespace
    return f"{ns}/{name}"


def _owner_of(obj: Mapping[str, Any], index: int, explicit: Any, components: Mapping[str, ComponentPlan]) -> str | None:
    """The component owning ``obj``: the renderer's ``owners[index]`` first, then the label.

    The renderer leaves Grove-pathway Services and scaling adapters at graph level (the operator
    creates them from the DGD controller); a Pulumi user expects them under their component, so
    any object labelled with a component and not of a graph-wide kind goes there.
    """
    if explicit is not None:
        try:
            owner = explicit[index]
        except (IndexError, KeyError, TypeError):
            owner = None
        if owner in components:
            return owner
    if obj.get("kind") in GRAPH_LEVEL_KINDS:
        return None
    component = _labels(obj).get(KUBE_LABEL_DYNAMO_COMPONENT)
    if component is None and obj.get("kind") == "Service":
        component = ((obj.get("spec") or {}).get("selector") or {}).get(KUBE_LABEL_DYNAMO_COMPONENT)
    return component if component in components else None


def _copy_tree(value: Any) -> Any:
    """Copy mappings and lists; share leaves (a ``pulumi.Output`` cannot be deep-copied)."""
    if isinstance(value, Mapping):
        return {key: _copy_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_tree(item) for item in value]
    return value


def _ensure_namespace(obj: dict[str, Any], namespace: str) -> dict[str, Any]:
    if obj.get("kind") in CLUSTER_SCOPED_KINDS:
        return obj
    metadata = obj.setdefault("metadata", {})
    metadata.setdefault("namespace", namespace)
    return obj


def _component_plans(graph: GraphModel, dcds: list[dict[str, Any]], namespace: str) -> dict[str, ComponentPlan]:
    """One plan per component of the graph, joined with its DCD document when rendered."""
    by_component: dict[str, dict[str, Any]] = {}
    for dcd in dcds:
        spec = dcd.get("spec") or {}
        by_component[str(spec.get("name") or _labels(dcd).get(KUBE_LABEL_DYNAMO_COMPONENT, ""))] = dcd
    if isinstance(graph, DynamoComponentDeployment):
        entries = [(graph.spec.name or graph.name, graph.spec)]
    else:
        entries = [(c.name, c) for c in graph.components]
    plans: dict[str, ComponentPlan] = {}
    for name, spec in entries:
        dcd = by_component.get(name)
        worker_hash = _worker_hash_of(dcd)
        if dcd is not None:
            dcd_name = str(dcd["metadata"]["name"])
        elif isinstance(graph, DynamoComponentDeployment):
            dcd_name = graph.name
        else:
            dcd_name = f"{graph.name}-{name.lower()}"
        plans[name] = ComponentPlan(
            name=name,
            type=spec.type,
            dcd_name=dcd_name,
            pulumi_name=f"{namespace}/{stable_name(dcd_name, worker_hash)}",
            dcd=dcd,
            worker_hash=worker_hash,
            scaling_adapter=spec.scaling_adapter is not None,
        )
    return plans


def plan_from_rendered(
    graph: GraphModel,
    objects: list[dict[str, Any]],
    components: list[dict[str, Any]],
    namespace: str,
    platform: Platform | None = None,
    owners: Any = None,
) -> GraphPlan:
    """Group rendered objects under their components and name them for Pulumi."""
    plans = _component_plans(graph, components, namespace)
    graph_objects: list[PlannedObject] = []
    dcd_names = {p.dcd_name for p in plans.values()}
    for index, original in enumerate(objects):
        if original.get("kind") == DCD_KIND and (original.get("metadata") or {}).get("name") in dcd_names:
            continue  # DCD documents are the ComponentResources themselves, not children.
        obj = _ensure_namespace(_copy_tree(original), namespace)
        owner = _owner_of(obj, index, owners, plans)
        worker_hash = plans[owner].worker_hash if owner else str(_labels(obj).get(KUBE_LABEL_DYNAMO_WORKER_HASH, ""))
        if is_namespace_shared(obj):
            # Unique per graph: two graphs in one program must not register the same URN.
            planned = PlannedObject(obj, f"{graph.name}:{pulumi_name(obj, '', namespace)}", shared=True)
        else:
            name = str((obj.get("metadata") or {}).get("name", ""))
            planned = PlannedObject(obj, pulumi_name(obj, worker_hash, namespace),
                                    generation_named=stable_name(name, worker_hash) != name)
        (plans[owner].objects if owner else graph_objects).append(planned)
    return GraphPlan(
        kind=graph.kind,
        name=graph.name,
        namespace=namespace,
        graph=graph,
        platform=platform or Platform(),
        components=list(plans.values()),
        graph_objects=graph_objects,
    )


def _refuse_outputs_read_by_rendering(
    graph: GraphModel, table: OutputTable, platform: Platform, ns: str, objects: Sequence[Mapping[str, Any]]
) -> None:
    from dynamo_pulumi.loading.documents import load_graph
    from dynamo_pulumi.render import render_graph

    def render(wire: dict[str, Any]) -> tuple[list[Any], str]:
        result = render_graph(load_graph(wire), platform=platform, namespace=ns, objects=objects)
        return [*result.objects, *result.components], result.worker_hash

    read = read_by_rendering(table, graph.to_wire(), render)
    if read:
        raise InputError(
            "the operator's rendering reads these values (hashes them into names, parses or compares "
            "them), not just copies them, and a pulumi.Output's value cannot be read at preview time; "
            "give plain values at: " + ", ".join(read)
        )


def plan_graph(
    spec: SpecSource,
    platform: Platform | Mapping[str, Any] | str | Path | None = None,
    namespace: str | None = None,
    name: str = "",
    placement: GpuPlacement | None = None,
    objects: Sequence[Mapping[str, Any]] = (),
    mode: str = DEFAULT_MODE,
    default_namespace: DefaultNamespace = "default",
) -> GraphPlan:
    """Load, judge (:mod:`dynamo_pulumi.verdict.deployability`) and render ``spec`` into a plan. Raises before
    anything is registered.

    ``objects``: other Kubernetes objects the program deploys beside the graph; with the other
    documents of ``spec``'s YAML file, rendering reads the DRA claim templates among them.
    ``default_namespace``: the namespace when neither ``namespace`` nor the graph's
    ``metadata.namespace`` names one (a component's: its Kubernetes provider's).

    In operator mode the rendered objects are the operator's predicted expansion; an Output the
    rendering reads is then no error (the operator reads the real value, only the prediction
    sees the placeholder)."""
    from dynamo_pulumi.verdict.deployability import check_deployable

    checked_mode = check_mode(mode)
    resolved = load_platform(platform)  # type: ignore[arg-type]
    table = OutputTable()
    side = side_documents(spec)
    beside = [*side, *objects]
    try:
        entry, table = load_spec_entry(spec, name)
        if placement is not None:
            entry = _placed(entry, placement, table)
        entry, directives = _without_directives(entry, table)
        graph: GraphModel = entry.object  # type: ignore[assignment]
        ns = namespace or graph.metadata.namespace or _default_namespace(default_namespace)
        target = namespace if namespace or graph.metadata.namespace else ns
        verdict = check_deployable(entry, resolved, target, mode=checked_mode, objects=beside)
        if table and checked_mode == "render":
            _refuse_outputs_read_by_rendering(graph, table, resolved, ns, beside)
    except GraphValidationError as exc:
        raise explain(exc, table) from None
    except DynamoPulumiError:
        raise
    except Exception as exc:  # rendering tripped over an Output where it needs a concrete value
        if not table:
            raise
        raise crashed(exc, table) from None
    result = verdict.rendered
    assert result is not None  # a deployable graph carries its rendering (operator mode: the prediction)
    warnings = [scrub(w, table) for w in verdict.warnings]  # no parked token in a message
    warnings += [companion_note(d) for d in side if is_companion(d)]  # beside the graph, not deployed by it
    plan = plan_from_rendered(
        graph, list(result.objects), list(result.components), ns, resolved, list(result.owners)
    )
    if table:
        refuse_output_names([plan.name, *(o.pulumi_name for o in plan.all_objects()),
                             *(c.pulumi_name for c in plan.components)], table)
    plan.outputs = table
    plan.mode = checked_mode
    plan.objects_beside = beside
    plan.warnings = warnings + apply_directives(plan, directives) + gpu_count_warnings(plan)
    return plan
