"""How the pipeline asks the pod assembly for a DCD's pod templates.

One :class:`~dynamo_pulumi.render.context.ComponentRenderContext` per DCD (the role is the only
thing that varies between the Deployment, LWS leader and LWS worker templates), handed to
:func:`dynamo_pulumi.render.pod.build_pod_template`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor import records
from dynamo_pulumi.floor.constants import KUBE_LABEL_DYNAMO_WORKER_HASH, ROLE_MAIN
from dynamo_pulumi.render.backend_framework import component_backend_framework
from dynamo_pulumi.render.backends.dra_claims import EMPTY_INVENTORY, DraInventory
from dynamo_pulumi.render.backends.multinode import lws_wiring
from dynamo_pulumi.render.context import ComponentRenderContext
from dynamo_pulumi.render.dcd_identity import env_dynamo_namespace
from dynamo_pulumi.render.pod import build_pod_template
from dynamo_pulumi.render.pod import metadata as pod_metadata

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment
    from dynamo_pulumi.platform import Platform


def component_render_context(
    dcd: dict[str, Any],
    model: DynamoComponentDeployment,
    namespace: str,
    platform: Platform,
    graph_name: str,
    graph_has_epp: bool,
    dra: DraInventory = EMPTY_INVENTORY,
) -> ComponentRenderContext:
    """The pod assembly's context for a DCD, with role ``main``."""
    backend, mode = pod_metadata.resolve_discovery(platform, pod_metadata.dcd_kube_annotations(model))
    uses_lws = model.spec.is_multinode and platform.lws_enabled
    return ComponentRenderContext(
        dcd=model,
        dcd_name=dcd["metadata"]["name"],
        graph_name=graph_name,
        namespace=namespace,
        dynamo_namespace=env_dynamo_namespace(model, namespace, graph_name),
        platform=platform,
        backend_framework=component_backend_framework(dcd["spec"], dcd["spec"].get("backendFramework") or ""),
        role=ROLE_MAIN,
        pathway="component",
        multinode_wiring=lws_wiring(model.spec.number_of_nodes) if uses_lws else None,
        graph_has_epp=graph_has_epp,
        discovery_backend=str(backend),
        discovery_mode=str(mode),
        worker_hash=(dcd["metadata"].get("labels") or {}).get(KUBE_LABEL_DYNAMO_WORKER_HASH, ""),
        dra=dra,
    )


def pod_template_renderer(base: ComponentRenderContext) -> Callable[[str], dict[str, Any]]:
    """role -> the DCD's pod template rendered for that role."""

    def render(role: str) -> dict[str, Any]:
        return build_pod_template(records.replace(base, role=role))

    return render
