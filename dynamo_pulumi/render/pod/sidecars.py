"""Sidecars the operator fills in (rendering-core section 5).

* **Dynamo sidecar mode** (5.1): a worker-class pod whose template declares the init container
  ``runtime`` runs the Dynamo runtime there, as a native sidecar (``restartPolicy: Always``),
  next to an engine-only ``main``. The runtime gets identity, discovery, system-server and
  transport env, the system port and its own probes; ``main`` keeps the user's launch settings.
* **Frontend sidecar** (5.2): ``frontendSidecar: <name>`` turns that container of the pod into a
  frontend: frontend defaults merged under the user's fields, as for ``main``. Its runtime version
  comes from its own image tag, never from the component's override or runtime container.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor import records
from dynamo_pulumi.floor.constants import (
    COMPONENT_TYPE_FRONTEND,
    DYNAMO_SYSTEM_PORT,
    DYNAMO_SYSTEM_PORT_NAME,
    RUNTIME_SIDECAR_CONTAINER_NAME,
)
from dynamo_pulumi.model.runtime_version import parse_image_tag_version
from dynamo_pulumi.render.pod.defaults import frontend
from dynamo_pulumi.render.pod.defaults.common import (
    DefaultsContext,
    common_env,
    http_probe,
    standard_env,
    tcp_port,
)
from dynamo_pulumi.render.pod.defaults.worker import (
    ENV_DYN_SYSTEM_ENABLED,
    ENV_DYN_SYSTEM_PORT,
    worker_suffix_env,
)
from dynamo_pulumi.render.pod.merge import add_env_user_wins, merge_container
from dynamo_pulumi.render.pod.volumes import append_missing_mounts

if TYPE_CHECKING:
    from dynamo_pulumi.platform import Platform

# --- Dynamo (runtime) sidecar ---------------------------------------------------------------------


def runtime_sidecar_base(ctx: DefaultsContext) -> dict[str, Any]:
    """The runtime init container's defaults: no command (the image entrypoint), no resources,
    and none of the engine-only env (endpoint health, canary checks, NIXL telemetry, FPM port)."""
    rctx = records.replace(ctx, container_name=RUNTIME_SIDECAR_CONTAINER_NAME)
    return {
        "name": RUNTIME_SIDECAR_CONTAINER_NAME,
        "restartPolicy": "Always",
        "ports": [tcp_port(DYNAMO_SYSTEM_PORT_NAME, DYNAMO_SYSTEM_PORT)],
        "env": [
            *common_env(rctx),
            {"name": ENV_DYN_SYSTEM_ENABLED, "value": "true"},
            {"name": ENV_DYN_SYSTEM_PORT, "value": str(DYNAMO_SYSTEM_PORT)},
            *worker_suffix_env(rctx),
        ],
        "startupProbe": http_probe("/live", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=2, timeoutSeconds=1, failureThreshold=30),
        "livenessProbe": http_probe("/live", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=5, timeoutSeconds=4, failureThreshold=3),
        "readinessProbe": http_probe("/health", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=5, timeoutSeconds=4, failureThreshold=3),
    }


def merge_runtime_sidecar(
    init_containers: list[dict[str, Any]], ctx: DefaultsContext, platform: Platform
) -> list[dict[str, Any]]:
    """The init containers with ``runtime`` merged over its defaults, in place in the list."""
    result = []
    for container in init_containers:
        if container.get("name") == RUNTIME_SIDECAR_CONTAINER_NAME:
            container = merge_container(runtime_sidecar_base(ctx), container, RUNTIME_SIDECAR_CONTAINER_NAME)
            add_env_user_wins(container, standard_env(platform))
        result.append(container)
    return result


# --- frontend sidecar -----------------------------------------------------------------------------


def frontend_sidecar_context(parent: DefaultsContext, name: str, image: Any) -> DefaultsContext:
    """The parent's identity with the type forced to frontend, one node, and the sidecar's own
    runtime version (from its image tag only)."""
    return records.replace(
        parent,
        component_type=COMPONENT_TYPE_FRONTEND,
        number_of_nodes=1,
        epp_config=None,
        worker_hash_suffix="",
        container_name=name,
        runtime_version=parse_image_tag_version(image),
    )


def merge_frontend_sidecar(
    containers: list[dict[str, Any]],
    name: str,
    parent: DefaultsContext,
    platform: Platform,
    parent_mounts: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """``mergeFrontendSidecarDefaults``: the named container becomes a frontend.

    It also receives the main container's mounts as they were before ``/dev/shm`` was added
    (user mounts and the compilation cache), except names it already mounts.
    """
    for i, user in enumerate(containers):
        if user.get("name") != name:
            continue
        fctx = frontend_sidecar_context(parent, name, user.get("image"))
        merged = merge_container(frontend.base_container(fctx), user, name)
        add_env_user_wins(merged, standard_env(platform))
        mounts = append_missing_mounts(merged.get("volumeMounts") or [], parent_mounts)
        if mounts:
            merged["volumeMounts"] = mounts
        return [*containers[:i], merged, *containers[i + 1 :]]
    raise RenderError(f'frontendSidecar "{name}" does not match any podTemplate container', "spec.frontendSidecar")
