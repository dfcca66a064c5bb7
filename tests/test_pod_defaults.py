"""Base containers per component type (rendering-core section 3), with and without runtime gates."""

from __future__ import annotations

import dataclasses

from dynamo_pulumi.api.v1beta1 import EPPConfig
from dynamo_pulumi.model.runtime_version import Version
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.pod.defaults import DefaultsContext, defaults_for
from dynamo_pulumi.render.pod.defaults.common import standard_env

FIELD_REFS = [
    {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
    {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
    {"name": "POD_UID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}},
]


def ctx(component_type: str, version: Version | None = None, **kw) -> DefaultsContext:
    base = DefaultsContext(
        dynamo_namespace="dynamo-namespace",
        component_type=component_type,
        parent_name="name",
        parent_namespace="namespace",
        runtime_version=version,
    )
    return dataclasses.replace(base, **kw)


def env_of(container) -> dict:
    return {e["name"]: e.get("value") for e in container["env"]}


# --- common -----------------------------------------------------------------------------------------


def test_frontend_base_container_matches_example_5():
    container = defaults_for("frontend").base_container(ctx("frontend"))
    assert container == {
        "name": "main",
        "command": ["python3"],
        "args": ["-m", "dynamo.frontend"],
        "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
        "livenessProbe": {
            "httpGet": {"path": "/live", "port": "http"},
            "initialDelaySeconds": 15, "periodSeconds": 10, "timeoutSeconds": 1, "failureThreshold": 3,
        },
        "readinessProbe": {
            "httpGet": {"path": "/health", "port": "http"},
            "initialDelaySeconds": 10, "periodSeconds": 10, "timeoutSeconds": 3, "failureThreshold": 3,
        },
        "env": [
            {"name": "DYN_NAMESPACE", "value": "dynamo-namespace"},
            {"name": "DYN_COMPONENT", "value": "frontend"},
            {"name": "DYN_PARENT_DGD_K8S_NAME", "value": "name"},
            {"name": "DYN_PARENT_DGD_K8S_NAMESPACE", "value": "namespace"},
            *FIELD_REFS,
            {"name": "DYN_DISCOVERY_BACKEND", "value": "kubernetes"},
            {"name": "DYNAMO_PORT", "value": "8000"},
            {"name": "DYN_HTTP_PORT", "value": "8000"},
            {"name": "DYN_NAMESPACE_PREFIX", "value": "dynamo-namespace"},
        ],
    }


def test_etcd_discovery_drops_the_discovery_backend_env():
    container = defaults_for(None).base_container(ctx("", discovery_backend="etcd"))
    assert "DYN_DISCOVERY_BACKEND" not in env_of(container)


def test_empty_discovery_backend_still_gets_kubernetes_env():
    container = defaults_for(None).base_container(ctx("", discovery_backend=""))
    assert env_of(container)["DYN_DISCOVERY_BACKEND"] == "kubernetes"


def test_container_discovery_mode_names_the_container():
    container = defaults_for("worker").base_container(ctx("worker", discovery_mode="container"))
    assert env_of(container)["CONTAINER_NAME"] == "main"
    assert env_of(container)["DYN_KUBE_DISCOVERY_MODE"] == "container"


def test_untyped_component_gets_only_the_common_container():
    container = defaults_for(None).base_container(ctx(""))
    assert container["command"] == ["/bin/sh", "-c"]
    assert set(container) == {"name", "command", "env"}
    assert env_of(container)["DYN_COMPONENT"] == ""
    assert defaults_for("lpx").base_pod_spec(ctx("lpx")) == {"terminationGracePeriodSeconds": 60, "restartPolicy": "Always"}


def test_standard_env_lists_each_configured_endpoint_and_tls_path():
    platform = Platform.model_validate(
        {"infrastructure": {"natsAddress": "nats://n:4222", "tcpTLSCertPath": "/c/tls.crt", "natsTLSCAPath": "/c/ca.crt"}}
    )
    assert standard_env(platform) == [
        {"name": "NATS_SERVER", "value": "nats://n:4222"},
        {"name": "NATS_TLS_CA_CERT_PATH", "value": "/c/ca.crt"},
        {"name": "DYN_TCP_TLS_CERT_PATH", "value": "/c/tls.crt"},
    ]
    assert standard_env(Platform()) == []


# --- frontend gates -----------------------------------------------------------------------------


def test_frontend_startup_probe_and_strict_prefix_start_at_1_6_0():
    for version in (Version(1, 6, 0), Version(2, 0, 0)):
        container = defaults_for("frontend").base_container(ctx("frontend", version))
        assert container["startupProbe"] == {
            "httpGet": {"path": "/live", "port": "http"}, "periodSeconds": 10, "timeoutSeconds": 1, "failureThreshold": 30,
        }
        assert env_of(container)["DYN_NAMESPACE_PREFIX_STRICT"] == "true"


def test_frontend_below_1_6_0_or_unknown_has_no_startup_probe_or_strict_prefix():
    for version in (None, Version(1, 5, 9)):
        container = defaults_for("frontend").base_container(ctx("frontend", version))
        assert "startupProbe" not in container
        assert "DYN_NAMESPACE_PREFIX_STRICT" not in env_of(container)


# --- worker -------------------------------------------------------------------------------------


def test_worker_defaults_with_unknown_runtime_follow_the_snapshot():
    container = defaults_for("decode").base_container(ctx("decode"))
    env = env_of(container)
    assert env["DYN_HEALTH_CHECK_ENABLED"] == "false"
    assert container["livenessProbe"]["failureThreshold"] == 1
    assert env["DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS"] == '["generate"]'
    assert env["DYN_FORWARDPASS_METRIC_PORT"] == "20380"
    assert env["NIXL_TELEMETRY_PROMETHEUS_PORT"] == "19090"
    assert container["ports"] == [
        {"name": "system", "containerPort": 9090, "protocol": "TCP"},
        {"name": "nixl", "containerPort": 19090, "protocol": "TCP"},
    ]
    assert container["startupProbe"] == {
        "httpGet": {"path": "/live", "port": "system"}, "periodSeconds": 10, "timeoutSeconds": 5, "failureThreshold": 720,
    }
    assert "DYN_NAMESPACE_WORKER_SUFFIX" not in env


def test_worker_canary_health_checks_and_liveness_threshold_start_at_1_5_0():
    for version, health, failures in (
        (Version(1, 4, 9), "false", 1),
        (Version(1, 5, 0), "true", 3),
        (Version(2, 0, 0), "true", 3),
    ):
        container = defaults_for("worker").base_container(ctx("worker", version))
        assert env_of(container)["DYN_HEALTH_CHECK_ENABLED"] == health
        assert container["livenessProbe"]["failureThreshold"] == failures


def test_worker_hash_becomes_the_namespace_worker_suffix():
    container = defaults_for("prefill").base_container(ctx("prefill", worker_hash_suffix="abcd1234"))
    assert container["env"][-1] == {"name": "DYN_NAMESPACE_WORKER_SUFFIX", "value": "abcd1234"}


# --- planner ------------------------------------------------------------------------------------


def test_planner_ports_probes_env_and_service_account():
    defaults = defaults_for("planner")
    container = defaults.base_container(ctx("planner", Version(1, 6, 0)))
    assert [p["containerPort"] for p in container["ports"]] == [9085, 9090]
    assert container["livenessProbe"]["failureThreshold"] == 1
    assert env_of(container)["PLANNER_PROMETHEUS_PORT"] == "9085"
    assert env_of(container)["DYN_SYSTEM_PORT"] == "9090"
    assert defaults.base_pod_spec(ctx("planner"))["serviceAccountName"] == "planner-serviceaccount"


# --- EPP ----------------------------------------------------------------------------------------


def test_native_epp_runs_the_entrypoint_with_home_and_hf_cache():
    defaults = defaults_for("epp")
    container = defaults.base_container(ctx("epp", Version(1, 5, 0)))
    assert container["command"] == [] and container["args"] == []
    assert env_of(container)["HOME"] == "/home/dynamo"
    assert container["volumeMounts"] == [{"name": "hf-cache", "mountPath": "/home/dynamo/.cache"}]
    assert "DYN_ROUTER_REPLICA_SYNC" not in env_of(container)
    pod = defaults.base_pod_spec(ctx("epp", Version(1, 5, 0)))
    assert pod == {
        "terminationGracePeriodSeconds": 130,
        "restartPolicy": "Always",
        "serviceAccountName": "epp-serviceaccount",
        "volumes": [{"name": "hf-cache", "emptyDir": {}}],
    }


def test_native_epp_syncs_router_replicas_only_with_more_than_one_replica():
    container = defaults_for("epp").base_container(ctx("epp", Version(1, 5, 0), replicas=2))
    assert env_of(container)["DYN_ROUTER_REPLICA_SYNC"] == "true"


def test_legacy_epp_is_selected_by_epp_config_even_when_empty():
    legacy = ctx("epp", None, epp_config=EPPConfig())
    container = defaults_for("epp").base_container(legacy)
    assert container["args"] == [
        "--pool-name", "name-pool", "--pool-namespace", "namespace",
        "--pool-group", "inference.networking.k8s.io", "-v", "4", "--zap-encoder", "json",
        "--grpc-port", "9002", "--grpc-health-port", "9003",
        "--config-file", "/etc/epp/epp-config-dynamo.yaml",
    ]
    assert container["volumeMounts"] == [{"name": "epp-config", "mountPath": "/etc/epp", "readOnly": True}]
    assert "HOME" not in env_of(container)
    assert defaults_for("epp").base_pod_spec(legacy)["volumes"] == [
        {"name": "epp-config", "configMap": {"name": "name-epp-config",
                                             "items": [{"key": "epp-config-dynamo.yaml", "path": "epp-config-dynamo.yaml"}]}},
    ]


def test_legacy_epp_config_map_ref_names_the_config_map_and_key():
    legacy = ctx("epp", None, epp_config=EPPConfig.model_validate({"configMapRef": {"name": "mine", "key": "cfg.yaml"}}))
    volume = defaults_for("epp").base_pod_spec(legacy)["volumes"][0]
    assert volume["configMap"] == {"name": "mine", "items": [{"key": "cfg.yaml", "path": "epp-config-dynamo.yaml"}]}


def test_epp_probes_are_grpc_on_the_health_port():
    container = defaults_for("epp").base_container(ctx("epp", Version(1, 5, 0)))
    grpc = {"port": 9003, "service": "inference-extension"}
    assert container["livenessProbe"] == {"grpc": grpc, "initialDelaySeconds": 5, "periodSeconds": 10}
    assert container["startupProbe"] == {"grpc": grpc, "periodSeconds": 10, "failureThreshold": 180}


def test_epp_strict_namespace_prefix_follows_the_runtime_version():
    assert "DYN_NAMESPACE_PREFIX_STRICT" not in env_of(defaults_for("epp").base_container(ctx("epp", Version(1, 5, 9))))
    strict = env_of(defaults_for("epp").base_container(ctx("epp", Version(1, 7, 0))))
    assert strict["DYN_NAMESPACE_PREFIX_STRICT"] == "true"
    assert strict["DYN_NAMESPACE_PREFIX"] == "dynamo-namespace"
