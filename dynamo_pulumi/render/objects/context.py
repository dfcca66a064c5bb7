"""What the object builders read: one context per DCD, one per graph.

The pipeline (:mod:`dynamo_pulumi.render`) builds these once; every builder in
:mod:`dynamo_pulumi.render.objects.registry` has the same signature, ``build(ctx) -> list[dict]``,
with ``ctx`` a :class:`ComponentContext` (objects the DCD controller owns) or a
:class:`GraphContext` (objects the DGD controller owns).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_EPP,
    COMPONENT_TYPE_FRONTEND,
    DISCOVERY_BACKEND_KUBERNETES,
)
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.render import dcd_identity
from dynamo_pulumi.render.pod import metadata as pod_metadata

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform

#: Renders the pod template of a DCD for a role ("main", "leader", "worker").
PodTemplateRenderer = Callable[[str], dict[str, Any]]


def discovery_backend(platform: Platform, annotations: dict[str, Any] | None) -> str:
    """``GetDiscoveryBackend``: an annotation overrides the operator configuration."""
    return str(pod_metadata.resolve_discovery(platform, annotations or {})[0])


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class ComponentContext:
    """One DCD about to have its objects built (Deployment/LWS, Services, Ingress, ...)."""

    #: The DCD wire document (pod template leaves untouched).
    dcd: dict[str, Any]
    #: The same DCD as a typed model (for the derived helpers).
    model: DynamoComponentDeployment
    namespace: str
    platform: Platform
    #: Renders the pod template for a role; provided by the pipeline.
    pod_template: PodTemplateRenderer
    #: Parent graph name; "" for a standalone DCD.
    graph_name: str = ""
    worker_hash: str = ""
    backend_framework: str = ""

    @property
    def name(self) -> str:
        return self.dcd["metadata"]["name"]

    @property
    def spec(self) -> dict[str, Any]:
        return self.dcd["spec"]

    @property
    def component_name(self) -> str:
        return dcd_identity.component_name_of(self.dcd)

    @property
    def component_type(self) -> str:
        return self.spec.get("type") or ""

    @property
    def workload_type(self) -> str:
        """The component-type label value of its pods (``worker`` for a legacy selector)."""
        return dcd_identity.workload_component_type(self.model)

    @property
    def dynamo_namespace(self) -> str:
        return dcd_identity.dcd_dynamo_namespace(self.model, self.computed_dynamo_namespace)

    @property
    def computed_dynamo_namespace(self) -> str:
        """The namespace computed from the parent graph (or the DCD's name), ignoring overrides."""
        return dcd_identity.computed_dynamo_namespace(self.model, self.namespace)

    @cached_property
    def _kube_labels(self) -> dict[str, Any]:
        return pod_metadata.dcd_kube_labels(self.model, self.computed_dynamo_namespace)

    @cached_property
    def _kube_annotations(self) -> dict[str, Any]:
        return pod_metadata.dcd_kube_annotations(self.model)

    @property
    def resource_annotations(self) -> dict[str, Any]:
        """``getResourceAnnotations``: where the Deployment strategy is read."""
        return pod_metadata.resource_annotations(self.model)

    @property
    def kube_labels(self) -> dict[str, Any]:
        """``GetDCDKubeLabels`` (a fresh dict each time: builders add to it; computed once per
        context, as every builder of the DCD asks for it)."""
        return dict(self._kube_labels)

    @property
    def kube_annotations(self) -> dict[str, Any]:
        """``GetDCDKubeAnnotations`` (a fresh dict each time, computed once per context)."""
        return dict(self._kube_annotations)

    @cached_property
    def discovery_backend(self) -> str:
        return discovery_backend(self.platform, self._kube_annotations)

    @property
    def k8s_discovery(self) -> bool:
        return self.discovery_backend == DISCOVERY_BACKEND_KUBERNETES

    @property
    def is_frontend(self) -> bool:
        return self.component_type == COMPONENT_TYPE_FRONTEND

    @property
    def is_multinode(self) -> bool:
        return self.model.spec.is_multinode

    @property
    def uses_lws(self) -> bool:
        """LeaderWorkerSet when multinode and the LWS gate is on; else a Deployment (ERRATA 1.11)."""
        return self.is_multinode and self.platform.lws_enabled


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class GraphContext:
    """A graph about to have its DGD-owned objects built (RBAC, EPP objects, adapters, ...)."""

    graph: DynamoGraphDeployment
    namespace: str
    platform: Platform
    #: The DCDs generated for the graph, in component order.
    components: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.graph.name

    @property
    def discovery_backend(self) -> str:
        return discovery_backend(self.platform, self.graph.annotations)

    @property
    def k8s_discovery(self) -> bool:
        return self.discovery_backend == DISCOVERY_BACKEND_KUBERNETES

    @property
    def epp_component(self) -> Any:
        """``GetEPPComponent``: the first component of type epp, or None."""
        return next((c for c in self.graph.components if c.type == COMPONENT_TYPE_EPP), None)
