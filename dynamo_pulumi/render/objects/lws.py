"""LeaderWorkerSet for a multinode DCD when the LWS gate is on (rendering-core section 8).

Named ``<dcd>-0`` so it never collides with the ``<dcd>`` Service. Leader and worker templates are
the DCD's pod template rendered for each role (the pod assembly gives them the workload pod labels
and the ``role`` label, without ``nvidia.com/selector``). The LWS fields its defaulting webhook would add
(``restartPolicy``, ``networkConfig``, ``rolloutStrategy``) are written out explicitly so the
rendered object equals what the API server stores.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    LWS_API_VERSION,
    ROLE_LEADER,
    ROLE_WORKER,
)
from dynamo_pulumi.floor.naming import lws_name
from dynamo_pulumi.render.objects.common import k8s_object, object_meta, with_go_container_fields
from dynamo_pulumi.render.objects.context import ComponentContext

KIND = "LeaderWorkerSet"
STARTUP_POLICY_LEADER_CREATED = "LeaderCreated"
#: Defaults the LWS admission webhook stores (LWS v0.6+).
LWS_RESTART_POLICY = "RecreateGroupOnPodRestart"
LWS_NETWORK_CONFIG = {"subdomainPolicy": "Shared"}
LWS_ROLLOUT_STRATEGY = {
    "type": "RollingUpdate",
    "rollingUpdateConfiguration": {"maxSurge": 0, "maxUnavailable": 1, "partition": 0},
}


def _check_main_container(template: dict[str, Any], role: str) -> None:
    """``checkMainContainer``: an LWS pod's main container needs a command and args."""
    containers = (template.get("spec") or {}).get("containers") or []
    main = next((c for c in containers if c.get("name") == "main"), None)
    where = "spec.podTemplate.spec.containers[main]"
    if main is None:
        raise RenderError(f"{role} template: main container not found in pod spec", where)
    if not main.get("command"):
        raise RenderError(f"{role} template: container Command cannot be nil for LWS pod", where)
    if not main.get("args"):
        raise RenderError(f"{role} template: container Args cannot be empty for LWS pod", where)


def role_template(ctx: ComponentContext, role: str) -> dict[str, Any]:
    """The pod template for ``role``; the pod assembly adds the workload and ``role`` labels and
    drops ``nvidia.com/selector`` for leader/worker roles."""
    template = ctx.pod_template(role)
    _check_main_container(template, role)
    return with_go_container_fields(template)


def build(ctx: ComponentContext) -> list[dict[str, Any]]:
    if not ctx.uses_lws:
        return []
    replicas = ctx.spec.get("replicas")
    spec = {
        "replicas": 1 if replicas is None else replicas,
        "startupPolicy": STARTUP_POLICY_LEADER_CREATED,
        "leaderWorkerTemplate": {
            "leaderTemplate": role_template(ctx, ROLE_LEADER),
            "workerTemplate": role_template(ctx, ROLE_WORKER),
            "size": ctx.model.spec.number_of_nodes,
            "restartPolicy": LWS_RESTART_POLICY,
        },
        "networkConfig": dict(LWS_NETWORK_CONFIG),
        "rolloutStrategy": {
            "type": LWS_ROLLOUT_STRATEGY["type"],
            "rollingUpdateConfiguration": dict(LWS_ROLLOUT_STRATEGY["rollingUpdateConfiguration"]),
        },
    }
    meta = object_meta(lws_name(ctx.name), ctx.namespace, ctx.kube_labels)
    return [k8s_object(LWS_API_VERSION, KIND, meta, spec=spec)]
