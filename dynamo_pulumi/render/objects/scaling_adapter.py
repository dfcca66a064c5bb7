"""DynamoGraphDeploymentScalingAdapter per component with ``scalingAdapter`` (rendering-core 2.10).

The DGD controller writes the served ``nvidia.com/v1alpha1`` form. ``spec.replicas`` is seeded from
the component (nil -> 1) only at creation; afterwards the adapter owns it, so the Pulumi layer
should ignore later changes of that field.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    DYNAMO_API_VERSION_V1ALPHA1,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    RESOURCE_TYPE_DYNAMO_GRAPH_DEPLOYMENT_SCALING_ADAPTER,
)
from dynamo_pulumi.render.objects.common import k8s_object, object_meta
from dynamo_pulumi.render.objects.context import GraphContext


def adapter_name(graph_name: str, component: str) -> str:
    return f"{graph_name}-{component.lower()}"


def build(ctx: GraphContext) -> list[dict[str, Any]]:
    objects = []
    for component in ctx.graph.components:
        if component.scaling_adapter is None:
            continue
        labels = {KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME: ctx.name, KUBE_LABEL_DYNAMO_COMPONENT: component.name}
        meta = object_meta(adapter_name(ctx.name, component.name), ctx.namespace, labels)
        spec = {
            "replicas": component.effective_replicas,
            "dgdRef": {"name": ctx.name, "serviceName": component.name},
        }
        objects.append(
            k8s_object(DYNAMO_API_VERSION_V1ALPHA1, RESOURCE_TYPE_DYNAMO_GRAPH_DEPLOYMENT_SCALING_ADAPTER, meta, spec=spec)
        )
    return objects
