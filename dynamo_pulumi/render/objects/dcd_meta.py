"""What a DCD stamps on every workload it owns, read from a DCD wire document.

``GetDCDComponentName`` / ``GetDCDDynamoNamespace`` of the operator, and ``GetDCDKubeLabels`` /
``GetDCDKubeAnnotations`` delegated to :mod:`dynamo_pulumi.render.pod.metadata`, so pod labels and
object labels are answered in one place.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment
from dynamo_pulumi.constants import (
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    KUBE_LABEL_DYNAMO_NAMESPACE,
)
from dynamo_pulumi.naming import dynamo_namespace
from dynamo_pulumi.render.pod import metadata as pod_metadata


def _meta(dcd: dict[str, Any]) -> dict[str, Any]:
    return dcd.get("metadata") or {}


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
    return labels.get(KUBE_LABEL_DYNAMO_NAMESPACE) or computed_dynamo_namespace(dcd, namespace)


def _model(dcd: dict[str, Any]) -> DynamoComponentDeployment:
    return DynamoComponentDeployment.model_validate(dcd)


def computed_dynamo_namespace(dcd: dict[str, Any], namespace: str) -> str:
    """The namespace the DCD would compute from its graph (or own) name, ignoring its label."""
    parent = graph_name(dcd) or _meta(dcd).get("name", "")
    return dynamo_namespace(namespace, parent, bool((dcd.get("spec") or {}).get("globalDynamoNamespace")))


def dcd_kube_labels(dcd: dict[str, Any], namespace: str) -> dict[str, Any]:
    """``GetDCDKubeLabels``, answered once by the pod assembly's :mod:`render.pod.metadata`."""
    return pod_metadata.dcd_kube_labels(_model(dcd), computed_dynamo_namespace(dcd, namespace))


def dcd_kube_annotations(dcd: dict[str, Any]) -> dict[str, Any]:
    """``GetDCDKubeAnnotations``, answered once by the pod assembly's :mod:`render.pod.metadata`."""
    return pod_metadata.dcd_kube_annotations(_model(dcd))
