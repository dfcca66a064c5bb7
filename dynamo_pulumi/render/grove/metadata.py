"""Clique labels and annotations (rendering-grove section 2.7, ``generateLabels`` /
``generateAnnotations`` plus the per-role adjustments of ``buildCliqueForRole``).

Labels, later wins: base-model hash, metrics, ``dgd.spec.labels``, labels a v1alpha1 service kept
through conversion, the component pod-template
labels (which carry the Dynamo namespace and, for workers, the worker hash), then the system
labels re-asserted so users cannot override them, then discovery labels under Kubernetes
discovery. GMS weight-server cliques drop the discovery labels (they never register with
Dynamo); inter-pod failover engine cliques gain the engine-group label.

Annotations: ``dgd.spec.annotations`` and preserved alpha annotations under the pod-template
annotations, where the template has
the propagated DGD metadata annotations (only when the component does not set them) and the
resolved discovery backend; topology-source keys are removed and re-added from the graph's
``kvTransferPolicy`` for worker types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynamo_pulumi.api.conversion import preserved_alpha_spec
from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
from dynamo_pulumi.constants import (
    COMPONENT_CLASS_WORKER,
    COMPONENT_TYPE_DECODE,
    COMPONENT_TYPE_EPP,
    COMPONENT_TYPE_PREFILL,
    DISCOVERY_BACKEND_KUBERNETES,
    GRAPH_PROPAGATED_ANNOTATIONS,
    KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND,
    KUBE_ANNOTATION_ENABLE_METRICS,
    KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME,
    KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY,
    KUBE_LABEL_DYNAMO_BASE_MODEL_HASH,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
    KUBE_LABEL_DYNAMO_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND,
    KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED,
    KUBE_LABEL_DYNAMO_FAILOVER_ENGINE_GROUP_MEMBER,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_DYNAMO_SELECTOR,
    KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_WORKER_HASH,
    KUBE_LABEL_METRICS_ENABLED,
    KUBE_LABEL_VALUE_FALSE,
    KUBE_LABEL_VALUE_TRUE,
    KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS,
    RESTART_ANNOTATION,
)
from dynamo_pulumi.naming import dcd_name, dynamo_namespace, is_worker_type, model_name_hash
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove.roles import ServiceRole
from dynamo_pulumi.render.objects.common import merge_low_priority


@dataclass(frozen=True)
class AlphaComponentData:
    """What a v1alpha1 service kept through conversion that labels and annotations read."""

    labels: dict[str, Any]
    annotations: dict[str, Any]
    sub_component_type: str


NO_ALPHA_DATA = AlphaComponentData({}, {}, "")


@dataclass(frozen=True)
class GraphFacts:
    """Graph-wide values every clique of every component reads."""

    dgd: DynamoGraphDeployment
    namespace: str
    discovery_backend: str
    worker_hash: str
    has_epp: bool
    alpha: dict[str, AlphaComponentData]

    def alpha_data(self, component_name: str) -> AlphaComponentData:
        return self.alpha.get(component_name, NO_ALPHA_DATA)

    @classmethod
    def of(cls, dgd: DynamoGraphDeployment, platform: Platform, namespace: str, worker_hash: str) -> GraphFacts:
        return cls(
            dgd=dgd,
            namespace=namespace,
            discovery_backend=resolve_discovery_backend(dgd, platform),
            worker_hash=worker_hash,
            has_epp=any(c.type == COMPONENT_TYPE_EPP for c in dgd.components),
            alpha=alpha_components(dgd),
        )


def resolve_discovery_backend(dgd: DynamoGraphDeployment, platform: Platform) -> str:
    """``GetDiscoveryBackend``: the DGD annotation when present (even empty), else the platform's."""
    annotations = dgd.annotations
    if KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND in annotations:
        return annotations[KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND]
    return platform.discovery.backend


def component_dynamo_namespace(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> str:
    return dynamo_namespace(facts.namespace, facts.dgd.name, bool(component.global_dynamo_namespace))


def alpha_components(dgd: DynamoGraphDeployment) -> dict[str, AlphaComponentData]:
    """Component name -> preserved alpha labels, annotations and non-promoting sub-type."""
    preserved = preserved_alpha_spec(dgd)
    services = getattr(preserved, "services", None) or {}
    return {
        name: AlphaComponentData(
            dict(service.labels or {}), dict(service.annotations or {}), service.sub_component_type or ""
        )
        for name, service in services.items()
        if service is not None
    }


def sub_component_type(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> str:
    """The alpha view's sub-type: prefill/decode map to worker + sub-type (ERRATA 2.10), others
    keep what conversion preserved."""
    if component.type in (COMPONENT_TYPE_PREFILL, COMPONENT_TYPE_DECODE):
        return component.type
    return facts.alpha_data(component.name).sub_component_type


def _template_meta(component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any]:
    template = component.pod_template or {}
    return dict(template.get("metadata") or {})


def template_labels(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any]:
    """The component pod-template labels as the Grove renderer holds them."""
    labels = dict(_template_meta(component).get("labels") or {})
    labels = merge_low_priority(labels, facts.dgd.spec.labels)
    labels[KUBE_LABEL_DYNAMO_NAMESPACE] = component_dynamo_namespace(facts, component)
    if facts.worker_hash and is_worker_type(component.type):
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = facts.worker_hash
    return labels


def template_annotations(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any]:
    """The component pod-template annotations after DGD propagation and discovery resolution."""
    annotations = dict(_template_meta(component).get("annotations") or {})
    dgd_annotations = facts.dgd.annotations
    for key in GRAPH_PROPAGATED_ANNOTATIONS:
        if key in dgd_annotations and key not in annotations:
            annotations[key] = dgd_annotations[key]
    if facts.discovery_backend:
        annotations[KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND] = facts.discovery_backend
    return annotations


def _system_labels(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any]:
    dgd = facts.dgd
    labels: dict[str, Any] = {
        KUBE_LABEL_DYNAMO_SELECTOR: dcd_name(dgd.name, component.name),
        KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME: dgd.name,
        KUBE_LABEL_DYNAMO_COMPONENT: component.name,
    }
    if component.type:
        labels[KUBE_LABEL_DYNAMO_COMPONENT_TYPE] = component.type
    if facts.has_epp and is_worker_type(component.type):
        labels[KUBE_LABEL_DYNAMO_COMPONENT_CLASS] = COMPONENT_CLASS_WORKER
    sub_type = sub_component_type(facts, component)
    if sub_type:
        labels[KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE] = sub_type
    labels[KUBE_LABEL_DYNAMO_NAMESPACE] = component_dynamo_namespace(facts, component)
    return labels


def clique_labels(
    facts: GraphFacts,
    component: DynamoComponentDeploymentSharedSpec,
    role: ServiceRole,
    *,
    inter_pod_failover: bool,
) -> dict[str, Any]:
    """``generateLabels`` plus the GMS/failover adjustments for one clique."""
    system = _system_labels(facts, component)
    labels: dict[str, Any] = dict(system)
    if component.model_ref is not None and component.model_ref.name:
        labels[KUBE_LABEL_DYNAMO_BASE_MODEL_HASH] = model_name_hash(component.model_ref.name)
    if facts.dgd.annotations.get(KUBE_ANNOTATION_ENABLE_METRICS) != KUBE_LABEL_VALUE_FALSE:
        labels[KUBE_LABEL_METRICS_ENABLED] = KUBE_LABEL_VALUE_TRUE
    labels.update(facts.dgd.spec.labels or {})
    labels.update(facts.alpha_data(component.name).labels)
    pod_labels = template_labels(facts, component)
    labels.update(pod_labels)
    labels.update(system)
    if pod_labels.get(KUBE_LABEL_DYNAMO_WORKER_HASH):
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = pod_labels[KUBE_LABEL_DYNAMO_WORKER_HASH]
    if facts.discovery_backend == DISCOVERY_BACKEND_KUBERNETES and not role.is_gms:
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND] = DISCOVERY_BACKEND_KUBERNETES
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED] = KUBE_LABEL_VALUE_TRUE
    if role.is_gms:
        labels.pop(KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND, None)
        labels.pop(KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED, None)
    elif inter_pod_failover:
        labels[KUBE_LABEL_DYNAMO_FAILOVER_ENGINE_GROUP_MEMBER] = KUBE_LABEL_VALUE_TRUE
    return labels


def clique_annotations(
    facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec, role: ServiceRole
) -> dict[str, Any]:
    """``generateAnnotations`` minus topology-source keys, plus kv-policy and restart keys."""
    annotations: dict[str, Any] = dict(facts.dgd.spec.annotations or {})
    annotations.update(facts.alpha_data(component.name).annotations)
    annotations.update(template_annotations(facts, component))
    for key in KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS:
        annotations.pop(key, None)
    policy = kv_transfer_policy(facts, component)
    if policy is not None and not role.is_gms:
        if policy.get("labelKey"):
            annotations[KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY] = policy["labelKey"]
        if policy.get("clusterTopologyName"):
            annotations[KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME] = policy["clusterTopologyName"]
    restart = facts.dgd.spec.restart
    if restart is not None:
        annotations[RESTART_ANNOTATION] = restart.id
    return annotations


def kv_transfer_policy(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any] | None:
    """The graph's kvTransferPolicy (wire form) when it applies to this worker-type component."""
    experimental = facts.dgd.spec.experimental
    if experimental is None or experimental.kv_transfer_policy is None or not is_worker_type(component.type):
        return None
    return experimental.kv_transfer_policy.to_wire()
