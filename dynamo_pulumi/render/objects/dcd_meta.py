"""What a DCD stamps on every workload it owns: its kube labels, kube annotations, names.

``GetDCDKubeLabels`` / ``GetDCDKubeAnnotations`` / ``GetDCDComponentName`` /
``GetDCDDynamoNamespace`` of the operator, read from a DCD wire dict. The pod-template colleague's
``render.pod.metadata`` is preferred when it offers the same functions (see
:func:`dynamo_pulumi.render.objects.context.kube_labels`); these are the object builders' own
reading and the worker hash's.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.constants import (
    COMPONENT_TYPE_DECODE,
    COMPONENT_TYPE_PREFILL,
    KUBE_ANNOTATION_DYNAMO_BASE_MODEL,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_LABEL_DYNAMO_BASE_MODEL_HASH,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_WORKER_HASH,
    KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS,
)
from dynamo_pulumi.naming import dynamo_namespace, model_name_hash


def _meta(dcd: dict[str, Any]) -> dict[str, Any]:
    return dcd.get("metadata") or {}


def _template_meta(dcd: dict[str, Any]) -> dict[str, Any]:
    return ((dcd.get("spec") or {}).get("podTemplate") or {}).get("metadata") or {}


def component_name(dcd: dict[str, Any]) -> str:
    """``GetDCDComponentName``: spec.name, else the component label, else metadata.name."""
    spec = dcd.get("spec") or {}
    labels = _meta(dcd).get("labels") or {}
    return spec.get("name") or labels.get(KUBE_LABEL_DYNAMO_COMPONENT) or _meta(dcd).get("name", "")


def graph_name(dcd: dict[str, Any]) -> str:
    """The parent graph name from the DCD's label ("" for a standalone DCD)."""
    return (_meta(dcd).get("labels") or {}).get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME, "")


def dcd_dynamo_namespace(dcd: dict[str, Any], namespace: str) -> str:
    """``GetDCDDynamoNamespace``: the namespace label, else computed from the graph (or DCD) name."""
    labels = _meta(dcd).get("labels") or {}
    if labels.get(KUBE_LABEL_DYNAMO_NAMESPACE):
        return labels[KUBE_LABEL_DYNAMO_NAMESPACE]
    parent = graph_name(dcd) or _meta(dcd).get("name", "")
    return dynamo_namespace(namespace, parent, bool((dcd.get("spec") or {}).get("globalDynamoNamespace")))


def sub_component_type(dcd: dict[str, Any]) -> str:
    """The alpha view's sub-type: prefill/decode components are alpha ``worker`` + sub-type (ERRATA 2.10)."""
    ctype = (dcd.get("spec") or {}).get("type") or ""
    return ctype if ctype in (COMPONENT_TYPE_PREFILL, COMPONENT_TYPE_DECODE) else ""


def dcd_kube_labels(dcd: dict[str, Any], namespace: str) -> dict[str, Any]:
    """``GetDCDKubeLabels``: DCD labels, pod-template labels, model/sub-type, identity re-asserted."""
    own = _meta(dcd).get("labels") or {}
    labels: dict[str, Any] = {**own, **(_template_meta(dcd).get("labels") or {})}
    model = ((dcd.get("spec") or {}).get("modelRef") or {}).get("name")
    if model:
        labels[KUBE_LABEL_DYNAMO_BASE_MODEL_HASH] = model_name_hash(model)
    if sub_component_type(dcd):
        labels[KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE] = sub_component_type(dcd)
    if component_name(dcd):
        labels[KUBE_LABEL_DYNAMO_COMPONENT] = component_name(dcd)
    labels[KUBE_LABEL_DYNAMO_NAMESPACE] = dcd_dynamo_namespace(dcd, namespace)
    for key in (
        KUBE_LABEL_DYNAMO_COMPONENT,
        KUBE_LABEL_DYNAMO_NAMESPACE,
        KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
        KUBE_LABEL_DYNAMO_WORKER_HASH,
        KUBE_LABEL_DYNAMO_COMPONENT_CLASS,
    ):
        if own.get(key):
            labels[key] = own[key]
    return labels


def dcd_kube_annotations(dcd: dict[str, Any]) -> dict[str, Any]:
    """``GetDCDKubeAnnotations``: pod-template annotations minus origin-version, plus base model."""
    annotations: dict[str, Any] = dict(_template_meta(dcd).get("annotations") or {})
    model = ((dcd.get("spec") or {}).get("modelRef") or {}).get("name")
    if model:
        annotations[KUBE_ANNOTATION_DYNAMO_BASE_MODEL] = model
    annotations.pop(KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION, None)
    own = _meta(dcd).get("annotations") or {}
    for key in KUBE_TOPOLOGY_SOURCE_ANNOTATION_KEYS:
        annotations.pop(key, None)
        if own.get(key):
            annotations[key] = own[key]
    return annotations
