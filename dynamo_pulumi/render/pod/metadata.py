"""Labels and annotations the DCD controller puts on workloads and pod templates.

* :func:`dcd_kube_labels` / :func:`dcd_kube_annotations` (``GetDCDKubeLabels`` /
  ``GetDCDKubeAnnotations``): the metadata of the Deployment, LeaderWorkerSet and Service, and
  the start of every pod template's metadata (rendering-core section 2.2).
* :func:`pod_template_labels` (``generatePodTemplateSpec``): what the pods carry on top
  (section 2.3): component type, metrics, selector and discovery labels.
* :func:`dcd_component_name`, :func:`dcd_dynamo_namespace` and friends: the DCD helpers, typed;
  :func:`component_name_of` / :func:`graph_name_of` answer the same on a DCD wire document.

The alpha view of a DCD (``getDCDAlphaSharedSpec``): a converted v1alpha1 component keeps its
alpha-only ``labels``, ``annotations``, ``dynamoNamespace`` and ``subComponentType`` in the DCD's
conversion annotation (``nvidia.com/dcd-spec``), read with
:func:`dynamo_pulumi.api.conversion.preserved_alpha_spec`. Its labels and annotations sit under
the pod-template ones, its ``dynamoNamespace`` wins over everything (ERRATA 4.2), and
prefill/decode components carry ``nvidia.com/dynamo-sub-component-type=<type>`` (ERRATA 1.10).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.api.conversion import preserved_alpha_spec
from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment
from dynamo_pulumi.constants import (
    COMPONENT_CLASS_WORKER,
    COMPONENT_TYPE_DECODE,
    COMPONENT_TYPE_PREFILL,
    COMPONENT_TYPE_WORKER,
    DCD_WORKLOAD_ROLE_LABEL,
    DISCOVERY_BACKEND_KUBERNETES,
    KUBE_ANNOTATION_DYNAMO_BASE_MODEL,
    KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND,
    KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_ANNOTATION_ENABLE_METRICS,
    KUBE_LABEL_DYNAMO_BASE_MODEL_HASH,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
    KUBE_LABEL_DYNAMO_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND,
    KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_DYNAMO_SELECTOR,
    KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_WORKER_HASH,
    KUBE_LABEL_METRICS_ENABLED,
    KUBE_LABEL_VALUE_FALSE,
    KUBE_LABEL_VALUE_TRUE,
    KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS,
    ROLE_MAIN,
    WORKER_COMPONENT_TYPES,
)
from dynamo_pulumi.naming import dynamo_namespace, model_name_hash
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.context import ComponentRenderContext
from dynamo_pulumi.render.pod.defaults.common import KUBE_DISCOVERY_MODE_POD

_DISAGG_TYPES = frozenset({COMPONENT_TYPE_PREFILL, COMPONENT_TYPE_DECODE})

#: DCD metadata labels that win over anything the pod template says.
_DCD_OWNED_LABELS: tuple[str, ...] = (
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_WORKER_HASH,
    KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
)


def _template_meta(dcd: DynamoComponentDeployment, key: str) -> dict[str, Any]:
    meta = (dcd.spec.pod_template or {}).get("metadata") or {}
    value = meta.get(key)
    return dict(value) if isinstance(value, Mapping) else {}


def pod_template_labels_of(dcd: DynamoComponentDeployment) -> dict[str, Any]:
    return _template_meta(dcd, "labels")


def pod_template_annotations_of(dcd: DynamoComponentDeployment) -> dict[str, Any]:
    return _template_meta(dcd, "annotations")


def _component_name(spec_name: Any, labels: Mapping[str, Any], name: Any) -> str:
    return spec_name or labels.get(KUBE_LABEL_DYNAMO_COMPONENT) or name or ""


def dcd_component_name(dcd: DynamoComponentDeployment) -> str:
    """``GetDCDComponentName``: ``spec.name``, else the component label, else the DCD name."""
    return _component_name(dcd.spec.name, dcd.metadata.labels or {}, dcd.name)


def component_name_of(document: Mapping[str, Any]) -> str:
    """:func:`dcd_component_name` of a DCD wire document."""
    meta = document.get("metadata") or {}
    return _component_name((document.get("spec") or {}).get("name"), meta.get("labels") or {}, meta.get("name"))


def graph_name_of(document: Mapping[str, Any]) -> str:
    """The parent graph named by a DCD wire document's graph label ("" for a standalone DCD)."""
    return ((document.get("metadata") or {}).get("labels") or {}).get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME, "")


def alpha_view(dcd: DynamoComponentDeployment) -> Any:
    """``getDCDAlphaSharedSpec``: the alpha-only data preserved on a converted DCD, or None."""
    return preserved_alpha_spec(dcd)


def sub_component_type(dcd: DynamoComponentDeployment) -> str:
    """``GetDCDSubComponentType``: prefill and decode are ``worker`` plus this sub-type in the
    alpha view; other types keep a preserved (non-promoting) alpha ``subComponentType``."""
    if dcd.spec.type in _DISAGG_TYPES:
        return dcd.spec.type
    alpha = alpha_view(dcd)
    return (getattr(alpha, "sub_component_type", None) or "") if alpha is not None else ""


def workload_component_type(dcd: DynamoComponentDeployment) -> str:
    """``GetDCDWorkloadComponentType`` as far as the DCD itself tells.

    A prefill/decode DCD generated before v1beta1 (graph and worker-hash labels present, its own
    ``component-type`` label ``worker``) keeps rendering as ``worker`` so that the selectors of
    its existing workloads still match. The operator also inspects the live Deployment/LWS/Service
    for that legacy selector; offline only the DCD labels can say so.
    """
    spec_type = dcd.spec.type or ""
    labels = dcd.metadata.labels or {}
    if spec_type not in _DISAGG_TYPES:
        return spec_type
    if not (labels.get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME) and labels.get(KUBE_LABEL_DYNAMO_WORKER_HASH)):
        return spec_type
    if labels.get(KUBE_LABEL_DYNAMO_COMPONENT_TYPE) != COMPONENT_TYPE_WORKER:
        return spec_type
    sub = labels.get(KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE)
    return COMPONENT_TYPE_WORKER if not sub or sub == spec_type else spec_type


def computed_dynamo_namespace(dcd: DynamoComponentDeployment, namespace: str) -> str:
    """``ComputeDynamoNamespace`` from the parent graph (its label stands in for the owner
    reference), else the DCD's own name: what the pod env ``DYN_NAMESPACE`` is built from."""
    parent = (dcd.metadata.labels or {}).get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME) or dcd.name
    return dynamo_namespace(namespace, parent, bool(dcd.spec.global_dynamo_namespace))


def dcd_dynamo_namespace(dcd: DynamoComponentDeployment, computed: str) -> str:
    """``GetDCDDynamoNamespace``: a preserved alpha ``dynamoNamespace``, else the DCD's namespace
    label, else ``computed`` (ERRATA 4.2)."""
    alpha = alpha_view(dcd)
    preserved = getattr(alpha, "dynamo_namespace", None) if alpha is not None else None
    if preserved is not None:
        return preserved
    return (dcd.metadata.labels or {}).get(KUBE_LABEL_DYNAMO_NAMESPACE) or computed


def effective_worker_hash(dcd: DynamoComponentDeployment, fallback: str = "") -> str:
    """``GetDCDEffectiveWorkerHash``: DCD label, else pod-template label, else ``fallback``."""
    if (dcd.spec.type or "") not in WORKER_COMPONENT_TYPES:
        return ""
    return (
        (dcd.metadata.labels or {}).get(KUBE_LABEL_DYNAMO_WORKER_HASH)
        or pod_template_labels_of(dcd).get(KUBE_LABEL_DYNAMO_WORKER_HASH)
        or fallback
    )


def dcd_kube_labels(dcd: DynamoComponentDeployment, dynamo_namespace: str) -> dict[str, Any]:
    """``GetDCDKubeLabels``: DCD labels, preserved alpha labels, pod-template labels, then the
    model/sub-type/identity labels; ``dynamo_namespace`` is the computed fallback."""
    own = dict(dcd.metadata.labels or {})
    alpha = alpha_view(dcd)
    preserved = (getattr(alpha, "labels", None) or {}) if alpha is not None else {}
    labels: dict[str, Any] = {**own, **preserved, **pod_template_labels_of(dcd)}
    if dcd.spec.model_ref is not None and dcd.spec.model_ref.name:
        labels[KUBE_LABEL_DYNAMO_BASE_MODEL_HASH] = model_name_hash(dcd.spec.model_ref.name)
    if sub := sub_component_type(dcd):
        labels[KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE] = sub
    if name := dcd_component_name(dcd):
        labels[KUBE_LABEL_DYNAMO_COMPONENT] = name
    if namespace := dcd_dynamo_namespace(dcd, dynamo_namespace):
        labels[KUBE_LABEL_DYNAMO_NAMESPACE] = namespace
    for key in _DCD_OWNED_LABELS:
        if own.get(key):
            labels[key] = own[key]
    return labels


def dcd_kube_annotations(dcd: DynamoComponentDeployment) -> dict[str, Any]:
    """``GetDCDKubeAnnotations``: preserved alpha annotations under the pod-template ones, minus
    the origin version; topology source keys come only from the DCD's own metadata."""
    alpha = alpha_view(dcd)
    preserved = (getattr(alpha, "annotations", None) or {}) if alpha is not None else {}
    annotations = {**preserved, **pod_template_annotations_of(dcd)}
    if dcd.spec.model_ref is not None and dcd.spec.model_ref.name:
        annotations[KUBE_ANNOTATION_DYNAMO_BASE_MODEL] = dcd.spec.model_ref.name
    annotations.pop(KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION, None)
    for key in KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS:
        annotations.pop(key, None)
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


def k8s_discovery_enabled(ctx: ComponentRenderContext) -> bool:
    return ctx.discovery_backend == DISCOVERY_BACKEND_KUBERNETES


def pod_template_labels(ctx: ComponentRenderContext, annotations: Mapping[str, Any]) -> dict[str, Any]:
    """The labels of a component-pathway pod template (``generatePodTemplateSpec``).

    Leader and worker templates (LeaderWorkerSet) add ``role`` and drop ``nvidia.com/selector``,
    because LWS manages its own pod selection and the Service selects ``role: leader``.
    """
    dcd = ctx.dcd
    own = dcd.metadata.labels or {}
    labels = dcd_kube_labels(dcd, ctx.dynamo_namespace)
    if annotations.get(KUBE_ANNOTATION_ENABLE_METRICS) != KUBE_LABEL_VALUE_FALSE:
        labels[KUBE_LABEL_METRICS_ENABLED] = KUBE_LABEL_VALUE_TRUE
    if graph := own.get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME) or ctx.graph_name:
        labels[KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME] = graph
    component_type = workload_component_type(dcd)
    if component_type:
        labels[KUBE_LABEL_DYNAMO_COMPONENT_TYPE] = component_type
    if name := dcd_component_name(dcd):
        labels[KUBE_LABEL_DYNAMO_COMPONENT] = name
    if namespace := dcd_dynamo_namespace(dcd, ctx.dynamo_namespace):
        labels[KUBE_LABEL_DYNAMO_NAMESPACE] = namespace
    if own.get(KUBE_LABEL_DYNAMO_WORKER_HASH):
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = own[KUBE_LABEL_DYNAMO_WORKER_HASH]
    elif ctx.worker_hash and component_type in WORKER_COMPONENT_TYPES:
        labels[KUBE_LABEL_DYNAMO_WORKER_HASH] = ctx.worker_hash
    if ctx.graph_has_epp and component_type in WORKER_COMPONENT_TYPES:
        labels[KUBE_LABEL_DYNAMO_COMPONENT_CLASS] = COMPONENT_CLASS_WORKER
    labels[KUBE_LABEL_DYNAMO_SELECTOR] = ctx.dcd_name
    if k8s_discovery_enabled(ctx):
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND] = DISCOVERY_BACKEND_KUBERNETES
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED] = KUBE_LABEL_VALUE_TRUE
    if ctx.role != ROLE_MAIN:
        _apply_role(labels, ctx, component_type)
    return labels


def _apply_role(labels: dict[str, Any], ctx: ComponentRenderContext, component_type: str) -> None:
    """Leader/worker templates (``renderMultinodePodTemplateSpecs``): the workload labels
    (DCD kube labels, type, legacy sub-type) copied over, ``role`` set, no ``nvidia.com/selector``."""
    workload = dcd_kube_labels(ctx.dcd, ctx.dynamo_namespace)
    spec_type = ctx.dcd.spec.type or ""
    if component_type:
        workload[KUBE_LABEL_DYNAMO_COMPONENT_TYPE] = component_type
        if component_type == COMPONENT_TYPE_WORKER and spec_type in _DISAGG_TYPES:
            workload.setdefault(KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE, spec_type)
    labels.update(workload)
    labels[DCD_WORKLOAD_ROLE_LABEL] = ctx.role
    labels.pop(KUBE_LABEL_DYNAMO_SELECTOR, None)
