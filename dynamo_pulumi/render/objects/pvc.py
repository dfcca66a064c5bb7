"""Legacy top-level PVCs of a converted v1alpha1 graph (ERRATA 1.17).

The operator keeps the alpha ``spec.pvcs`` in the DGD's conversion annotation and creates a
DGD-owned PVC for each entry with ``create: true`` when none exists. A render cannot look, so it
emits the PVC for every ``create: true`` entry (an existing claim is left untouched by the
operator; the Pulumi layer should import or ignore it). Entries without ``create`` must already
exist and render nothing.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.api.preservation import preserved_alpha_spec
from dynamo_pulumi.render.objects.common import k8s_object, object_meta
from dynamo_pulumi.render.objects.context import GraphContext


def build_pvc(pvc: Any, namespace: str) -> dict[str, Any]:
    """``constructPVC``: one access mode, the storage request, ``storageClassName`` always set."""
    spec = {
        "accessModes": [pvc.volume_access_mode or ""],
        "resources": {"requests": {"storage": pvc.size}},
        "storageClassName": pvc.storage_class or "",
    }
    return k8s_object("v1", "PersistentVolumeClaim", object_meta(pvc.name, namespace), spec=spec)


def build(ctx: GraphContext) -> list[dict[str, Any]]:
    preserved = preserved_alpha_spec(ctx.graph)
    pvcs = getattr(preserved, "pvcs", None) or []
    return [build_pvc(p, ctx.namespace) for p in pvcs if p.name and p.create]
