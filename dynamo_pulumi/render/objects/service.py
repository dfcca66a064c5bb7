"""The component Service (rendering-core 2.4): one per DCD when Kubernetes discovery is on or the
component is a frontend. Owned by the DCD; named after the DCD, lowercased with dots as hyphens.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_EPP,
    COMPONENT_TYPE_FRONTEND,
    DCD_WORKLOAD_ROLE_LABEL,
    DISCOVERY_BACKEND_KUBERNETES,
    DYNAMO_CONTAINER_PORT_NAME,
    DYNAMO_SERVICE_PORT,
    DYNAMO_SERVICE_PORT_NAME,
    DYNAMO_SYSTEM_PORT,
    DYNAMO_SYSTEM_PORT_NAME,
    EPP_GRPC_PORT,
    EPP_GRPC_PORT_NAME,
    EPP_SERVICE_APP_PROTOCOL,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_COMPONENT_TYPE,
    KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND,
    KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED,
    KUBE_LABEL_DYNAMO_NAMESPACE,
    KUBE_LABEL_VALUE_TRUE,
    ROLE_LEADER,
)
from dynamo_pulumi.floor.naming import component_service_name
from dynamo_pulumi.render.objects.common import k8s_object, object_meta
from dynamo_pulumi.render.objects.context import ComponentContext

API_VERSION = "v1"
KIND = "Service"


def service_port(component_type: str) -> dict[str, Any]:
    """The single port: http 8000 for frontends, grpc 9002 for EPP, system 9090 otherwise."""
    if component_type == COMPONENT_TYPE_FRONTEND:
        return {
            "name": DYNAMO_SERVICE_PORT_NAME,
            "port": DYNAMO_SERVICE_PORT,
            "targetPort": DYNAMO_CONTAINER_PORT_NAME,
            "protocol": "TCP",
        }
    if component_type == COMPONENT_TYPE_EPP:
        return {
            "name": EPP_GRPC_PORT_NAME,
            "port": EPP_GRPC_PORT,
            "targetPort": EPP_GRPC_PORT,
            "protocol": "TCP",
            "appProtocol": EPP_SERVICE_APP_PROTOCOL,
        }
    return {
        "name": DYNAMO_SYSTEM_PORT_NAME,
        "port": DYNAMO_SYSTEM_PORT,
        "targetPort": DYNAMO_SYSTEM_PORT_NAME,
        "protocol": "TCP",
    }


def build(ctx: ComponentContext) -> list[dict[str, Any]]:
    if not (ctx.k8s_discovery or ctx.is_frontend):
        return []
    labels = ctx.kube_labels
    if ctx.k8s_discovery:
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_BACKEND] = DISCOVERY_BACKEND_KUBERNETES
        labels[KUBE_LABEL_DYNAMO_DISCOVERY_ENABLED] = KUBE_LABEL_VALUE_TRUE
    selector = {
        KUBE_LABEL_DYNAMO_COMPONENT_TYPE: ctx.workload_type,
        KUBE_LABEL_DYNAMO_NAMESPACE: ctx.dynamo_namespace,
        KUBE_LABEL_DYNAMO_COMPONENT: ctx.component_name,
    }
    if ctx.is_multinode:
        selector[DCD_WORKLOAD_ROLE_LABEL] = ROLE_LEADER
    meta = object_meta(component_service_name(ctx.name), ctx.namespace, labels, ctx.kube_annotations)
    spec = {"selector": selector, "ports": [service_port(ctx.workload_type)]}
    return [k8s_object(API_VERSION, KIND, meta, spec=spec)]
