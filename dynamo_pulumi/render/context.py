"""What the pod assembly of one component needs to know besides the component itself.

The pipeline builds one :class:`ComponentRenderContext` per rendered pod template (one per
Deployment, one per LWS leader/worker template, one per Grove clique) and hands it to
:func:`dynamo_pulumi.render.pod.build_pod_template`. Everything pathway-specific (LWS vs Grove
multinode wiring, leader vs worker role) is a field here, so the assembly itself never hard-codes
a pathway.

Frozen: the same context always renders the same pod template.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.model.platform_file import default_platform
from dynamo_pulumi.render.backends.dra_claims import EMPTY_INVENTORY, DraInventory

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment
    from dynamo_pulumi.platform import Platform

Role = Literal["main", "leader", "worker"]
Pathway = Literal["component", "grove"]


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class ComponentRenderContext:
    """One component (after the DGD->DCD stage) about to have its pod template rendered."""

    #: The DCD as the operator would hold it (for a DGD component: the generated DCD).
    dcd: DynamoComponentDeployment
    #: ``metadata.name`` of the DCD (``<graph>-<component>`` for a DGD component).
    dcd_name: str
    #: Name of the parent DGD; "" for a standalone DCD.
    graph_name: str
    #: Kubernetes namespace the objects are created in.
    namespace: str
    #: The Dynamo namespace (``DYN_NAMESPACE``) the component registers under.
    dynamo_namespace: str
    platform: Platform = field(default_factory=default_platform)
    #: Resolved backend framework ("vllm" | "sglang" | "trtllm"), "" when none applies.
    backend_framework: str = ""
    #: ``main`` for single-node pods; ``leader``/``worker`` for the multinode templates.
    role: Role = "main"
    #: ``component`` (Deployment/LWS) or ``grove`` (PodCliqueSet cliques).
    pathway: Pathway = "component"
    #: The backends' ``MultinodeWiring`` for this pathway (LWS or Grove), None when single-node.
    multinode_wiring: Any = None
    #: Whether the graph has an EPP component (its worker-class pods then carry
    #: ``nvidia.com/dynamo-component-class=worker``, which the InferencePool selects).
    graph_has_epp: bool = False
    #: Resolved discovery backend: the pod-template annotation, else the platform's
    #: (``metadata.resolve_discovery``). "kubernetes" adds discovery labels and the discovery
    #: ServiceAccount; any value but "etcd" (even "") still sets ``DYN_DISCOVERY_BACKEND``.
    discovery_backend: str = "kubernetes"
    #: Resolved kube discovery mode ("pod" | "container"); "" reads the pod-template annotation.
    discovery_mode: str = ""
    #: The worker hash stamped on worker-class pods (label ``nvidia.com/dynamo-worker-hash``).
    worker_hash: str = ""
    #: Component pathway: the ServiceAccount a pod gets when nothing else chose one. The operator
    #: lists the namespace for one labelled ``nvidia.com/dynamo-component-pod=true`` and falls back
    #: to ``default``; offline that fact is given here ("" means ``default``).
    fallback_service_account: str = ""
    #: DRA objects known offline (claim templates, claims, DeviceClasses, stated GPU counts),
    #: for a main container whose GPUs come only from ResourceClaims.
    dra: DraInventory = EMPTY_INVENTORY

    @property
    def component_name(self) -> str:
        """The component's name (``spec.name`` or the DCD's metadata name)."""
        return self.dcd.component_name

    @property
    def spec(self) -> Any:
        """The DCD spec (the shared component fields plus ``backendFramework``)."""
        return self.dcd.spec

    @property
    def in_graph(self) -> bool:
        return self.graph_name != ""
