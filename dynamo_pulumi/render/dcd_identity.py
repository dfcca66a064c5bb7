"""Who a DCD is: its component name, parent graph, workload type, worker hash, Dynamo namespace.

The operator's DCD helpers (``GetDCDComponentName``, ``GetParentGraphDeploymentName``,
``GetDCDWorkloadComponentType``, ``GetDCDEffectiveWorkerHash``, ``GetDCDDynamoNamespace``),
typed over our model, plus the same answers on a DCD wire document. Both the pod metadata
(:mod:`dynamo_pulumi.render.pod.metadata`) and the pod env read them.

The parent graph has two sources, and the operator reads them in a fixed order per question:
the owner reference (``GetParentGraphDeploymentName``: the first owner of kind
DynamoGraphDeployment) and the graph label ``nvidia.com/dynamo-graph-deployment-name``. A DCD a
DGD creates carries both; a standalone DCD may carry either. The pod env
(``DYN_PARENT_DGD_K8S_NAME``, ``DYN_NAMESPACE``) reads only the owner reference, else the DCD's own
name; the pod labels read the label first, then the owner reference; the computed Dynamo namespace
(``GetDCDDynamoNamespace`` past its overrides) the owner reference first, then the label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.kinds import DGD_KIND
from dynamo_pulumi.api.preservation import preserved_alpha_spec
from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_DECODE,
    COMPONENT_TYPE_PREFILL,
    COMPONENT_TYPE_WORKER,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_WORKER_HASH,
    WORKER_COMPONENT_TYPES,
)
from dynamo_pulumi.floor.naming import dynamo_namespace

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment

DISAGG_TYPES = frozenset({COMPONENT_TYPE_PREFILL, COMPONENT_TYPE_DECODE})


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
    """The parent graph named by a DCD wire document's graph label ("" when it has none)."""
    return ((document.get("metadata") or {}).get("labels") or {}).get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME, "")


def owner_graph_name(document: Mapping[str, Any]) -> str:
    """``GetParentGraphDeploymentName`` of a DCD wire document: its first DGD owner, else ""."""
    for ref in (document.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, Mapping) and ref.get("kind") == DGD_KIND:
            return str(ref.get("name") or "")
    return ""


def parent_graph_name(dcd: DynamoComponentDeployment) -> str:
    """``GetParentGraphDeploymentName`` of a DCD model (owner references are kept as extras)."""
    refs = (dcd.metadata.model_extra or {}).get("ownerReferences")
    return owner_graph_name({"metadata": {"ownerReferences": refs}})


def labelled_graph_name(dcd: DynamoComponentDeployment) -> str:
    """The graph the pods are labelled with: the DCD's graph label, else its DGD owner."""
    return (dcd.metadata.labels or {}).get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME) or parent_graph_name(dcd)


def sub_component_type(component_type: str, preserved_sub_type: str) -> str:
    """The alpha view's sub-type (``GetDCDSubComponentType`` / the DGD alpha component's):
    prefill and decode become ``worker`` plus this sub-type (ERRATA 1.10); other types keep
    what conversion preserved (a non-promoting alpha ``subComponentType``)."""
    return component_type if component_type in DISAGG_TYPES else preserved_sub_type


def workload_component_type(dcd: DynamoComponentDeployment) -> str:
    """``GetDCDWorkloadComponentType`` as far as the DCD itself tells.

    A prefill/decode DCD generated before v1beta1 (graph and worker-hash labels present, its own
    ``component-type`` label ``worker``) keeps rendering as ``worker`` so that the selectors of
    its existing workloads still match. The operator also inspects the live Deployment/LWS/Service
    for that legacy selector; offline only the DCD labels can say so.
    """
    spec_type = dcd.spec.type or ""
    labels = dcd.metadata.labels or {}
    if spec_type not in DISAGG_TYPES:
        return spec_type
    if not (labels.get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME) and labels.get(KUBE_LABEL_DYNAMO_WORKER_HASH)):
        return spec_type
    if labels.get(KUBE_LABEL_DYNAMO_COMPONENT_TYPE) != COMPONENT_TYPE_WORKER:
        return spec_type
    sub = labels.get(KUBE_LABEL_DYNAMO_SUB_COMPONENT_TYPE)
    return COMPONENT_TYPE_WORKER if not sub or sub == spec_type else spec_type


def effective_worker_hash(dcd: DynamoComponentDeployment, fallback: str = "") -> str:
    """``GetDCDEffectiveWorkerHash``: DCD label, else pod-template label, else ``fallback``."""
    if (dcd.spec.type or "") not in WORKER_COMPONENT_TYPES:
        return ""
    template_labels = ((dcd.spec.pod_template or {}).get("metadata") or {}).get("labels") or {}
    return (
        (dcd.metadata.labels or {}).get(KUBE_LABEL_DYNAMO_WORKER_HASH)
        or template_labels.get(KUBE_LABEL_DYNAMO_WORKER_HASH)
        or fallback
    )


def computed_dynamo_namespace(dcd: DynamoComponentDeployment, namespace: str) -> str:
    """The namespace ``GetDCDDynamoNamespace`` computes when nothing overrides it: from the DGD
    owner, else the graph label, else the DCD's own name."""
    parent = (
        parent_graph_name(dcd)
        or (dcd.metadata.labels or {}).get(KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME)
        or dcd.name
    )
    return dynamo_namespace(namespace, parent, bool(dcd.spec.global_dynamo_namespace))


def dcd_dynamo_namespace(dcd: DynamoComponentDeployment, computed: str) -> str:
    """``GetDCDDynamoNamespace``: a preserved alpha ``dynamoNamespace``, else the DCD's namespace
    label, else ``computed`` (ERRATA 4.2)."""
    alpha = preserved_alpha_spec(dcd)
    preserved = getattr(alpha, "dynamo_namespace", None) if alpha is not None else None
    if preserved is not None:
        return preserved
    return (dcd.metadata.labels or {}).get(KUBE_LABEL_DYNAMO_NAMESPACE) or computed


def env_dynamo_namespace(dcd: DynamoComponentDeployment, namespace: str, parent: str) -> str:
    """``DYN_NAMESPACE`` of the pods (``generateComponentContext``): computed from ``parent``
    (the DGD owner, else the DCD's own name), never from labels or alpha overrides."""
    return dynamo_namespace(namespace, parent or dcd.name, bool(dcd.spec.global_dynamo_namespace))
