"""The wait-for-leader ConfigMap, owned by the DGD when any component is multinode.

The script and the ConfigMap's shape belong to the backends (``render.backends.wait_leader``);
this builder only decides when the graph needs it.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.render.backends.wait_leader import build_wait_leader_configmap
from dynamo_pulumi.render.objects.context import GraphContext


def build(ctx: GraphContext) -> list[dict[str, Any]]:
    if not any(c.is_multinode for c in ctx.graph.components):
        return []
    return [build_wait_leader_configmap(ctx.name, ctx.namespace)]
