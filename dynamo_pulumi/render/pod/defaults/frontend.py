"""Frontend defaults (rendering-core section 3.2): the OpenAI HTTP server on port 8000.

Runtime gates (section 7): from 1.6.0 a startup probe and ``DYN_NAMESPACE_PREFIX_STRICT=true``.
The frontend-sidecar merge reuses :func:`base_container` with the sidecar's own runtime version.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    DYNAMO_CONTAINER_PORT_NAME,
    DYNAMO_NAMESPACE_PREFIX_ENV_VAR,
    DYNAMO_SERVICE_PORT,
    ENV_DYNAMO_SERVICE_PORT,
)
from dynamo_pulumi.render.pod.defaults.common import (
    DefaultsContext,
    common_container,
    common_pod_spec,
    env,
    gate_on,
    http_probe,
    tcp_port,
)

ENV_DYN_HTTP_PORT = "DYN_HTTP_PORT"
DYNAMO_NAMESPACE_PREFIX_STRICT_ENV_VAR = "DYN_NAMESPACE_PREFIX_STRICT"
GATE_FRONTEND_STARTUP_PROBE = "FrontendStartupProbe"
GATE_STRICT_NAMESPACE_PREFIX = "StrictNamespacePrefix"


def strict_prefix_env(ctx: DefaultsContext) -> list[dict[str, Any]]:
    """``DYN_NAMESPACE_PREFIX_STRICT=true`` when the runtime understands strict prefixes."""
    if gate_on(GATE_STRICT_NAMESPACE_PREFIX, ctx.runtime_version):
        return [env(DYNAMO_NAMESPACE_PREFIX_STRICT_ENV_VAR, "true")]
    return []


def base_container(ctx: DefaultsContext) -> dict[str, Any]:
    container = common_container(ctx)
    container["command"] = ["python3"]
    container["args"] = ["-m", "dynamo.frontend"]
    container["ports"] = [tcp_port(DYNAMO_CONTAINER_PORT_NAME, DYNAMO_SERVICE_PORT)]
    container["livenessProbe"] = http_probe(
        "/live", DYNAMO_CONTAINER_PORT_NAME,
        initialDelaySeconds=15, periodSeconds=10, timeoutSeconds=1, failureThreshold=3,
    )
    container["readinessProbe"] = http_probe(
        "/health", DYNAMO_CONTAINER_PORT_NAME,
        initialDelaySeconds=10, periodSeconds=10, timeoutSeconds=3, failureThreshold=3,
    )
    if gate_on(GATE_FRONTEND_STARTUP_PROBE, ctx.runtime_version):
        container["startupProbe"] = http_probe(
            "/live", DYNAMO_CONTAINER_PORT_NAME, periodSeconds=10, timeoutSeconds=1, failureThreshold=30,
        )
    container["env"] += [
        env(ENV_DYNAMO_SERVICE_PORT, str(DYNAMO_SERVICE_PORT)),
        env(ENV_DYN_HTTP_PORT, str(DYNAMO_SERVICE_PORT)),
        env(DYNAMO_NAMESPACE_PREFIX_ENV_VAR, ctx.dynamo_namespace),
        *strict_prefix_env(ctx),
    ]
    return container


def base_pod_spec(ctx: DefaultsContext) -> dict[str, Any]:
    return common_pod_spec(ctx)
