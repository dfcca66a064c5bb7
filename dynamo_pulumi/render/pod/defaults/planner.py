"""Planner defaults (rendering-core section 3.4): metrics on 9085, system server on 9090.

The planner runs under the shared ``planner-serviceaccount`` (its RBAC lets it scale workers).
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    DYNAMO_METRICS_PORT_NAME,
    DYNAMO_PLANNER_METRICS_PORT,
    DYNAMO_SYSTEM_PORT,
    DYNAMO_SYSTEM_PORT_NAME,
    PLANNER_SERVICE_ACCOUNT_NAME,
)
from dynamo_pulumi.render.pod.defaults.common import (
    DefaultsContext,
    common_container,
    common_pod_spec,
    env,
    http_probe,
    tcp_port,
)

ENV_PLANNER_PROMETHEUS_PORT = "PLANNER_PROMETHEUS_PORT"


def base_container(ctx: DefaultsContext) -> dict[str, Any]:
    container = common_container(ctx)
    container["ports"] = [
        tcp_port(DYNAMO_METRICS_PORT_NAME, DYNAMO_PLANNER_METRICS_PORT),
        tcp_port(DYNAMO_SYSTEM_PORT_NAME, DYNAMO_SYSTEM_PORT),
    ]
    container["livenessProbe"] = http_probe(
        "/live", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=5, timeoutSeconds=4, failureThreshold=1,
    )
    container["readinessProbe"] = http_probe(
        "/health", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=10, timeoutSeconds=4, failureThreshold=3,
    )
    # The planner waits for workers before it serves, so it gets the workers' two-hour budget.
    container["startupProbe"] = http_probe(
        "/live", DYNAMO_SYSTEM_PORT_NAME, periodSeconds=10, timeoutSeconds=5, failureThreshold=720,
    )
    container["env"] += [
        env(ENV_PLANNER_PROMETHEUS_PORT, str(DYNAMO_PLANNER_METRICS_PORT)),
        env("DYN_SYSTEM_PORT", str(DYNAMO_SYSTEM_PORT)),
    ]
    return container


def base_pod_spec(ctx: DefaultsContext) -> dict[str, Any]:
    spec = common_pod_spec(ctx)
    spec["serviceAccountName"] = PLANNER_SERVICE_ACCOUNT_NAME
    return spec
