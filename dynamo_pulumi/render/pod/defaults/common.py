"""The part of the base container every component type shares (rendering-core section 3.1).

Also home of :class:`DefaultsContext`, the operator's ``ComponentContext``: the few facts the
per-type defaults read, resolved once by the assembler (or by the frontend-sidecar merge, which
builds its own with the type forced to ``frontend``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor.constants import (
    DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
    DISCOVERY_BACKEND_ETCD,
    DISCOVERY_BACKEND_KUBERNETES,
    DYNAMO_COMPONENT_ENV_VAR,
    DYNAMO_DISCOVERY_BACKEND_ENV_VAR,
    DYNAMO_NAMESPACE_ENV_VAR,
    ENV_PARENT_DGD_K8S_NAME,
    ENV_PARENT_DGD_K8S_NAMESPACE,
    MAIN_CONTAINER_NAME,
)
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.model.runtime_version import Version, runtime_gate_enabled

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import EPPConfig
    from dynamo_pulumi.platform import Platform

#: ``KubeDiscoveryMode`` values (``configv1alpha1``).
KUBE_DISCOVERY_MODE_POD = "pod"
KUBE_DISCOVERY_MODE_CONTAINER = "container"
ENV_CONTAINER_NAME = "CONTAINER_NAME"
ENV_DYN_KUBE_DISCOVERY_MODE = "DYN_KUBE_DISCOVERY_MODE"
DEFAULT_COMMAND: tuple[str, ...] = ("/bin/sh", "-c")

def gate_on(gate: str, version: Version | None) -> bool:
    """Whether a runtime gate (``runtime_version.RUNTIME_GATES``) is on; unknown versions turn it off."""
    return runtime_gate_enabled(gate, version)


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class DefaultsContext:
    """The operator's ``ComponentContext`` plus the resolved runtime version."""

    dynamo_namespace: str
    #: The workload component type ("" for none): drives ``DYN_COMPONENT`` and the defaults chosen.
    component_type: str
    parent_name: str
    parent_namespace: str
    discovery_backend: str = DISCOVERY_BACKEND_KUBERNETES
    discovery_mode: str = KUBE_DISCOVERY_MODE_POD
    number_of_nodes: int = 1
    epp_config: EPPConfig | None = None
    #: ``DYN_NAMESPACE_WORKER_SUFFIX`` for worker types, "" when the worker hash is unknown.
    worker_hash_suffix: str = ""
    runtime_version: Version | None = None
    #: The container the defaults are for (``CONTAINER_NAME`` in container discovery mode).
    container_name: str = MAIN_CONTAINER_NAME
    #: Effective replicas of the component (the native EPP syncs router state when > 1).
    replicas: int = 1


def field_ref_env(name: str, field_path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def env(name: str, value: str) -> dict[str, Any]:
    return {"name": name, "value": value}


def http_probe(path: str, port: str, **timings: int) -> dict[str, Any]:
    """An httpGet probe; timings are given in the operator's order and zero ones are omitted."""
    probe: dict[str, Any] = {"httpGet": {"path": path, "port": port}}
    probe.update({k: v for k, v in timings.items() if v})
    return probe


def tcp_port(name: str, number: int) -> dict[str, Any]:
    return {"name": name, "containerPort": number, "protocol": "TCP"}


def common_env(ctx: DefaultsContext) -> list[dict[str, Any]]:
    """Identity and discovery env, in the operator's construction order."""
    items = [
        env(DYNAMO_NAMESPACE_ENV_VAR, ctx.dynamo_namespace),
        env(DYNAMO_COMPONENT_ENV_VAR, ctx.component_type),
        env(ENV_PARENT_DGD_K8S_NAME, ctx.parent_name),
        env(ENV_PARENT_DGD_K8S_NAMESPACE, ctx.parent_namespace),
        field_ref_env("POD_NAME", "metadata.name"),
        field_ref_env("POD_NAMESPACE", "metadata.namespace"),
        field_ref_env("POD_UID", "metadata.uid"),
    ]
    # Only a backend spelled exactly "etcd" turns Kubernetes discovery off in the runtime.
    if ctx.discovery_backend != DISCOVERY_BACKEND_ETCD:
        items.append(env(DYNAMO_DISCOVERY_BACKEND_ENV_VAR, DISCOVERY_BACKEND_KUBERNETES))
    if ctx.discovery_mode == KUBE_DISCOVERY_MODE_CONTAINER:
        items.append(env(ENV_CONTAINER_NAME, ctx.container_name))
        items.append(env(ENV_DYN_KUBE_DISCOVERY_MODE, KUBE_DISCOVERY_MODE_CONTAINER))
    return items


def common_container(ctx: DefaultsContext) -> dict[str, Any]:
    """``getCommonContainer``: name, ``/bin/sh -c`` and the common env."""
    return {"name": MAIN_CONTAINER_NAME, "command": list(DEFAULT_COMMAND), "env": common_env(ctx)}


def common_pod_spec(ctx: DefaultsContext) -> dict[str, Any]:
    """``getCommonPodSpec``: a 60 s grace period and ``restartPolicy: Always``."""
    return {
        "terminationGracePeriodSeconds": DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
        "restartPolicy": "Always",
    }


#: ``infrastructure`` settings (Python attribute of ``Platform.infrastructure``) -> env name, in
#: the operator's order: NATS, etcd, ModelExpress, Prometheus, then transport TLS.
STANDARD_ENV_SOURCES: tuple[tuple[str, str], ...] = (
    ("nats_address", "NATS_SERVER"),
    ("etcd_address", "ETCD_ENDPOINTS"),
    ("model_express_url", "MODEL_EXPRESS_URL"),
    ("prometheus_endpoint", "PROMETHEUS_ENDPOINT"),
    ("nats_tls_ca_path", "NATS_TLS_CA_CERT_PATH"),
    ("nats_tls_client_cert_path", "NATS_TLS_CLIENT_CERT_PATH"),
    ("nats_tls_client_key_path", "NATS_TLS_CLIENT_KEY_PATH"),
    ("tcp_tls_cert_path", "DYN_TCP_TLS_CERT_PATH"),
    ("tcp_tls_key_path", "DYN_TCP_TLS_KEY_PATH"),
    ("tcp_tls_ca_path", "DYN_TCP_TLS_CA_CERT_PATH"),
    ("tcp_tls_client_cert_path", "DYN_TCP_TLS_CLIENT_CERT_PATH"),
    ("tcp_tls_client_key_path", "DYN_TCP_TLS_CLIENT_KEY_PATH"),
    ("tcp_tls_client_ca_path", "DYN_TCP_TLS_CLIENT_CA_CERT_PATH"),
    ("tcp_tls_server_name", "DYN_TCP_TLS_SERVER_NAME"),
)


def standard_env(platform: Platform) -> list[dict[str, Any]]:
    """``AddStandardEnvVars`` plus transport TLS: one entry per non-empty platform setting."""
    infra = platform.infrastructure
    return [env(name, getattr(infra, attr)) for attr, name in STANDARD_ENV_SOURCES if getattr(infra, attr)]
