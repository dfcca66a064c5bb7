"""Headless model Service ``dynamo-model-<sha256(model)[:8]>`` (rendering-core 2.5).

Created by the DCD controller for a component with ``modelRef.name``. Every DCD naming the same
model syncs the same object, so the pipeline keeps only the first (the cluster holds one).
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    DYNAMO_SYSTEM_PORT,
    DYNAMO_SYSTEM_PORT_NAME,
    KUBE_ANNOTATION_DYNAMO_BASE_MODEL,
    KUBE_LABEL_DYNAMO_BASE_MODEL_HASH,
    LABEL_MANAGED_BY,
    MANAGED_BY_DYNAMO_OPERATOR,
)
from dynamo_pulumi.floor.naming import model_name_hash, model_service_name
from dynamo_pulumi.render.objects.common import k8s_object, object_meta
from dynamo_pulumi.render.objects.context import ComponentContext

API_VERSION = "v1"
KIND = "Service"


def build_model_service(model: str, namespace: str) -> dict[str, Any]:
    h = model_name_hash(model)
    labels = {KUBE_LABEL_DYNAMO_BASE_MODEL_HASH: h, LABEL_MANAGED_BY: MANAGED_BY_DYNAMO_OPERATOR}
    meta = object_meta(model_service_name(model), namespace, labels, {KUBE_ANNOTATION_DYNAMO_BASE_MODEL: model})
    spec = {
        "clusterIP": "None",
        "selector": {KUBE_LABEL_DYNAMO_BASE_MODEL_HASH: h},
        "publishNotReadyAddresses": False,
        "ports": [
            {"name": DYNAMO_SYSTEM_PORT_NAME, "port": DYNAMO_SYSTEM_PORT, "targetPort": DYNAMO_SYSTEM_PORT, "protocol": "TCP"}
        ],
    }
    return k8s_object(API_VERSION, KIND, meta, spec=spec)


def build(ctx: ComponentContext) -> list[dict[str, Any]]:
    model = (ctx.spec.get("modelRef") or {}).get("name")
    return [build_model_service(model, ctx.namespace)] if model else []
