"""Worker, prefill and decode defaults (rendering-core section 3.3).

The system server on 9090 carries the health endpoints; NIXL telemetry on 19090. Runtime gates
(section 7): from 1.5.0 the canary health checks are on and a liveness probe needs three failures
instead of one before the kubelet restarts the engine.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    DYNAMO_FPM_BASE_PORT,
    DYNAMO_NAMESPACE_WORKER_SUFFIX_ENV_VAR,
    DYNAMO_NIXL_PORT,
    DYNAMO_NIXL_PORT_NAME,
    DYNAMO_SYSTEM_PORT,
    DYNAMO_SYSTEM_PORT_NAME,
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

GATE_CANARY_HEALTH_CHECKS = "CanaryHealthChecks"
GATE_INCREASED_WORKER_FAILURE_THRESHOLD = "IncreasedWorkerFailureThreshold"
ENV_DYN_SYSTEM_ENABLED = "DYN_SYSTEM_ENABLED"
ENV_DYN_SYSTEM_PORT = "DYN_SYSTEM_PORT"
ENV_DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS = "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS"
ENV_DYN_HEALTH_CHECK_ENABLED = "DYN_HEALTH_CHECK_ENABLED"
ENV_DYN_FORWARDPASS_METRIC_PORT = "DYN_FORWARDPASS_METRIC_PORT"
ENDPOINT_HEALTH_STATUS = '["generate"]'


def system_env() -> list[dict[str, Any]]:
    """The system-server switch and port (shared with the runtime sidecar)."""
    return [env(ENV_DYN_SYSTEM_ENABLED, "true"), env(ENV_DYN_SYSTEM_PORT, str(DYNAMO_SYSTEM_PORT))]


def worker_suffix_env(ctx: DefaultsContext) -> list[dict[str, Any]]:
    """``DYN_NAMESPACE_WORKER_SUFFIX`` when the worker hash is known."""
    if ctx.worker_hash_suffix:
        return [env(DYNAMO_NAMESPACE_WORKER_SUFFIX_ENV_VAR, ctx.worker_hash_suffix)]
    return []


def base_container(ctx: DefaultsContext) -> dict[str, Any]:
    container = common_container(ctx)
    version = ctx.runtime_version
    container["ports"] = [
        tcp_port(DYNAMO_SYSTEM_PORT_NAME, DYNAMO_SYSTEM_PORT),
        tcp_port(DYNAMO_NIXL_PORT_NAME, DYNAMO_NIXL_PORT),
    ]
    liveness_failures = 3 if gate_on(GATE_INCREASED_WORKER_FAILURE_THRESHOLD, version) else 1
    container["livenessProbe"] = http_probe(
        "/live", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=5, timeoutSeconds=4, failureThreshold=liveness_failures,
    )
    container["readinessProbe"] = http_probe(
        "/health", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=10, timeoutSeconds=4, failureThreshold=3,
    )
    container["startupProbe"] = http_probe(
        "/live", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=10, timeoutSeconds=5, failureThreshold=720,
    )
    health_checks = "true" if gate_on(GATE_CANARY_HEALTH_CHECKS, version) else "false"
    container["env"] += [
        env(ENV_DYN_SYSTEM_ENABLED, "true"),
        env(ENV_DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS, ENDPOINT_HEALTH_STATUS),
        env(ENV_DYN_SYSTEM_PORT, str(DYNAMO_SYSTEM_PORT)),
        env(ENV_DYN_HEALTH_CHECK_ENABLED, health_checks),
        env("NIXL_TELEMETRY_ENABLE", "n"),
        env("NIXL_TELEMETRY_EXPORTER", "prometheus"),
        env("NIXL_TELEMETRY_PROMETHEUS_PORT", str(DYNAMO_NIXL_PORT)),
        env(ENV_DYN_FORWARDPASS_METRIC_PORT, str(DYNAMO_FPM_BASE_PORT)),
        *worker_suffix_env(ctx),
    ]
    return container


def base_pod_spec(ctx: DefaultsContext) -> dict[str, Any]:
    return common_pod_spec(ctx)
