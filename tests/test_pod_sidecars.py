"""Dynamo runtime sidecar mode and the frontend sidecar (rendering-core section 5, Examples 9 and 10)."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.context import ComponentRenderContext
from dynamo_pulumi.render.pod import build_pod_spec

PLATFORM = Platform.model_validate(
    {
        "infrastructure": {
            "natsAddress": "nats://nats:4222",
            "etcdAddress": "http://etcd:2379",
            "tcpTLSCertPath": "/certs/tls.crt",
            "natsTLSCAPath": "/certs/ca.crt",
        },
        "imagePullSecrets": ["runtime-pull-secret"],
    }
)


def make_ctx(spec: dict[str, Any], platform: Platform = PLATFORM, **kw: Any) -> ComponentRenderContext:
    dcd = DynamoComponentDeployment.model_validate({"metadata": {"name": "test-worker"}, "spec": spec})
    fields: dict[str, Any] = {
        "dcd": dcd, "dcd_name": "test-worker", "graph_name": "test", "namespace": "test",
        "dynamo_namespace": "test-test", "platform": platform, "backend_framework": "vllm",
    }
    return ComponentRenderContext(**(fields | kw))


def env_of(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value") for e in container.get("env") or []}


def native_sidecar_spec(component_type: str) -> dict[str, Any]:
    """Example 9 as the DCD looks after the DGD stage (graph env and kv policy on ``runtime``)."""
    return {
        "type": component_type,
        "frontendSidecar": "frontend",
        "compilationCache": {"pvcName": "cache", "mountPath": "/cache"},
        "podTemplate": {
            "metadata": {
                "annotations": {"nvidia.com/dynamo-kube-discovery-mode": "container"},
                "labels": {"nvidia.com/dynamo-worker-hash": "abc123"},
            },
            "spec": {
                "containers": [
                    {"name": "main", "image": "vllm/vllm-openai:latest", "command": ["vllm-rs"], "args": ["serve", "model"],
                     "resources": {"limits": {"nvidia.com/gpu": "1"}}, "env": [{"name": "GLOBAL", "value": "engine"}]},
                    {"name": "frontend", "image": "frontend:1.5.0",
                     "env": [{"name": "ETCD_ENDPOINTS", "value": "frontend-etcd:2379"}]},
                ],
                "initContainers": [
                    {"name": "setup", "image": "setup:latest"},
                    {"name": "runtime", "image": "runtime:1.5.0", "restartPolicy": "Always",
                     "env": [
                         {"name": "DYN_KV_TRANSFER_ENFORCEMENT", "value": "required"},
                         {"name": "GLOBAL", "value": "runtime"},
                         {"name": "NATS_TLS_CA_CERT_PATH", "value": "/runtime/ca.crt"},
                         {"name": "SHARED", "value": "value"},
                     ],
                     "volumeMounts": [{"name": "topology-labels", "mountPath": "/etc/dynamo/topology", "readOnly": True}],
                     "startupProbe": {"exec": {"command": ["true"]}}},
                ],
            },
        },
    }


@pytest.mark.parametrize("component_type", ["worker", "prefill", "decode"])
def test_runtime_init_container_gets_runtime_defaults_and_keeps_user_values(component_type):
    pod = build_pod_spec(make_ctx(native_sidecar_spec(component_type)))
    assert pod["initContainers"][0] == {"name": "setup", "image": "setup:latest"}
    runtime = pod["initContainers"][1]
    assert "command" not in runtime
    assert runtime["restartPolicy"] == "Always"
    assert runtime["startupProbe"] == {"exec": {"command": ["true"]}}
    assert runtime["readinessProbe"]["httpGet"]["path"] == "/health"
    assert runtime["ports"] == [{"name": "system", "containerPort": 9090, "protocol": "TCP"}]
    assert "resources" not in runtime
    env = env_of(runtime)
    assert env["CONTAINER_NAME"] == "runtime"
    assert env["NATS_SERVER"] == "nats://nats:4222"
    assert env["ETCD_ENDPOINTS"] == "http://etcd:2379"
    assert env["DYN_TCP_TLS_CERT_PATH"] == "/certs/tls.crt"
    assert env["NATS_TLS_CA_CERT_PATH"] == "/runtime/ca.crt"
    assert env["DYN_COMPONENT"] == component_type
    assert env["GLOBAL"] == "runtime" and env["SHARED"] == "value"
    assert env["DYN_NAMESPACE_WORKER_SUFFIX"] == "abc123"
    assert env["DYN_KV_TRANSFER_ENFORCEMENT"] == "required"
    for engine_only in ("DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "DYN_HEALTH_CHECK_ENABLED",
                        "NIXL_TELEMETRY_ENABLE", "DYN_FORWARDPASS_METRIC_PORT"):
        assert engine_only not in env
    assert {"name": "topology-labels", "mountPath": "/etc/dynamo/topology", "readOnly": True} in runtime["volumeMounts"]


def test_runtime_sidecar_probe_defaults():
    spec = native_sidecar_spec("worker")
    del spec["podTemplate"]["spec"]["initContainers"][1]["startupProbe"]
    runtime = build_pod_spec(make_ctx(spec))["initContainers"][1]
    assert runtime["startupProbe"] == {"httpGet": {"path": "/live", "port": "system"},
                                       "periodSeconds": 2, "timeoutSeconds": 1, "failureThreshold": 30}
    assert runtime["livenessProbe"] == {"httpGet": {"path": "/live", "port": "system"},
                                        "periodSeconds": 5, "timeoutSeconds": 4, "failureThreshold": 3}
    assert runtime["readinessProbe"] == {"httpGet": {"path": "/health", "port": "system"},
                                         "periodSeconds": 5, "timeoutSeconds": 4, "failureThreshold": 3}


def test_engine_main_keeps_user_launch_and_gets_only_cache_and_shm():
    main = build_pod_spec(make_ctx(native_sidecar_spec("worker")))["containers"][0]
    assert main["command"] == ["vllm-rs"] and main["args"] == ["serve", "model"]
    assert main["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    for absent in ("livenessProbe", "readinessProbe", "startupProbe", "ports"):
        assert absent not in main
    env = env_of(main)
    assert env["GLOBAL"] == "engine"
    for absent in ("DYN_NAMESPACE", "NATS_SERVER", "ETCD_ENDPOINTS", "DYN_TCP_TLS_CERT_PATH"):
        assert absent not in env
    mounts = [m["name"] for m in main["volumeMounts"]]
    assert mounts[:2] == ["cache", "shared-memory"]
    assert "topology-labels" not in mounts


def test_frontend_sidecar_next_to_runtime_sidecar():
    frontend = build_pod_spec(make_ctx(native_sidecar_spec("worker")))["containers"][1]
    assert frontend["name"] == "frontend"
    assert frontend["readinessProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    env = env_of(frontend)
    assert env["CONTAINER_NAME"] == "frontend"
    assert env["NATS_SERVER"] == "nats://nats:4222"
    assert env["ETCD_ENDPOINTS"] == "frontend-etcd:2379"
    assert env["DYN_TCP_TLS_CERT_PATH"] == "/certs/tls.crt"
    assert env["NATS_TLS_CA_CERT_PATH"] == "/certs/ca.crt"
    assert env["DYN_COMPONENT"] == "frontend"
    assert {"name": "cache", "mountPath": "/cache"} in frontend["volumeMounts"]


def test_sidecar_mode_pods_get_pull_secrets_for_init_container_images():
    spec = native_sidecar_spec("worker")
    for container in spec["podTemplate"]["spec"]["containers"]:
        del container["image"]
    pod = build_pod_spec(make_ctx(spec))
    assert pod["imagePullSecrets"] == [{"name": "runtime-pull-secret"}]


def test_runtime_init_container_on_a_frontend_is_not_sidecar_mode():
    spec = native_sidecar_spec("frontend")
    del spec["frontendSidecar"]
    pod = build_pod_spec(make_ctx(spec))
    assert pod["initContainers"][1]["env"] == spec["podTemplate"]["spec"]["initContainers"][1]["env"]
    assert pod["containers"][0]["args"] == ["serve", "model"]
    assert env_of(pod["containers"][0])["DYN_COMPONENT"] == "frontend"


# --- Example 10: frontend sidecar version independence -------------------------------------------


def frontend_sidecar_spec(worker_image: str, sidecar_image: str, override: str | None = None,
                          sidecar_env: list[dict[str, str]] | None = None) -> dict[str, Any]:
    sidecar: dict[str, Any] = {"name": "sidecar-frontend", "image": sidecar_image}
    if sidecar_env:
        sidecar["env"] = sidecar_env
    spec: dict[str, Any] = {
        "type": "worker",
        "frontendSidecar": "sidecar-frontend",
        "podTemplate": {"spec": {"containers": [
            {"name": "main", "image": worker_image, "command": ["python3"], "args": ["-m", "dynamo.vllm"]},
            sidecar,
            {"name": "other-sidecar", "image": "frontend:1.7.0"},
        ]}},
    }
    if override:
        spec["runtimeVersionOverride"] = override
    return spec


@pytest.mark.parametrize(
    ("worker_image", "sidecar_image", "override", "sidecar_env", "strict"),
    [
        ("worker:1.5.0", "frontend:1.5.0", None, None, None),
        ("worker:1.5.0", "frontend:1.6.0", None, None, "true"),
        ("worker:1.6.0", "frontend:1.5.0", None, None, None),
        ("worker:1.6.0", "frontend:1.6.0", None, None, "true"),
        ("worker:custom", "frontend:custom", "1.6.0", None, None),
        ("worker:1.6.0", "frontend@sha256:" + "a" * 64, None, None, None),
        ("worker:1.5.0", "frontend:custom", None, [{"name": "DYN_NAMESPACE_PREFIX_STRICT", "value": "true"}], "true"),
        ("worker:1.5.0", "frontend:1.6.0", None, [{"name": "DYN_NAMESPACE_PREFIX_STRICT", "value": "false"}], "false"),
    ],
)
def test_frontend_sidecar_strict_prefix_follows_its_own_image(worker_image, sidecar_image, override, sidecar_env, strict):
    ctx = make_ctx(frontend_sidecar_spec(worker_image, sidecar_image, override, sidecar_env),
                   platform=Platform(), graph_name="foo", namespace="default", dynamo_namespace="default-foo")
    pod = build_pod_spec(ctx)
    sidecar = pod["containers"][1]
    assert sidecar["name"] == "sidecar-frontend" and sidecar["image"] == sidecar_image
    assert env_of(sidecar)["DYN_NAMESPACE_PREFIX"] == "default-foo"
    assert env_of(sidecar).get("DYN_NAMESPACE_PREFIX_STRICT") == strict
    assert pod["containers"][2] == {"name": "other-sidecar", "image": "frontend:1.7.0"}


def test_frontend_sidecar_startup_probe_follows_its_own_image():
    pod = build_pod_spec(make_ctx(frontend_sidecar_spec("worker:1.5.0", "frontend:1.6.0")))
    assert pod["containers"][1]["startupProbe"]["failureThreshold"] == 30
    pod = build_pod_spec(make_ctx(frontend_sidecar_spec("worker:1.6.0", "frontend:1.5.0")))
    assert "startupProbe" not in pod["containers"][1]


def test_frontend_sidecar_must_name_a_container():
    spec = frontend_sidecar_spec("worker:1.5.0", "frontend:1.5.0")
    spec["frontendSidecar"] = "missing"
    with pytest.raises(RenderError, match='frontendSidecar "missing" does not match any podTemplate container'):
        build_pod_spec(make_ctx(spec))


def test_frontend_sidecar_inherits_main_mounts_captured_before_shm():
    spec = frontend_sidecar_spec("worker:1.5.0", "frontend:1.5.0")
    spec["podTemplate"]["spec"]["containers"][0]["volumeMounts"] = [{"name": "models", "mountPath": "/models"}]
    spec["podTemplate"]["spec"]["containers"][1]["volumeMounts"] = [{"name": "models", "mountPath": "/elsewhere"}]
    spec["podTemplate"]["spec"]["volumes"] = [{"name": "models", "emptyDir": {}}]
    pod = build_pod_spec(make_ctx(spec, platform=Platform()))
    assert pod["containers"][1]["volumeMounts"] == [{"name": "models", "mountPath": "/elsewhere"}]
    spec["podTemplate"]["spec"]["containers"][1].pop("volumeMounts")
    pod = build_pod_spec(make_ctx(spec, platform=Platform()))
    assert pod["containers"][1]["volumeMounts"] == [{"name": "models", "mountPath": "/models"}]
