"""apps/v1 Deployment for a single-node DCD (rendering-core 2.2, ERRATA 1.1-1.3, 1.11).

Owned by the DCD. A multinode DCD gets a LeaderWorkerSet instead when the LWS gate is on; a
standalone multinode DCD with LWS off falls back to a Deployment, as the operator does.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    DEFAULT_ROLLING_UPDATE_MAX_SURGE,
    DEFAULT_ROLLING_UPDATE_MAX_UNAVAILABLE,
    DEPLOYMENT_STRATEGY_RECREATE,
    DEPLOYMENT_STRATEGY_ROLLING_UPDATE,
    KUBE_ANNOTATION_DEPLOYMENT_ROLLING_UPDATE_MAX_SURGE,
    KUBE_ANNOTATION_DEPLOYMENT_ROLLING_UPDATE_MAX_UNAVAILABLE,
    KUBE_ANNOTATION_DEPLOYMENT_STRATEGY,
    KUBE_LABEL_DYNAMO_SELECTOR,
    ROLE_MAIN,
)
from dynamo_pulumi.render.objects.common import k8s_object, object_meta, with_go_container_fields
from dynamo_pulumi.render.objects.context import ComponentContext

API_VERSION = "apps/v1"
KIND = "Deployment"


def parse_int_or_string(value: str) -> int | str:
    """``intstr.Parse``: an integer when the text is one, else the string ("30%")."""
    try:
        return int(value, 10)
    except ValueError:
        return value


def deployment_strategy(ctx: ComponentContext) -> dict[str, Any]:
    """Rolling update 25%/25% unless annotated; only the exact value ``Recreate`` recreates.

    The strategy is read from ``getResourceAnnotations`` (a v1alpha1 component's preserved
    annotations under the pod-template ones), surge and unavailable from ``GetDCDKubeAnnotations``
    (the same layers); ERRATA 1 item 3.
    """
    if ctx.resource_annotations.get(KUBE_ANNOTATION_DEPLOYMENT_STRATEGY) == DEPLOYMENT_STRATEGY_RECREATE:
        return {"type": DEPLOYMENT_STRATEGY_RECREATE}
    annotations = ctx.kube_annotations
    surge = annotations.get(KUBE_ANNOTATION_DEPLOYMENT_ROLLING_UPDATE_MAX_SURGE) or ""
    unavailable = annotations.get(KUBE_ANNOTATION_DEPLOYMENT_ROLLING_UPDATE_MAX_UNAVAILABLE) or ""
    return {
        "type": DEPLOYMENT_STRATEGY_ROLLING_UPDATE,
        "rollingUpdate": {
            "maxSurge": parse_int_or_string(surge) if surge else DEFAULT_ROLLING_UPDATE_MAX_SURGE,
            "maxUnavailable": (
                parse_int_or_string(unavailable) if unavailable else DEFAULT_ROLLING_UPDATE_MAX_UNAVAILABLE
            ),
        },
    }


def build(ctx: ComponentContext) -> list[dict[str, Any]]:
    if ctx.uses_lws:
        return []
    spec: dict[str, Any] = {}
    if ctx.spec.get("replicas") is not None:
        spec["replicas"] = ctx.spec["replicas"]
    spec["selector"] = {"matchLabels": {KUBE_LABEL_DYNAMO_SELECTOR: ctx.name}}
    spec["strategy"] = deployment_strategy(ctx)
    spec["template"] = with_go_container_fields(ctx.pod_template(ROLE_MAIN))
    meta = object_meta(ctx.name, ctx.namespace, ctx.kube_labels, ctx.kube_annotations)
    return [k8s_object(API_VERSION, KIND, meta, spec=spec)]
