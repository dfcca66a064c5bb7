"""The renderer: a DGD or DCD in, the Kubernetes objects the Dynamo operator would create out.

``render_graph`` is pure and deterministic: no clock, environment, network or randomness, and the
same input gives byte-identical output. Leaves the operator never reads (images, env values, node
selectors, secret names, ...) are passed through as the same objects, so ``pulumi.Output`` values
may sit there.

Pipeline (component pathway, rendering-core section 0):

1. defaulting, as the mutating webhooks would store the object (origin version, replicas, ...);
2. DGD only: the workload provider; Grove graphs go to :mod:`dynamo_pulumi.render.grove`;
3. DGD only: the worker hash, then one DCD per component (:mod:`.graph`);
4. per DCD: the DCD controller's objects (Deployment or LeaderWorkerSet, Services, Ingress, ...);
5. DGD only: the DGD controller's shared objects (RBAC, PVCs, GMS ResourceClaimTemplates, EPP
   objects, ConfigMaps, adapters); the Grove pathway shares these builders.

What we leave out on purpose: the operator's sync bookkeeping annotations
(``nvidia.com/last-applied-hash``/``-generation``) and owner references (the Pulumi layer parents
resources itself, and UIDs do not exist before creation); the MPI SSH key Secret the operator
generates for multinode TRT-LLM graphs (random key material cannot be rendered deterministically;
the Secret named by ``mpi.sshSecretName`` must exist); and deletions of stale objects (a
declarative deployment removes what it no longer renders).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.kinds import COMPONENT_TYPES
from dynamo_pulumi.api.v1beta1_helpers import GraphHelpers
from dynamo_pulumi.defaulting import webhooks as defaulting
from dynamo_pulumi.defaulting.pathway import Pathway, choose_pathway
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.kube_names import check_namespace
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.model.platform_file import default_platform
from dynamo_pulumi.model.twin import DCD_MODEL, internal, is_validation_error
from dynamo_pulumi.render.backends.dra_claims import EMPTY_INVENTORY, DraInventory
from dynamo_pulumi.render.component_pods import component_render_context, pod_template_renderer
from dynamo_pulumi.render.dcd_identity import component_name_of, owner_graph_name
from dynamo_pulumi.render.graph import generate_component_deployments
from dynamo_pulumi.render.name_checks import NameSources, check_rendered_names
from dynamo_pulumi.render.objects.common import without_empty_env_values
from dynamo_pulumi.render.objects.context import ComponentContext, GraphContext
from dynamo_pulumi.render.objects.registry import COMPONENT_BUILDERS, GRAPH_BUILDERS
from dynamo_pulumi.render.worker_hash import compute_worker_hash

if TYPE_CHECKING:
    from pydantic import ValidationError

    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform

    Graph = DynamoGraphDeployment | DynamoComponentDeployment

DEFAULT_NAMESPACE = "default"


@record
class RenderResult:
    """What a graph renders to.

    ``objects`` are the objects created in the cluster, in a stable order: graph-level objects
    first, then each component's objects in component order. ``owners[i]`` names the component
    (DGD ``spec.components[].name``, or the DCD's component name) that owns ``objects[i]``, or is
    ``None`` for graph-level objects. ``components`` are the DCD documents of a DGD's expansion
    (empty for a standalone DCD, which is itself the component).
    """

    objects: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    owners: list[str | None] = field(default_factory=list)
    pathway: str = "component"
    worker_hash: str = ""

    def graph_objects(self) -> list[dict[str, Any]]:
        """Objects the graph owns directly (RBAC, EPP objects, shared ConfigMaps, adapters)."""
        return [o for o, owner in zip(self.objects, self.owners, strict=True) if owner is None]

    def objects_by_component(self) -> dict[str, list[dict[str, Any]]]:
        """Each component's own objects, keyed by component name, in component order."""
        grouped: dict[str, list[dict[str, Any]]] = {}
        for obj, owner in zip(self.objects, self.owners, strict=True):
            if owner is not None:
                grouped.setdefault(owner, []).append(obj)
        return grouped

    def component_document(self, component: str) -> dict[str, Any] | None:
        """The DCD document generated for a component (None for a standalone DCD)."""
        return next((d for d in self.components if component_name_of(d) == component), None)


# --- per component --------------------------------------------------------------------------------


def _component_objects(
    dcd: dict[str, Any],
    namespace: str,
    platform: Platform,
    graph_name: str,
    graph_has_epp: bool,
    worker_hash: str,
    generated: bool = True,
    dra: DraInventory = EMPTY_INVENTORY,
) -> list[dict[str, Any]]:
    model = _component_model(dcd, generated)
    ctx = ComponentContext(
        dcd=dcd,
        model=model,
        namespace=namespace,
        platform=platform,
        pod_template=pod_template_renderer(
            component_render_context(dcd, model, namespace, platform, graph_name, graph_has_epp, dra)
        ),
        graph_name=graph_name,
        worker_hash=worker_hash,
        backend_framework=dcd["spec"].get("backendFramework") or "",
    )
    objects: list[dict[str, Any]] = []
    try:
        for builder in COMPONENT_BUILDERS:
            objects += builder.build(ctx)
    except RenderError as exc:
        raise _at_component(exc, dcd) if generated else exc from None
    return objects


def _at_component(exc: RenderError, dcd: dict[str, Any]) -> RenderError:
    """A refusal at a field of a DGD's generated DCD (``spec.sharedMemorySize``), at the
    component that field came from (``spec.components[decode].sharedMemorySize``: the verdict
    puts the index the user wrote), so the error lands on the user's line."""
    if not exc.path.startswith("spec.") or exc.path.startswith("spec.components["):
        return exc
    message = str(exc).removeprefix(f"{exc.path}: ")
    return RenderError(message, f"spec.components[{component_name_of(dcd)}].{exc.path.removeprefix('spec.')}")


def _component_model(dcd: dict[str, Any], generated: bool) -> DynamoComponentDeployment:
    """The DCD document as a model, for the builders (its twin when certain: it never leaves the
    renderer, :func:`dynamo_pulumi.model.twin.internal`).

    A v1alpha1 ``componentType`` outside the v1beta1 enum (``main``) survives conversion as
    written. A standalone DCD is stored that way and its controller renders it with the default
    component's behaviour, so the type is kept as is. A DGD's controller instead *creates* its DCDs
    as v1beta1 objects, and the API server refuses such a ``spec.type`` against the CRD enum.
    """
    ctype = dcd["spec"].get("type")
    unlisted = ctype is not None and ctype not in COMPONENT_TYPES
    if unlisted and generated:
        name = dcd["metadata"]["name"]
        supported = ", ".join(json.dumps(t) for t in sorted(COMPONENT_TYPES))
        raise RenderError(
            f'the operator would create DynamoComponentDeployment "{name}" with '
            f'spec.type: Unsupported value: "{ctype}": supported values: {supported}. The v1alpha1 '
            f'componentType "{ctype}" of component "{component_name_of(dcd)}" is copied unchanged by '
            "conversion, and the API server refuses it in the v1beta1 DCD the DGD controller creates; "
            "use a v1beta1 type (e.g. componentType: worker with subComponentType: prefill or decode) "
            "or the Grove pathway, which creates no DCDs",
            name,
        )
    document = {**dcd, "spec": {k: v for k, v in dcd["spec"].items() if k != "type"}} if unlisted else dcd
    try:
        model = internal(DCD_MODEL, document)
    except Exception as exc:
        if not is_validation_error(exc):
            raise
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise RenderError(f"generated DynamoComponentDeployment is not valid: {problems}", dcd["metadata"]["name"]) from None
    if unlisted:
        model.spec.type = ctype
    return model


def _dedupe(objects: list[dict[str, Any]], owners: list[str | None]) -> tuple[list[Any], list[Any]]:
    """Keep the first of objects that share kind and name (one model Service per model)."""
    seen: set[tuple[str, str, str]] = set()
    kept, kept_owners = [], []
    for obj, owner in zip(objects, owners, strict=True):
        key = (obj["apiVersion"], obj["kind"], obj["metadata"]["name"])
        if key in seen:
            continue
        seen.add(key)
        kept.append(obj)
        kept_owners.append(owner)
    return kept, kept_owners


def _namespace(graph: Graph, namespace: str | None) -> str:
    return namespace or graph.metadata.namespace or DEFAULT_NAMESPACE


# --- entry points ---------------------------------------------------------------------------------


def _default(graph: Graph, platform: Platform) -> Graph:
    """The object as the mutating webhooks would store it on CREATE."""
    if isinstance(graph, GraphHelpers):
        return defaulting.default_graph(graph, platform)
    return defaulting.default_component_deployment(graph)


def render_component_deployment(
    dcd: DynamoComponentDeployment, platform: Platform, namespace: str, dra: DraInventory = EMPTY_INVENTORY
) -> RenderResult:
    """A standalone DCD: only the objects its own controller creates."""
    document = dcd.to_wire()
    document.setdefault("metadata", {})["namespace"] = namespace
    graph_name = owner_graph_name(document)  # GetParentGraphDeploymentName: the DGD owner, if any
    objects = _component_objects(document, namespace, platform, graph_name, False, "", generated=False, dra=dra)
    owner = component_name_of(document)
    return RenderResult(objects=objects, components=[], owners=[owner] * len(objects))


def _render_grove(
    graph: DynamoGraphDeployment, platform: Platform, namespace: str, dra: DraInventory
) -> RenderResult:
    """The Grove pathway: one PodCliqueSet plus DGD-owned objects; every object is graph-level."""
    from dynamo_pulumi.render.grove import render_grove

    worker_hash = compute_worker_hash(graph, namespace)
    objects = render_grove(graph, platform, namespace, worker_hash=worker_hash, dra=dra)
    return RenderResult(
        objects=objects, owners=[None] * len(objects), pathway="grove", worker_hash=worker_hash
    )


def _check_component_names(graph: DynamoGraphDeployment) -> None:
    """A component named ``""`` (an empty v1alpha1 service key, which the alpha schema admits)
    has no object names to render: refused here, not half-way through a workload builder."""
    for i, component in enumerate(graph.components):
        if not component.name:
            raise RenderError("a component with an empty name has no object names to render",
                              f"spec.components[{i}].name")


def _refuse_component_groups(graph: DynamoGraphDeployment) -> None:
    """``spec.experimental.componentGroups`` (newest types): no operator code we follow renders
    them, so they are refused rather than silently left out of every object."""
    experimental = graph.spec.experimental
    if experimental is not None and experimental.component_groups:
        from dynamo_pulumi.model.deploy_mode import COMPONENT_GROUPS_NOT_RENDERED

        raise RenderError(COMPONENT_GROUPS_NOT_RENDERED, "spec.experimental.componentGroups")


def render_graph_deployment(
    graph: DynamoGraphDeployment, platform: Platform, namespace: str, dra: DraInventory = EMPTY_INVENTORY
) -> RenderResult:
    """A DGD on the component pathway: DCDs, their objects, then the graph's shared objects."""
    _check_component_names(graph)
    _refuse_component_groups(graph)
    if choose_pathway(graph, platform) is Pathway.GROVE:
        return _render_grove(graph, platform, namespace, dra)
    worker_hash = compute_worker_hash(graph, namespace)
    dcds = generate_component_deployments(graph, namespace, worker_hash)
    gctx = GraphContext(graph=graph, namespace=namespace, platform=platform, components=dcds)
    objects: list[dict[str, Any]] = []
    owners: list[str | None] = []
    for builder in GRAPH_BUILDERS:
        built = builder.build(gctx)
        objects += built
        owners += [None] * len(built)
    has_epp = gctx.epp_component is not None
    for dcd in dcds:
        built = _component_objects(dcd, namespace, platform, graph.name, has_epp, worker_hash, dra=dra)
        objects += built
        owners += [component_name_of(dcd)] * len(built)
    objects, owners = _dedupe(objects, owners)
    return RenderResult(objects=objects, components=dcds, owners=owners, worker_hash=worker_hash)


def render_graph(
    graph: Graph,
    platform: Platform | None = None,
    namespace: str | None = None,
    *,
    objects: Iterable[Mapping[str, Any]] = (),
    stored: bool = False,
) -> RenderResult:
    """Render a DGD or a standalone DCD as the operator would, after its defaulting webhook
    (``stored``: the graph is already as create admission stored it, defaulted).

    ``namespace`` defaults to the object's ``metadata.namespace``, else ``default``. The input is
    not modified. Rendering problems the operator would report (conflicting backends, an LWS pod
    without a command, ...) and names or labels the API server would refuse raise
    :class:`~dynamo_pulumi.errors.RenderError`; a namespace that is no DNS-1123 label raises
    :class:`~dynamo_pulumi.errors.InputError`.

    ``objects`` are other Kubernetes objects deployed beside the graph (the other documents of
    its YAML file, or the Pulumi program's). Rendering reads the ResourceClaimTemplates,
    ResourceClaims and DeviceClasses among them where the operator would read the live ones:
    to count the GPUs of a main container that asks for GPUs only through DRA claims.
    """
    platform = platform or default_platform()
    ns = check_namespace(_namespace(graph, namespace)) or DEFAULT_NAMESPACE
    dra = DraInventory.of(objects, ns, platform.cluster.resource_claim_gpus)
    defaulted = graph if stored else _default(graph, platform)
    try:
        if isinstance(defaulted, GraphHelpers):
            result = render_graph_deployment(defaulted, platform, ns, dra)  # type: ignore[arg-type]
        else:
            result = render_component_deployment(defaulted, platform, ns, dra)  # type: ignore[arg-type]
    except Exception as exc:
        if not is_validation_error(exc):
            raise
        raise _beyond_beta_schema(exc) from None  # type: ignore[arg-type]
    check_rendered_names([*result.components, *result.objects], _name_sources(defaulted))
    without_empty_env_values([result.components, result.objects])
    return result


def _beyond_beta_schema(exc: ValidationError) -> RenderError:
    """A v1alpha1 value the alpha schema admits beyond v1beta1's bounds (``failover.numShadows: 2``)
    reaches the webhook as written, but the renderer builds v1beta1 objects and cannot hold it."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return RenderError(f"{where}: {first['msg']}: the value is beyond the v1beta1 schema, which rendering builds on")


def _name_sources(graph: Graph) -> NameSources:
    """The graph fields rendered names are built from, for the hints of the name check."""
    if isinstance(graph, GraphHelpers):
        components = [(c.name, f"spec.components[{i}].name") for i, c in enumerate(graph.components)]
        return NameSources.of("DynamoGraphDeployment", graph.name, components, graph.to_wire())
    return NameSources.of("DynamoComponentDeployment", graph.name, [(graph.spec.name or "", "spec.name")], graph.to_wire())


__all__ = ["RenderResult", "render_graph"]
