"""The Grove pathway: one PodCliqueSet for the whole graph plus the DGD-owned objects around it.

``render_grove`` mirrors the DGD controller's Grove program for a graph created fresh (no
existing PCS, so nothing to preserve from a previous revision):

1. refuse what needs the cluster (LPX, checkpoint restores, GMS with DRA off);
2. per component, expand roles into cliques, build each clique's pod spec through the shared pod
   assembly (which ends with intra-pod GMS and failover, as on the component pathway; then the
   inter-pod GMS transforms), labels and annotations; add the scaling group, the
   per-rank claim templates of inter-pod GMS and the startup ordering;
3. compose provider overrides onto the finished PCS;
4. add the DGD-owned objects: component and model Services (Grove flavour), ingress for
   frontends, and the graph-level objects (RBAC, PVCs, GMS ResourceClaimTemplates, EPP,
   wait-for-leader ConfigMap, scaling adapters) from the shared builders.

The input graph is expected after defaulting (``dynamo_pulumi.defaulting.webhooks.default_graph``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.records import record, replace
from dynamo_pulumi.render.backends.dra_claims import EMPTY_INVENTORY, DraInventory
from dynamo_pulumi.render.grove.cliques import build_clique
from dynamo_pulumi.render.grove.facts import GraphFacts, graph_facts
from dynamo_pulumi.render.grove.gms import rank_claim_template_configs
from dynamo_pulumi.render.grove.kv_topology import cluster_topology_domains, with_cluster_topology_items
from dynamo_pulumi.render.grove.podcliqueset import pod_clique_set_shell
from dynamo_pulumi.render.grove.pods import (
    PodRequest,
    PodSpecBuilder,
    clique_pod_spec,
    default_pod_spec_builder,
)
from dynamo_pulumi.render.grove.provider_overrides import compose_overrides
from dynamo_pulumi.render.grove.roles import expand_roles, is_inter_pod_failover
from dynamo_pulumi.render.grove.scaling_groups import build_scaling_group
from dynamo_pulumi.render.grove.schedulers import check_scheduler_integrations, inject_schedulers
from dynamo_pulumi.render.grove.startup_order import (
    CLIQUE_STARTUP_TYPE_EXPLICIT,
    apply_startup_dependencies,
    startup_dependencies,
)
from dynamo_pulumi.render.grove.unsupported import checkpoint_gated, refuse_cluster_dependent
from dynamo_pulumi.render.pod.metadata import clique_annotations, clique_labels, grove_dynamo_namespace

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform

__all__ = ["PodSpecBuilder", "render_grove", "render_pod_clique_set"]


def render_grove(
    dgd: DynamoGraphDeployment,
    platform: Platform,
    namespace: str,
    *,
    worker_hash: str | None = None,
    pod_spec_builder: PodSpecBuilder | None = None,
    dra: DraInventory = EMPTY_INVENTORY,
) -> list[dict[str, Any]]:
    """Every object the operator creates for ``dgd`` on the Grove pathway, in a stable order.

    ``namespace`` is the resolved target namespace (the caller decides between an explicit value
    and ``metadata.namespace``). ``worker_hash`` defaults to the graph's computed worker hash: the
    hash suffix is always on for a freshly created Grove graph with worker components. The
    platform is read once, into the graph's facts, which the PCS and the objects around it share.
    """
    from dynamo_pulumi.render.grove.ancillary import ancillary_objects

    if worker_hash is None:
        from dynamo_pulumi.render.worker_hash import compute_worker_hash

        worker_hash = compute_worker_hash(dgd, namespace)
    facts = graph_facts(dgd, platform, namespace, worker_hash)
    pcs = _pod_clique_set(facts, pod_spec_builder or default_pod_spec_builder, dra)
    return [pcs, *ancillary_objects(facts)]


def render_pod_clique_set(
    dgd: DynamoGraphDeployment,
    platform: Platform,
    namespace: str,
    *,
    worker_hash: str = "",
    pod_spec_builder: PodSpecBuilder | None = None,
    dra: DraInventory = EMPTY_INVENTORY,
) -> dict[str, Any]:
    """``GenerateGrovePodCliqueSet`` followed by provider-override composition (the PCS alone)."""
    facts = graph_facts(dgd, platform, namespace, worker_hash)
    return _pod_clique_set(facts, pod_spec_builder or default_pod_spec_builder, dra)


def _pod_clique_set(facts: GraphFacts, build: PodSpecBuilder, dra: DraInventory) -> dict[str, Any]:
    from dynamo_pulumi.render.backend_framework import component_backend_framework, graph_backend_framework

    dgd, settings, namespace = facts.dgd, facts.settings, facts.namespace
    refuse_cluster_dependent(dgd, settings)
    check_scheduler_integrations(settings)
    pcs = pod_clique_set_shell(dgd, settings, namespace)
    template = pcs["spec"]["template"]
    dcds = facts.dcds
    domains = cluster_topology_domains(dgd, settings)
    if domains is not None:
        dcds = with_cluster_topology_items(dgd, dcds, domains)
    graph_backend = graph_backend_framework(dgd)
    groups: list[dict[str, Any]] = []
    claim_templates: list[dict[str, Any]] = []
    explicit = False
    for index, (component, dcd) in enumerate(zip(dgd.components, dcds, strict=True)):
        backend = component_backend_framework(dcd["spec"], graph_backend)
        base = replace(_pod_request(facts, component, dcd, backend), dra=dra)
        units = _component_units(facts, component, base, build, index)
        template["cliques"].extend(units.cliques)
        explicit = units.ordered or explicit
        claim_templates += units.claim_templates
        if units.scaling_group is not None:
            groups.append(units.scaling_group)
    if explicit:
        template["cliqueStartupType"] = CLIQUE_STARTUP_TYPE_EXPLICIT
    if groups:
        template["podCliqueScalingGroups"] = groups
    if claim_templates:
        template["resourceClaimTemplates"] = claim_templates
    return compose_overrides(dgd, pcs)


@record
class ComponentUnits:
    """What one component contributes to the PCS template."""

    cliques: list[dict[str, Any]]
    scaling_group: dict[str, Any] | None
    claim_templates: list[dict[str, Any]]
    #: Whether any of its cliques got ``startsAfter`` (flips the PCS to explicit startup).
    ordered: bool


def _component_units(
    facts: GraphFacts,
    component: DynamoComponentDeploymentSharedSpec,
    base: PodRequest,
    build: PodSpecBuilder,
    index: int,
) -> ComponentUnits:
    """Cliques (in role order), startup ordering, scaling group and per-rank claim templates."""
    dgd = facts.dgd
    roles = expand_roles(component.name, component)
    gated = checkpoint_gated(component, facts.settings)
    failover = is_inter_pod_failover(component)
    cliques = [
        build_clique(
            component,
            role,
            clique_pod_spec(build, base, component, role),
            clique_labels(facts, component, role, inter_pod_failover=failover),
            clique_annotations(facts, component, role),
            dgd.spec.topology_constraint,
            gated=gated,
        )
        for role in roles
    ]
    for clique in cliques:
        inject_schedulers(clique, facts.settings, dgd.annotations)
    deps = startup_dependencies(roles, base.backend_framework, component.number_of_nodes, component.is_inter_pod_gms)
    ordered = apply_startup_dependencies(cliques, deps)
    claim_templates: list[dict[str, Any]] = []
    if component.is_inter_pod_gms:
        try:
            claim_templates = rank_claim_template_configs(component.name, component, roles)
        except RenderError as err:
            raise RenderError(str(err), f"spec.components[{index}].podTemplate.spec.containers[main]") from None
    group = None
    if component.uses_pcsg:
        group = build_scaling_group(component.name, component, roles, dgd.spec.topology_constraint, gated=gated)
    return ComponentUnits(cliques, group, claim_templates, ordered)


def _pod_request(
    facts: GraphFacts,
    component: DynamoComponentDeploymentSharedSpec,
    dcd: dict[str, Any],
    backend: str,
) -> PodRequest:
    return PodRequest(
        dcd=dcd,
        role="main",
        number_of_nodes=component.number_of_nodes,
        wiring=None,
        graph_name=facts.dgd.name,
        namespace=facts.namespace,
        dynamo_namespace=grove_dynamo_namespace(facts.dgd, facts.namespace, component),
        platform=facts.platform,
        backend_framework=backend,
        graph_has_epp=facts.has_epp,
        discovery_backend=facts.discovery_backend,
        worker_hash=facts.worker_hash,
    )
