"""Pod specs for cliques: the shared pod assembly, then the Grove-only inter-pod GMS transforms.

Every clique's pod spec comes from the pod assembly (:func:`dynamo_pulumi.render.pod.build_pod_spec`)
with pathway ``grove``, the clique's role and the Grove multinode wiring, exactly as the operator
calls ``GenerateBasePodSpec`` for each role; intra-pod GMS and intra-pod failover are its last
steps on both pathways. Then, per role:

* GMS weight-server cliques: the single-node main pod turned into the rank's weight server;
* inter-pod GMS engine cliques: engine env and the shared host-path/claim resources.

Containers then get ``resources: {}`` where unset, as the operator's Go structs serialise.

The assembly is passed in as a callable so the Grove structure can be rendered and tested on its
own; :func:`default_pod_spec_builder` is the real one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor.records import record, replace
from dynamo_pulumi.model.twin import DCD_MODEL, internal
from dynamo_pulumi.render.backends.dra_claims import EMPTY_INVENTORY, DraInventory
from dynamo_pulumi.render.backends.multinode import MultinodeWiring, grove_wiring
from dynamo_pulumi.render.grove.gms import augment_engine_pod_spec, weight_server_pod_spec
from dynamo_pulumi.render.grove.roles import ServiceRole, is_inter_pod_failover
from dynamo_pulumi.render.pod.gms import gms_gpu_count

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoComponentDeploymentSharedSpec
    from dynamo_pulumi.platform import Platform


@record
class PodRequest:
    """What the pod assembly needs for one clique."""

    #: The component's generated DCD (wire form, graph defaults applied).
    dcd: dict[str, Any]
    #: ``main`` | ``leader`` | ``worker`` (GMS weight servers are rendered as ``main``).
    role: str
    #: Nodes the pod's launch is wired for (1 for GMS weight servers).
    number_of_nodes: int
    wiring: MultinodeWiring | None
    graph_name: str
    namespace: str
    dynamo_namespace: str
    platform: Platform
    backend_framework: str
    graph_has_epp: bool
    discovery_backend: str
    worker_hash: str
    dra: DraInventory = EMPTY_INVENTORY


#: Renders the pod spec (``template.spec``) for one request.
PodSpecBuilder = Callable[[PodRequest], dict[str, Any]]


def default_pod_spec_builder(request: PodRequest) -> dict[str, Any]:
    """The shared pod assembly with a Grove :class:`ComponentRenderContext`."""
    from dynamo_pulumi.render.context import ComponentRenderContext
    from dynamo_pulumi.render.pod import build_pod_spec

    ctx = ComponentRenderContext(
        dcd=dcd_model(request.dcd),
        dcd_name=request.dcd["metadata"]["name"],
        graph_name=request.graph_name,
        namespace=request.namespace,
        dynamo_namespace=request.dynamo_namespace,
        platform=request.platform,
        backend_framework=request.backend_framework,
        role=request.role,  # type: ignore[arg-type]
        pathway="grove",
        multinode_wiring=request.wiring,
        graph_has_epp=request.graph_has_epp,
        discovery_backend=request.discovery_backend,
        worker_hash=request.worker_hash,
        dra=request.dra,
    )
    return build_pod_spec(ctx)


def dcd_model(dcd: dict[str, Any]) -> DynamoComponentDeployment:
    """The generated DCD as a typed model (its twin when certain: it stays in the renderer).

    A component type outside the v1beta1 enum can only come from v1alpha1 conversion, which keeps
    the alpha ``componentType`` verbatim; it is carried over without re-checking the enum.
    """
    ctype = dcd["spec"].get("type")
    spec = {k: v for k, v in dcd["spec"].items() if k != "type"}
    model = internal(DCD_MODEL, {**dcd, "spec": spec})
    if ctype is None:
        return model
    return model.model_copy(update={"spec": model.spec.model_copy(update={"type": ctype})})


def _single_node_dcd(dcd: dict[str, Any]) -> dict[str, Any]:
    """The DCD as a one-node component (weight servers run the main pod on one node)."""
    spec = {k: v for k, v in dcd["spec"].items() if k != "multinode"}
    return {**dcd, "spec": spec}


def role_wiring(name: str, component: DynamoComponentDeploymentSharedSpec, role: ServiceRole) -> MultinodeWiring | None:
    """Grove wiring for multinode engine roles; rank-aware for the inter-pod GMS layout."""
    nodes = component.number_of_nodes
    if nodes <= 1 or role.is_gms:
        return None
    return grove_wiring(name, nodes, inter_pod_gms=component.is_inter_pod_gms, rank=role.rank)


def clique_pod_spec(
    build: PodSpecBuilder,
    base: PodRequest,
    component: DynamoComponentDeploymentSharedSpec,
    role: ServiceRole,
) -> dict[str, Any]:
    """The finished pod spec of one clique."""
    if role.is_gms:
        request = replace(base, dcd=_single_node_dcd(base.dcd), role="main", number_of_nodes=1, wiring=None)
        pod_spec = weight_server_pod_spec(build(request), role.rank, gms_gpu_count(component))
    else:
        request = replace(base, role=role.role, number_of_nodes=component.number_of_nodes,
                          wiring=role_wiring(component.name, component, role))
        pod_spec = build(request)
        if component.is_inter_pod_gms:
            augment_engine_pod_spec(pod_spec, role.rank, is_inter_pod_failover(component))
    return with_go_struct_fields(pod_spec)


def with_go_struct_fields(pod_spec: dict[str, Any]) -> dict[str, Any]:
    """Containers with ``resources: {}`` when unset, as Go serialises the non-pointer struct.

    The PCS embeds pod specs in a custom resource, so no API-server defaulting fills it in later;
    the stored object shows ``resources: {}`` on every container the operator wrote.
    """
    for key in ("initContainers", "containers"):
        for container in pod_spec.get(key) or []:
            container.setdefault("resources", {})
    return pod_spec
