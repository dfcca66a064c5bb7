"""The labels and annotations of a component's pods and workloads, for both pathways.

The operator answers this once per pathway with the same building blocks: the DCD controller's
``GetDCDKubeLabels`` / ``GetDCDKubeAnnotations`` / ``generatePodTemplateSpec`` (Deployment, LWS,
their pod templates and Services), and the Grove renderer's ``generateLabels`` /
``generateAnnotations`` (cliques) and ``GetDGDComponentResourceLabels`` (Grove Services). Each
rule they share is written here once:

* **user layers, later wins** (:func:`user_layers`): the lowest layer (the DCD's own metadata
  labels on the component pathway; ``dgd.spec.labels`` / ``spec.annotations`` on Grove), then
  what a v1alpha1 component kept through conversion (its ``labels`` / ``annotations``), then the
  component's raw pod-template metadata. On the component pathway the DGD stage has already
  merged ``spec.labels`` into the pod template at low priority; on Grove it has not (the
  operator merges them only into a copy used for the pod spec), so there a v1alpha1 service's
  label beats ``spec.labels`` on both the clique and the Service;
* **the alpha view** (:class:`AlphaComponentData`): read from the DCD's ``nvidia.com/dcd-spec``
  annotation, or from the DGD's preserved v1alpha1 services; prefill/decode carry
  ``nvidia.com/dynamo-sub-component-type`` (:func:`~dynamo_pulumi.render.dcd_identity.sub_component_type`);
* **system labels** re-asserted after the user layers (component, type, class, namespace), the
  base-model hash, metrics, and the discovery labels under Kubernetes discovery.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.preservation import preserved_alpha_spec
from dynamo_pulumi.floor.constants import (
    COMPONENT_CLASS_WORKER,
    COMPONENT_TYPE_WORKER,
    DCD_WORKLOAD_ROLE_LABEL,
    DISCOVERY_BACKEND_KUBERNETES,
    GRAPH_PROPAGATED_ANNOTATIONS,
    KUBE_ANNOTATION_DYNAMO_BASE_MODEL,
    KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND,
    KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
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
    ROLE_MAIN,
    WORKER_COMPONENT_TYPES,
)
from dynamo_pulumi.floor.naming import dcd_name, dynamo_namespace, is_worker_type, model_name_hash
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.render.context import ComponentRenderContext
from dynamo_pulumi.render.dcd_identity import (
    DISAGG_TYPES,
    dcd_component_name,
    dcd_dynamo_namespace,
    labelled_graph_name,
    sub_component_type,
    workload_component_type,
)
from dynamo_pulumi.render.pod.defaults.common import KUBE_DISCOVERY_MODE_POD

if TYPE_CHECKING:  # type-only: the Grove package imports this module
    from dynamo_pulumi.api.v1beta1 import (
        DynamoComponentDeployment,
        DynamoComponentDeploymentSharedSpec,
        DynamoGraphDeployment,
    )
    from dynamo_pulumi.platform import Platform
    from dynamo_pulumi.render.grove.facts import GraphFacts
    from dynamo_pulumi.render.grove.roles import ServiceRole

#: DCD metadata labels that win over anything the pod template says.
_DCD_OWNED_LABELS: tuple[str, ...] = (
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_WORKER_HASH,
    KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
)


# --- the shared rules -----------------------------------------------------------------------------


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class AlphaComponentData:
    """What a v1alpha1 component kept through conversion that its metadata reads."""

    labels: dict[str, Any]
    annotations: dict[str, Any]
    sub_component_type: str


NO_ALPHA_DATA = AlphaComponentData({}, {}, "")


def _alpha_data(preserved: Any) -> AlphaComponentData:
    if preserved is None:
        return NO_ALPHA_DATA
    return AlphaComponentData(dict(getattr(preserved, "labels", None) or {}),
                              dict(getattr(preserved, "annotations", None) or {}),
                              getattr(preserved, "sub_component_type", None) or "")


def alpha_of_dcd(dcd: DynamoComponentDeployment) -> AlphaComponentData:
    """``getDCDAlphaSharedSpec``: the alpha data preserved on a DCD (``nvidia.com/dcd-spec``)."""
    return _alpha_data(preserved_alpha_spec(dcd))


def alpha_components(dgd: DynamoGraphDeployment) -> dict[str, AlphaComponentData]:
    """``getDGDAlphaComponent`` for every component: name -> its preserved alpha data."""
    services = getattr(preserved_alpha_spec(dgd), "services", None) or {}
    return {name: _alpha_data(service) for name, service in services.items() if service is not None}


def user_layers(base: Mapping[str, Any] | None, alpha: Mapping[str, Any],
                template: Mapping[str, Any]) -> dict[str, Any]:
    """The one precedence rule of user-written metadata: base, then alpha, then pod template."""
    return {**(base or {}), **alpha, **template}


def _template_meta(template: Mapping[str, Any] | None, key: str) -> dict[str, Any]:
    value = ((template or {}).get("metadata") or {}).get(key)
    return dict(value) if isinstance(value, Mapping) else {}


def _model_name(component: DynamoComponentDeploymentSharedSpec) -> str:
    return component.model_ref.name if component.model_ref is not None and component.model_ref.name else ""


def _discovery_labels(labels: dict[str, Any], backend: str) -> None:
    if backend == DISCOVERY_BACKEND_KUBERNETES:
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND] = DISCOVERY_BACKEND_KUBERNETES
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED] = KUBE_LABEL_VALUE_TRUE


def _without_topology_sources(annotations: dict[str, Any]) -> dict[str, Any]:
    for key in KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS:
        annotations.pop(key, None)
    return annotations


# --- component pathway (DCD controller) -----------------------------------------------------------


def pod_template_labels_of(dcd: DynamoComponentDeployment) -> dict[str, Any]:
    return _template_meta(dcd.spec.pod_template, "labels")


def pod_template_annotations_of(dcd: DynamoComponentDeployment) -> dict[str, Any]:
    return _template_meta(dcd.spec.pod_template, "annotations")


def dcd_kube_labels(dcd: DynamoComponentDeployment, computed_namespace: str) -> dict[str, Any]:
    """``GetDCDKubeLabels``: the user layers over the DCD's labels, then the model/sub-type/identity
    labels; ``computed_namespace`` is the Dynamo-namespace fallback."""
    own = dict(dcd.metadata.labels or {})
    alpha = alpha_of_dcd(dcd)
    labels = user_layers(own, alpha.labels, pod_template_labels_of(dcd))
    if model := _model_name(dcd.spec):
        labels[KUBE_LABEL_DYNAMO_BASE_MODEL_HASH] = model_name_hash(model)
    if sub := sub_component_type(dcd.spec.type or "", alpha.sub_component_type):
        labels[KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE] = sub
    if name := dcd_component_name(dcd):
        labels[KUBE_LABEL_DYNAMO_COMPONENT] = name
    if namespace := dcd_dynamo_namespace(dcd, computed_namespace):
        labels[KUBE_LABEL_DYNAMO_NAMESPACE] = namespace
    for key in _DCD_OWNED_LABELS:
        if own.get(key):
            labels[key] = own[key]
    return labels


def resource_annotations(dcd: DynamoComponentDeployment) -> dict[str, Any]:
    """``getResourceAnnotations``: the user layers alone (no DCD base); the Deployment strategy
    (``nvidia.com/deployment-strategy``) is read from these."""
    return user_layers(None, alpha_of_dcd(dcd).annotations, pod_template_annotations_of(dcd))


def dcd_kube_annotations(dcd: DynamoComponentDeployment) -> dict[str, Any]:
    """``GetDCDKubeAnnotations``: :func:`resource_annotations` plus the base model, minus the
    origin version; topology source keys come only from the DCD's own metadata."""
    annotations = resource_annotations(dcd)
    if model := _model_name(dcd.spec):
        annotations[KUBE_ANNOTATION_DYNAMO_BASE_MODEL] = model
    annotations.pop(KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION, None)
    _without_topology_sources(annotations)
    for key in KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS:
        if value := dcd.annotations.get(key):
            annotations[key] = value
    return annotations


def resolve_discovery(platform: Platform, pod_annotations: Mapping[str, Any]) -> tuple[str, str]:
    """(backend, kube discovery mode) as the operator resolves them for one component.

    The pod-template annotations override the platform's backend; the mode defaults to ``pod``.
    """
    backend = pod_annotations.get(KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND, platform.discovery.backend)
    mode = pod_annotations.get(KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE, KUBE_DISCOVERY_MODE_POD)
    return backend, mode


def pod_template_labels(ctx: ComponentRenderContext, annotations: Mapping[str, Any],
                        computed_namespace: str) -> dict[str, Any]:
    """The labels of a component-pathway pod template (``generatePodTemplateSpec``).

    Leader and worker templates (LeaderWorkerSet) add ``role`` and drop ``nvidia.com/selector``,
    because LWS manages its own pod selection and the Service selects ``role: leader``.
    """
    dcd = ctx.dcd
    own = dcd.metadata.labels or {}
    labels = dcd_kube_labels(dcd, computed_namespace)
    if annotations.get(KUBE_ANNOTATION_ENABLE_METRICS) != KUBE_LABEL_VALUE_FALSE:
        labels[KUBE_LABEL_METRICS_ENABLED] = KUBE_LABEL_VALUE_TRUE
    if graph := labelled_graph_name(dcd) or ctx.graph_name:
        labels[KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME] = graph
    component_type = workload_component_type(dcd)
    if component_type:
        labels[KUBE_LABEL_DYNAMO_COMPONENT_TYPE] = component_type
    if name := dcd_component_name(dcd):
        labels[KUBE_LABEL_DYNAMO_COMPONENT] = name
    if namespace := dcd_dynamo_namespace(dcd, computed_namespace):
        labels[KUBE_LABEL_DYNAMO_NAMESPACE] = namespace
    if own.get(KUBE_LABEL_DYNAMO_WORKER_HASH):
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = own[KUBE_LABEL_DYNAMO_WORKER_HASH]
    elif ctx.worker_hash and component_type in WORKER_COMPONENT_TYPES:
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = ctx.worker_hash
    if ctx.graph_has_epp and component_type in WORKER_COMPONENT_TYPES:
        labels[KUBE_LABEL_DYNAMO_COMPONENT_CLASS] = COMPONENT_CLASS_WORKER
    labels[KUBE_LABEL_DYNAMO_SELECTOR] = ctx.dcd_name
    _discovery_labels(labels, ctx.discovery_backend)
    if ctx.role != ROLE_MAIN:
        _apply_role(labels, ctx, component_type, computed_namespace)
    return labels


def _apply_role(labels: dict[str, Any], ctx: ComponentRenderContext, component_type: str,
                computed_namespace: str) -> None:
    """Leader/worker templates (``renderMultinodePodTemplateSpecs``): the workload labels
    (DCD kube labels, type, legacy sub-type) copied over, ``role`` set, no ``nvidia.com/selector``."""
    workload = dcd_kube_labels(ctx.dcd, computed_namespace)
    spec_type = ctx.dcd.spec.type or ""
    if component_type:
        workload[KUBE_LABEL_DYNAMO_COMPONENT_TYPE] = component_type
        if component_type == COMPONENT_TYPE_WORKER and spec_type in DISAGG_TYPES:
            workload.setdefault(KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE, spec_type)
    labels.update(workload)
    labels[DCD_WORKLOAD_ROLE_LABEL] = ctx.role
    labels.pop(KUBE_LABEL_DYNAMO_SELECTOR, None)


# --- Grove pathway (DGD controller) ---------------------------------------------------------------


def grove_dynamo_namespace(dgd: DynamoGraphDeployment, namespace: str,
                           component: DynamoComponentDeploymentSharedSpec) -> str:
    """``GetDynamoNamespace``: computed from the DGD (Grove reads no alpha override)."""
    return dynamo_namespace(namespace, dgd.name, bool(component.global_dynamo_namespace))


def grove_template_labels(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any]:
    """The component's raw pod-template labels as the Grove renderer holds them: the Dynamo
    namespace and, for workers, the worker hash written in (not ``spec.labels``)."""
    labels = _template_meta(component.pod_template, "labels")
    labels[KUBE_LABEL_DYNAMO_NAMESPACE] = grove_dynamo_namespace(facts.dgd, facts.namespace, component)
    if facts.worker_hash and is_worker_type(component.type):
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = facts.worker_hash
    return labels


def grove_template_annotations(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any]:
    """The pod-template annotations after DGD propagation and discovery resolution."""
    annotations = _template_meta(component.pod_template, "annotations")
    dgd_annotations = facts.dgd.annotations
    for key in GRAPH_PROPAGATED_ANNOTATIONS:
        if key in dgd_annotations and key not in annotations:
            annotations[key] = dgd_annotations[key]
    if facts.discovery_backend:
        annotations[KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND] = facts.discovery_backend
    return annotations


def _grove_system_labels(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any]:
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
    if sub := sub_component_type(component.type or "", facts.alpha_data(component.name).sub_component_type):
        labels[KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE] = sub
    labels[KUBE_LABEL_DYNAMO_NAMESPACE] = grove_dynamo_namespace(dgd, facts.namespace, component)
    return labels


def clique_labels(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec, role: ServiceRole,
                  *, inter_pod_failover: bool) -> dict[str, Any]:
    """``generateLabels`` plus the GMS/failover adjustments of ``buildCliqueForRole``."""
    system = _grove_system_labels(facts, component)
    labels: dict[str, Any] = dict(system)
    if model := _model_name(component):
        labels[KUBE_LABEL_DYNAMO_BASE_MODEL_HASH] = model_name_hash(model)
    if facts.dgd.annotations.get(KUBE_ANNOTATION_ENABLE_METRICS) != KUBE_LABEL_VALUE_FALSE:
        labels[KUBE_LABEL_METRICS_ENABLED] = KUBE_LABEL_VALUE_TRUE
    template = grove_template_labels(facts, component)
    labels.update(user_layers(facts.dgd.spec.labels, facts.alpha_data(component.name).labels, template))
    labels.update(system)
    if template.get(KUBE_LABEL_DYNAMO_WORKER_HASH):
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = template[KUBE_LABEL_DYNAMO_WORKER_HASH]
    _discovery_labels(labels, facts.discovery_backend)
    if role.is_gms:  # weight servers never register with Dynamo
        labels.pop(KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND, None)
        labels.pop(KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED, None)
    elif inter_pod_failover:
        labels[KUBE_LABEL_DYNAMO_FAILOVER_ENGINE_GROUP_MEMBER] = KUBE_LABEL_VALUE_TRUE
    return labels


def clique_annotations(facts: GraphFacts, component: DynamoComponentDeploymentSharedSpec,
                       role: ServiceRole) -> dict[str, Any]:
    """``generateAnnotations`` minus topology-source keys, plus kv-policy and restart keys."""
    annotations = _without_topology_sources(user_layers(
        facts.dgd.spec.annotations, facts.alpha_data(component.name).annotations,
        grove_template_annotations(facts, component),
    ))
    policy = kv_transfer_policy(facts.dgd, component)
    if policy is not None and not role.is_gms:
        if policy.get("labelKey"):
            annotations[KUBE_ANNOTATION_TOPOLOGY_LABEL_KEY] = policy["labelKey"]
        if policy.get("clusterTopologyName"):
            annotations[KUBE_ANNOTATION_TOPOLOGY_CLUSTER_TOPOLOGY_NAME] = policy["clusterTopologyName"]
    if facts.dgd.spec.restart is not None:
        annotations[RESTART_ANNOTATION] = facts.dgd.spec.restart.id
    return annotations


def kv_transfer_policy(dgd: DynamoGraphDeployment, component: DynamoComponentDeploymentSharedSpec) -> dict[str, Any] | None:
    """The graph's kvTransferPolicy (wire form) when it applies to this worker-type component."""
    experimental = dgd.spec.experimental
    if experimental is None or experimental.kv_transfer_policy is None or not is_worker_type(component.type):
        return None
    return experimental.kv_transfer_policy.to_wire()


def component_resource_labels(dgd: DynamoGraphDeployment, component: DynamoComponentDeploymentSharedSpec,
                              worker_hash: str, alpha: AlphaComponentData = NO_ALPHA_DATA) -> dict[str, Any]:
    """``GetDGDComponentResourceLabels`` (Grove Services), the worker hash applied."""
    labels = user_layers(dgd.spec.labels, alpha.labels, _template_meta(component.pod_template, "labels"))
    if worker_hash and is_worker_type(component.type):
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = worker_hash
    return labels


def component_resource_annotations(dgd: DynamoGraphDeployment, component: DynamoComponentDeploymentSharedSpec,
                                   alpha: AlphaComponentData = NO_ALPHA_DATA) -> dict[str, Any]:
    """``GetDGDComponentResourceAnnotations`` (Grove Services)."""
    return user_layers(dgd.spec.annotations, alpha.annotations, _template_meta(component.pod_template, "annotations"))
