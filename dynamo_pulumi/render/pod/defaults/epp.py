"""EPP (endpoint picker) defaults (rendering-core section 3.5, Example 11).

Two pod contracts exist, chosen by whether the deprecated ``eppConfig`` is present (admission
ties that choice to the runtime version: required below 1.5.0, forbidden from 1.5.0):

* **native Rust EPP** (no ``eppConfig``): the image entrypoint runs with no args, configured by
  env only; ``HOME=/home/dynamo`` with an ``hf-cache`` emptyDir under it for model configs, and
  router replica sync when there is more than one replica;
* **legacy Go EPP** (``eppConfig`` set): CLI args naming the InferencePool and the config file,
  which is mounted read-only from the ``<dgd>-epp-config`` ConfigMap (or the user's configMapRef).
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import (
    DYNAMO_METRICS_PORT_NAME,
    DYNAMO_NAMESPACE_PREFIX_ENV_VAR,
    EPP_CONFIG_FILE_NAME,
    EPP_CONFIG_MAP_SUFFIX,
    EPP_CONFIG_MOUNT_PATH,
    EPP_CONFIG_VOLUME_NAME,
    EPP_GRPC_HEALTH_PORT,
    EPP_GRPC_HEALTH_PORT_NAME,
    EPP_GRPC_PORT,
    EPP_GRPC_PORT_NAME,
    EPP_METRICS_PORT,
    EPP_SERVICE_ACCOUNT_NAME,
    EPP_TERMINATION_GRACE_PERIOD_SECONDS,
    INFERENCE_POOL_API_GROUP,
    INFERENCE_POOL_NAME_SUFFIX,
)
from dynamo_pulumi.render.pod.defaults.common import (
    DefaultsContext,
    common_container,
    common_pod_spec,
    env,
    tcp_port,
)
from dynamo_pulumi.render.pod.defaults.frontend import strict_prefix_env

EPP_GRPC_HEALTH_SERVICE = "inference-extension"
HF_CACHE_VOLUME_NAME = "hf-cache"
NATIVE_EPP_HOME = "/home/dynamo"
NATIVE_EPP_CACHE_MOUNT_PATH = f"{NATIVE_EPP_HOME}/.cache"
ENV_DYN_ROUTER_REPLICA_SYNC = "DYN_ROUTER_REPLICA_SYNC"


def is_legacy(ctx: DefaultsContext) -> bool:
    """Presence of ``eppConfig`` (even ``{}``) selects the legacy Go EPP contract."""
    return ctx.epp_config is not None


def _grpc_probe(**timings: int) -> dict[str, Any]:
    probe: dict[str, Any] = {"grpc": {"port": EPP_GRPC_HEALTH_PORT, "service": EPP_GRPC_HEALTH_SERVICE}}
    probe.update({k: v for k, v in timings.items() if v})
    return probe


def config_volume(ctx: DefaultsContext) -> dict[str, Any]:
    """``GetConfigMapVolumeMount``: the EPP config file, always at the same path in the pod."""
    config_map = f"{ctx.parent_name}{EPP_CONFIG_MAP_SUFFIX}"
    key = EPP_CONFIG_FILE_NAME
    ref = ctx.epp_config.config_map_ref if ctx.epp_config is not None else None
    if ref is not None:
        config_map = ref.name or ""
        key = ref.key or key
    return {
        "name": EPP_CONFIG_VOLUME_NAME,
        "configMap": {"name": config_map, "items": [{"key": key, "path": EPP_CONFIG_FILE_NAME}]},
    }


def _legacy_args(ctx: DefaultsContext) -> list[str]:
    return [
        "--pool-name", f"{ctx.parent_name}{INFERENCE_POOL_NAME_SUFFIX}",
        "--pool-namespace", ctx.parent_namespace,
        "--pool-group", INFERENCE_POOL_API_GROUP,
        "-v", "4",
        "--zap-encoder", "json",
        "--grpc-port", str(EPP_GRPC_PORT),
        "--grpc-health-port", str(EPP_GRPC_HEALTH_PORT),
        "--config-file", f"{EPP_CONFIG_MOUNT_PATH}/{EPP_CONFIG_FILE_NAME}",
    ]


def base_container(ctx: DefaultsContext) -> dict[str, Any]:
    container = common_container(ctx)
    container["ports"] = [
        tcp_port(EPP_GRPC_PORT_NAME, EPP_GRPC_PORT),
        tcp_port(EPP_GRPC_HEALTH_PORT_NAME, EPP_GRPC_HEALTH_PORT),
        tcp_port(DYNAMO_METRICS_PORT_NAME, EPP_METRICS_PORT),
    ]
    container["livenessProbe"] = _grpc_probe(initialDelaySeconds=5, periodSeconds=10)
    container["readinessProbe"] = _grpc_probe(initialDelaySeconds=5, periodSeconds=10)
    # The EPP waits for workers to register; this probe is its only start-up deadline (30 min).
    container["startupProbe"] = _grpc_probe(periodSeconds=10, failureThreshold=180)
    container["env"] += [
        env("USE_STREAMING", "true"),
        env("RUST_LOG", "info"),
        env("DYN_ENFORCE_DISAGG", "false"),
        env(DYNAMO_NAMESPACE_PREFIX_ENV_VAR, ctx.dynamo_namespace),
        *strict_prefix_env(ctx),
    ]
    container["command"] = []
    if is_legacy(ctx):
        container["args"] = _legacy_args(ctx)
        container["volumeMounts"] = [
            {"name": EPP_CONFIG_VOLUME_NAME, "mountPath": EPP_CONFIG_MOUNT_PATH, "readOnly": True},
        ]
        return container
    container["args"] = []
    container["env"].append(env("HOME", NATIVE_EPP_HOME))
    if ctx.replicas > 1:
        container["env"].append(env(ENV_DYN_ROUTER_REPLICA_SYNC, "true"))
    container["volumeMounts"] = [{"name": HF_CACHE_VOLUME_NAME, "mountPath": NATIVE_EPP_CACHE_MOUNT_PATH}]
    return container


def base_pod_spec(ctx: DefaultsContext) -> dict[str, Any]:
    spec = common_pod_spec(ctx)
    spec["serviceAccountName"] = EPP_SERVICE_ACCOUNT_NAME
    spec["terminationGracePeriodSeconds"] = EPP_TERMINATION_GRACE_PERIOD_SECONDS
    if is_legacy(ctx):
        spec["volumes"] = [config_volume(ctx)]
    else:
        spec["volumes"] = [{"name": HF_CACHE_VOLUME_NAME, "emptyDir": {}}]
    return spec
