"""The GMS ResourceClaimTemplates the DGD owns (``dgd_gms_resource_claims_reconciler.go``).

Part of the DGD's shared resources, so rendered on both pathways: one ``resource.k8s.io/v1``
ResourceClaimTemplate ``<dgd>-<lower(component)>-gpu`` per component with
``experimental.gpuMemoryService`` and GPUs on ``main`` (name and namespace only, owner the DGD).
With DRA explicitly disabled, a graph that needs it fails here, before any workload.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.render.objects.context import GraphContext
from dynamo_pulumi.render.pod.gms import require_dra, standalone_claim_templates


def build(ctx: GraphContext) -> list[dict[str, Any]]:
    require_dra(ctx.graph, dra_off=ctx.platform.dra_off)
    return standalone_claim_templates(ctx.graph, ctx.namespace)
