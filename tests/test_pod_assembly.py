"""Pod template assembly: build order, metadata, shared memory, fsGroup, volumes, and the worked
examples 5, 5b, 11 and 12 of rendering-core section 9 (9 and 10 are in test_pod_sidecars)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.context import ComponentRenderContext
from dynamo_pulumi.render.pod import build_pod_spec, build_pod_template

GOLDEN = Path(__file__).resolve().parents[1] / ".." / "shared" / "conformance" / "golden"


def make_ctx(spec: dict[str, Any], *, name: str = "w", labels: dict[str, str] | None = None,
             annotations: dict[str, str] | None = None, **kw: Any) -> ComponentRenderContext:
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    dcd = DynamoComponentDeployment.model_validate({"metadata": metadata, "spec": spec})
    fields: dict[str, Any] = {"dcd": dcd, "dcd_name": name, "graph_name": "", "namespace": "ns",
                              "dynamo_namespace": f"ns-{name}", "backend_framework": ""}
    return ComponentRenderContext(**(fields | kw))


def worker_spec(**extra: Any) -> dict[str, Any]:
    spec = {"type": "worker", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "w:1.4.0"}]}}}
    return spec | extra


def env_of(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value") for e in container.get("env") or []}


# --- worked examples -----------------------------------------------------------------------------


def test_example_5b_frontend_pod_template():
    dcd_labels = {"nvidia.com/dynamo-component": "Frontend", "nvidia.com/dynamo-namespace": "prod-mydgd",
                  "nvidia.com/dynamo-graph-deployment-name": "mydgd"}
    spec = {"name": "Frontend", "type": "frontend", "replicas": 2, "podTemplate": {"spec": {"containers": [
        {"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0"}]}}}
    ctx = make_ctx(spec, name="mydgd-frontend", labels=dcd_labels, graph_name="mydgd", namespace="prod",
                   dynamo_namespace="prod-mydgd")
    template = build_pod_template(ctx)
    assert template["metadata"] == {"labels": {
        **dcd_labels, "nvidia.com/dynamo-component-type": "frontend", "nvidia.com/metrics-enabled": "true",
        "nvidia.com/selector": "mydgd-frontend", "nvidia.com/dynamo-discovery-backend": "kubernetes",
        "nvidia.com/dynamo-discovery-enabled": "true"}}
    pod = template["spec"]
    assert {k: v for k, v in pod.items() if k != "containers"} == {
        "terminationGracePeriodSeconds": 60, "restartPolicy": "Always", "securityContext": {"fsGroup": 1000},
        "serviceAccountName": "mydgd-k8s-service-discovery",
        "volumes": [{"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}],
    }
    [main] = pod["containers"]
    assert [e["name"] for e in main["env"]] == [
        "DYNAMO_PORT", "DYN_COMPONENT", "DYN_DISCOVERY_BACKEND", "DYN_HTTP_PORT", "DYN_NAMESPACE",
        "DYN_NAMESPACE_PREFIX", "DYN_NAMESPACE_PREFIX_STRICT", "DYN_PARENT_DGD_K8S_NAME",
        "DYN_PARENT_DGD_K8S_NAMESPACE", "POD_NAME", "POD_NAMESPACE", "POD_UID"]
    assert env_of(main)["DYN_NAMESPACE_PREFIX"] == "prod-mydgd"
    assert main["startupProbe"] == {"httpGet": {"path": "/live", "port": "http"},
                                    "periodSeconds": 10, "timeoutSeconds": 1, "failureThreshold": 30}
    assert main["volumeMounts"] == [{"name": "shared-memory", "mountPath": "/dev/shm"}]
    assert main["command"] == ["python3"] and main["args"] == ["-m", "dynamo.frontend"]


def test_example_11_native_epp_pod_has_hf_cache_and_no_config_volume():
    spec = {"type": "epp", "replicas": 2, "podTemplate": {"spec": {"containers": [{"name": "main", "image": "epp:1.5.0"}]}}}
    pod = build_pod_spec(make_ctx(spec, name="graph-epp", graph_name="graph"))
    main = pod["containers"][0]
    assert env_of(main)["HOME"] == "/home/dynamo"
    assert env_of(main)["DYN_ROUTER_REPLICA_SYNC"] == "true"
    assert "command" not in main and "args" not in main
    assert pod["volumes"][0] == {"name": "hf-cache", "emptyDir": {}}
    assert pod["serviceAccountName"] == "epp-serviceaccount"
    assert pod["terminationGracePeriodSeconds"] == 130


def test_example_11_legacy_epp_pod_mounts_the_config_and_no_hf_cache():
    spec = {"type": "epp", "eppConfig": {}, "podTemplate": {"spec": {"containers": [{"name": "main", "image": "epp:1.4.0"}]}}}
    pod = build_pod_spec(make_ctx(spec, name="graph-epp", graph_name="graph"))
    assert [v["name"] for v in pod["volumes"]] == ["epp-config", "shared-memory"]
    assert pod["containers"][0]["args"][:2] == ["--pool-name", "graph-pool"]
    assert "hf-cache" not in [m["name"] for m in pod["containers"][0]["volumeMounts"]]


@pytest.mark.parametrize(("image", "health", "failures"), [
    ("w:latest", "false", 1), ("w:1.4.9", "false", 1), ("w:1.5.0", "true", 3), ("w:2.0.0", "true", 3)])
def test_example_12_worker_gates_follow_the_image_tag(image, health, failures):
    spec = {"type": "worker", "podTemplate": {"spec": {"containers": [{"name": "main", "image": image}]}}}
    main = build_pod_spec(make_ctx(spec))["containers"][0]
    assert env_of(main)["DYN_HEALTH_CHECK_ENABLED"] == health
    assert main["livenessProbe"]["failureThreshold"] == failures


def test_runtime_version_override_wins_over_the_image_tag():
    main = build_pod_spec(make_ctx(worker_spec(runtimeVersionOverride="1.5.0")))["containers"][0]
    assert env_of(main)["DYN_HEALTH_CHECK_ENABLED"] == "true"


# --- metadata ------------------------------------------------------------------------------------


def test_standalone_decode_dcd_template_matches_the_golden_scenario():
    scenario = GOLDEN / "dcd" / "deployment"
    if not scenario.is_dir():
        pytest.skip("conformance data not available")
    dcd = DynamoComponentDeployment.model_validate(yaml.safe_load((scenario / "input.yaml").read_text()))
    ctx = ComponentRenderContext(dcd=dcd, dcd_name=dcd.name, graph_name="", namespace="clusterenv-golden",
                                 dynamo_namespace="clusterenv-golden-deployment-manifest", backend_framework="vllm")
    want = yaml.safe_load((scenario / "output.yaml").read_text())["spec"]["template"]
    got = build_pod_template(ctx)
    assert set(got["metadata"]["labels"]) == set(want["metadata"]["labels"])
    assert "annotations" not in got["metadata"]
    want_main, got_main = want["spec"]["containers"][0], got["spec"]["containers"][0]
    assert [e["name"] for e in got_main["env"]] == [e["name"] for e in want_main["env"]]
    assert got_main["ports"] == want_main["ports"]
    assert got["spec"]["volumes"] == want["spec"]["volumes"]
    assert got["spec"]["serviceAccountName"] == want["spec"]["serviceAccountName"]


def test_dcd_labels_win_over_pod_template_labels_for_identity_keys():
    spec = worker_spec(podTemplate={"metadata": {"labels": {"nvidia.com/dynamo-worker-hash": "user", "team": "a"}},
                                    "spec": {"containers": [{"name": "main", "image": "w:1"}]}})
    labels = build_pod_template(make_ctx(spec, labels={"nvidia.com/dynamo-worker-hash": "abcd1234"}))["metadata"]["labels"]
    assert labels["nvidia.com/dynamo-worker-hash"] == "abcd1234"
    assert labels["team"] == "a"


def test_worker_hash_label_drives_the_namespace_worker_suffix():
    ctx = make_ctx(worker_spec(), labels={"nvidia.com/dynamo-worker-hash": "abcd1234",
                                          "nvidia.com/dynamo-graph-deployment-name": "g"}, graph_name="g")
    template = build_pod_template(ctx)
    assert env_of(template["spec"]["containers"][0])["DYN_NAMESPACE_WORKER_SUFFIX"] == "abcd1234"
    assert template["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"] == "g"


def test_metrics_label_is_dropped_only_when_metrics_are_disabled():
    spec = worker_spec(podTemplate={"metadata": {"annotations": {"nvidia.com/enable-metrics": "false"}},
                                    "spec": {"containers": [{"name": "main", "image": "w:1"}]}})
    template = build_pod_template(make_ctx(spec))
    assert "nvidia.com/metrics-enabled" not in template["metadata"]["labels"]
    assert template["metadata"]["annotations"] == {"nvidia.com/enable-metrics": "false"}


def test_origin_version_annotation_is_not_copied_to_pods():
    spec = worker_spec(podTemplate={"metadata": {"annotations": {"nvidia.com/dynamo-operator-origin-version": "1.4.0"}},
                                    "spec": {"containers": [{"name": "main", "image": "w:1"}]}})
    assert "annotations" not in build_pod_template(make_ctx(spec))["metadata"]


def test_model_ref_adds_base_model_hash_label_and_annotation():
    template = build_pod_template(make_ctx(worker_spec(modelRef={"name": "Qwen/Qwen3-0.6B"})))
    assert len(template["metadata"]["labels"]["nvidia.com/dynamo-base-model-hash"]) == 8
    assert template["metadata"]["annotations"]["nvidia.com/dynamo-base-model"] == "Qwen/Qwen3-0.6B"


def test_legacy_worker_selector_keeps_prefill_rendering_as_worker():
    labels = {"nvidia.com/dynamo-graph-deployment-name": "g", "nvidia.com/dynamo-worker-hash": "abcd1234",
              "nvidia.com/dynamo-component-type": "worker"}
    template = build_pod_template(make_ctx(worker_spec(type="prefill"), labels=labels, graph_name="g"))
    assert template["metadata"]["labels"]["nvidia.com/dynamo-component-type"] == "worker"
    assert template["metadata"]["labels"]["nvidia.com/dynamo-sub-component-type"] == "prefill"
    assert env_of(template["spec"]["containers"][0])["DYN_COMPONENT"] == "worker"


def test_no_discovery_labels_or_service_account_without_kubernetes_discovery():
    template = build_pod_template(make_ctx(worker_spec(), discovery_backend="etcd"))
    assert "nvidia.com/dynamo-discovery-backend" not in template["metadata"]["labels"]
    assert template["spec"]["serviceAccountName"] == "default"
    assert "DYN_DISCOVERY_BACKEND" not in env_of(template["spec"]["containers"][0])


def test_fallback_service_account_is_only_for_the_component_pathway():
    assert build_pod_spec(make_ctx(worker_spec(), discovery_backend="", fallback_service_account="sa"))[
        "serviceAccountName"] == "sa"
    assert "serviceAccountName" not in build_pod_spec(make_ctx(worker_spec(), discovery_backend="", pathway="grove"))


def test_leader_and_worker_templates_carry_role_and_no_selector():
    spec = worker_spec(multinode={"nodeCount": 2})
    spec["podTemplate"]["spec"]["containers"][0]["args"] = ["--model", "m"]
    for role in ("leader", "worker"):
        labels = build_pod_template(make_ctx(spec, role=role))["metadata"]["labels"]
        assert labels["role"] == role
        assert "nvidia.com/selector" not in labels


def test_multinode_main_container_without_args_is_a_render_error():
    with pytest.raises(RenderError, match="container Args cannot be empty for LWS pod"):
        build_pod_template(make_ctx(worker_spec(multinode={"nodeCount": 2}), role="leader"))


# --- pod spec steps ------------------------------------------------------------------------------


def test_user_security_context_suppresses_the_fs_group_default():
    spec = worker_spec()
    spec["podTemplate"]["spec"]["securityContext"] = {}
    assert build_pod_spec(make_ctx(spec))["securityContext"] == {}
    spec["podTemplate"]["spec"]["securityContext"] = {"runAsUser": 0}
    assert build_pod_spec(make_ctx(spec))["securityContext"] == {"runAsUser": 0}


def test_shared_memory_size_zero_removes_the_volume_and_mount():
    pod = build_pod_spec(make_ctx(worker_spec(sharedMemorySize="0")))
    assert "volumes" not in pod
    assert "volumeMounts" not in pod["containers"][0]


def test_shared_memory_replaces_user_shm_volume_and_dev_shm_mount():
    spec = worker_spec(sharedMemorySize="16Gi")
    spec["podTemplate"]["spec"]["volumes"] = [{"name": "shared-memory", "emptyDir": {}}, {"name": "data", "emptyDir": {}}]
    spec["podTemplate"]["spec"]["containers"][0]["volumeMounts"] = [
        {"name": "my-shm", "mountPath": "/dev/shm"}, {"name": "data", "mountPath": "/data"}]
    pod = build_pod_spec(make_ctx(spec))
    assert pod["containers"][0]["volumeMounts"] == [
        {"name": "data", "mountPath": "/data"}, {"name": "shared-memory", "mountPath": "/dev/shm"}]
    assert pod["volumes"] == [{"name": "data", "emptyDir": {}},
                              {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}]


def test_volumes_follow_main_mounts_and_missing_ones_become_pvcs():
    spec = worker_spec()
    spec["podTemplate"]["spec"]["volumes"] = [{"name": "unused", "emptyDir": {}}, {"name": "b", "emptyDir": {}}]
    spec["podTemplate"]["spec"]["containers"][0]["volumeMounts"] = [
        {"name": "b", "mountPath": "/b"}, {"name": "models", "mountPath": "/models"}]
    pod = build_pod_spec(make_ctx(spec))
    assert pod["volumes"] == [
        {"name": "b", "emptyDir": {}},
        {"name": "models", "persistentVolumeClaim": {"claimName": "models"}},
        {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
        {"name": "unused", "emptyDir": {}},
    ]


def test_vllm_compilation_cache_defaults_its_mount_path():
    pod = build_pod_spec(make_ctx(worker_spec(compilationCache={"pvcName": "cc"}), backend_framework="vllm"))
    assert {"name": "cc", "mountPath": "/root/.cache/vllm"} in pod["containers"][0]["volumeMounts"]
    assert {"name": "cc", "persistentVolumeClaim": {"claimName": "cc"}} in pod["volumes"]


def test_sglang_compilation_cache_without_mount_path_is_a_render_error():
    with pytest.raises(RenderError, match=r"compilationCache\.mountPath is required for backend framework sglang"):
        build_pod_spec(make_ctx(worker_spec(compilationCache={"pvcName": "cc"}), backend_framework="sglang"))


def test_compilation_cache_path_taken_by_another_volume_is_a_render_error():
    spec = worker_spec(compilationCache={"pvcName": "cc", "mountPath": "/cache"})
    spec["podTemplate"]["spec"]["containers"][0]["volumeMounts"] = [{"name": "other", "mountPath": "/cache"}]
    with pytest.raises(RenderError, match='already used by volume "other"'):
        build_pod_spec(make_ctx(spec))


def test_platform_env_is_added_after_the_merge_and_user_values_win():
    spec = worker_spec()
    spec["podTemplate"]["spec"]["containers"][0]["env"] = [{"name": "NATS_SERVER", "value": "mine"}]
    platform = Platform.model_validate({"infrastructure": {"natsAddress": "nats://n", "etcdAddress": "http://e"}})
    env = env_of(build_pod_spec(make_ctx(spec, platform=platform))["containers"][0])
    assert env["NATS_SERVER"] == "mine" and env["ETCD_ENDPOINTS"] == "http://e"


def test_user_sidecars_follow_main_in_their_original_order():
    spec = worker_spec()
    spec["podTemplate"]["spec"]["containers"] = [
        {"image": "unnamed:1"}, {"name": "main", "image": "w:1"}, {"name": "z", "image": "z:1"}]
    names = [c.get("name") for c in build_pod_spec(make_ctx(spec))["containers"]]
    assert names == ["main", None, "z"]


def test_platform_pull_secrets_are_appended_unless_discovery_is_disabled():
    platform = Platform.model_validate({"imagePullSecrets": ["regcred", "user-secret"]})
    spec = worker_spec()
    spec["podTemplate"]["spec"]["imagePullSecrets"] = [{"name": "user-secret"}]
    pod = build_pod_spec(make_ctx(spec, platform=platform))
    assert pod["imagePullSecrets"] == [{"name": "user-secret"}, {"name": "regcred"}]
    spec["podTemplate"]["metadata"] = {"annotations": {"nvidia.com/disable-image-pull-secret-discovery": "true"}}
    assert build_pod_spec(make_ctx(spec, platform=platform))["imagePullSecrets"] == [{"name": "user-secret"}]


def test_intra_pod_gpu_memory_service_shares_the_gpus_through_a_dra_claim():
    spec = worker_spec(name="Decode", experimental={"gpuMemoryService": {}})
    spec["podTemplate"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "2", "cpu": "4"}}
    pod = build_pod_spec(make_ctx(spec, name="g-decode-abcd1234", graph_name="g"))
    main = pod["containers"][0]
    assert main["resources"] == {"limits": {"cpu": "4"}, "claims": [{"name": "intrapod-shared-gpu"}]}
    assert pod["resourceClaims"] == [{"name": "intrapod-shared-gpu", "resourceClaimTemplateName": "g-decode-gpu"}]
    assert [c["name"] for c in pod["initContainers"]] == ["gms-server"]
    assert pod["initContainers"][0]["image"] == "w:1.4.0"
    assert env_of(main)["GMS_SOCKET_DIR"] == "/gms-intrapod-control"
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]


def test_intra_pod_failover_runs_two_vllm_engines():
    spec = worker_spec(experimental={"gpuMemoryService": {}, "failover": {"numShadows": 1}})
    spec["podTemplate"]["spec"]["containers"][0] |= {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}
    pod = build_pod_spec(make_ctx(spec, graph_name="g", backend_framework="vllm"))
    assert [c["name"] for c in pod["containers"]] == ["engine-0", "engine-1"]


def test_rendering_is_deterministic_and_leaves_the_input_untouched():
    spec = worker_spec(compilationCache={"pvcName": "cc", "mountPath": "/c"}, frontendSidecar="fe")
    spec["podTemplate"]["spec"]["containers"].append({"name": "fe", "image": "fe:1.6.0"})
    ctx = make_ctx(spec, platform=Platform.model_validate({"infrastructure": {"natsAddress": "n"}}))
    before = copy.deepcopy(ctx.dcd.spec.pod_template)
    first = yaml.safe_dump(build_pod_template(ctx))
    assert yaml.safe_dump(build_pod_template(ctx)) == first
    assert ctx.dcd.spec.pod_template == before


def test_workers_of_a_graph_with_an_epp_carry_the_worker_class_label():
    labels = build_pod_template(make_ctx(worker_spec(type="decode"), graph_has_epp=True))["metadata"]["labels"]
    assert labels["nvidia.com/dynamo-component-class"] == "worker"
    frontend = {"type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "f:1"}]}}}
    labels = build_pod_template(make_ctx(frontend, graph_has_epp=True))["metadata"]["labels"]
    assert "nvidia.com/dynamo-component-class" not in labels


def example_1_ctx(role: str) -> ComponentRenderContext:
    """Example 1 (LWS, vLLM Ray multinode) with the alpha-preserved values given as DCD labels."""
    spec = {
        "backendFramework": "vllm", "type": "worker", "multinode": {"nodeCount": 2},
        "podTemplate": {
            "metadata": {"labels": {"nvidia.com/label1": "label1"}, "annotations": {"nvidia.com/annotation1": "annotation1"}},
            "spec": {"terminationGracePeriodSeconds": 10, "containers": [
                {"image": "another-image:latest"},
                {"name": "main", "image": "test-image:1.5.0", "command": ["some", "dynamo", "command"],
                 "args": ["--tensor-parallel-size", "4", "--pipeline-parallel-size", "1"],
                 "env": [{"name": "TEST_ENV_FROM_EXTRA_POD_SPEC", "value": "test_value_from_extra_pod_spec"}],
                 "resources": {"requests": {"cpu": "300m", "memory": "500Mi"},
                               "limits": {"nvidia.com/gpu": "1", "memory": "20Gi", "cpu": "10"}}},
            ]},
        },
    }
    labels = {"nvidia.com/dynamo-component": "test-lws-deploy-service",
              "nvidia.com/dynamo-namespace": "default-test-lws-deploy"}
    from dynamo_pulumi.render.backends.multinode import lws_wiring

    return make_ctx(spec, name="test-lws-deploy", labels=labels, namespace="default",
                    dynamo_namespace="default-test-lws-deploy", backend_framework="vllm", discovery_backend="",
                    fallback_service_account="default-test-sa", role=role, multinode_wiring=lws_wiring(2))


def test_example_1_lws_leader_template():
    template = build_pod_template(example_1_ctx("leader"))
    assert template["metadata"]["annotations"] == {"nvidia.com/annotation1": "annotation1"}
    labels = template["metadata"]["labels"]
    assert labels["role"] == "leader" and labels["nvidia.com/dynamo-component-type"] == "worker"
    assert labels["nvidia.com/dynamo-component"] == "test-lws-deploy-service"
    assert "nvidia.com/selector" not in labels and "nvidia.com/dynamo-discovery-backend" not in labels
    pod = template["spec"]
    assert pod["terminationGracePeriodSeconds"] == 10
    assert pod["securityContext"] == {"fsGroup": 1000}
    assert pod["serviceAccountName"] == "default-test-sa"
    assert pod["volumes"] == [{"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}]
    main, other = pod["containers"]
    assert other == {"image": "another-image:latest"}
    assert [e["name"] for e in main["env"]] == [
        "DYN_COMPONENT", "DYN_DISCOVERY_BACKEND", "DYN_FORWARDPASS_METRIC_PORT", "DYN_HEALTH_CHECK_ENABLED",
        "DYN_NAMESPACE", "DYN_PARENT_DGD_K8S_NAME", "DYN_PARENT_DGD_K8S_NAMESPACE", "DYN_SYSTEM_ENABLED",
        "DYN_SYSTEM_PORT", "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "NIXL_TELEMETRY_ENABLE",
        "NIXL_TELEMETRY_EXPORTER", "NIXL_TELEMETRY_PROMETHEUS_PORT", "POD_NAME", "POD_NAMESPACE", "POD_UID",
        "TEST_ENV_FROM_EXTRA_POD_SPEC"]
    assert env_of(main)["DYN_HEALTH_CHECK_ENABLED"] == "true"
    assert main["livenessProbe"]["failureThreshold"] == 3
    assert main["resources"]["limits"] == {"nvidia.com/gpu": "1", "memory": "20Gi", "cpu": "10"}
    assert main["volumeMounts"] == [{"name": "shared-memory", "mountPath": "/dev/shm"}]


def test_example_1_lws_worker_template_has_no_probes():
    template = build_pod_template(example_1_ctx("worker"))
    main = template["spec"]["containers"][0]
    assert template["metadata"]["labels"]["role"] == "worker"
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert probe not in main


def test_checkpointed_component_pod_is_refused_when_the_platform_enables_checkpoints():
    spec = worker_spec(experimental={"checkpoint": {"enabled": True}})
    platform = Platform.model_validate({"checkpoint": {"enabled": True}})
    with pytest.raises(RenderError, match="checkpoint"):
        build_pod_spec(make_ctx(spec, platform=platform))
    assert build_pod_spec(make_ctx(spec))["containers"][0]["name"] == "main"


@pytest.mark.parametrize(("size", "limit"), [
    ("1024Mi", "1Gi"), ("1.5Gi", "1536Mi"), ("1.5G", "1500M"), ("16Gi", "16Gi"), (17179869184, "17179869184"),
    ("100", "100"), ("1000", "1k"), ("0.5Gi", "512Mi")])
def test_shared_memory_size_limit_is_the_canonical_quantity(size, limit):
    pod = build_pod_spec(make_ctx(worker_spec(sharedMemorySize=size)))
    assert pod["volumes"] == [{"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": limit}}]


_env_names = st.sampled_from(["A", "DYN_NAMESPACE", "NATS_SERVER", "POD_NAME", "Z"])
_user_main = st.fixed_dictionaries(
    {"name": st.just("main"), "image": st.sampled_from(["w:1.4.0", "w:1.6.0", "w:latest"])},
    optional={
        "env": st.lists(st.builds(lambda n, v: {"name": n, "value": v}, _env_names, st.text(max_size=3)), max_size=4),
        "command": st.lists(st.text(min_size=1, max_size=4), max_size=2),
        "volumeMounts": st.lists(st.builds(lambda n: {"name": n, "mountPath": f"/{n}"},
                                           st.sampled_from(["a", "b", "shared-memory"])), max_size=3, unique_by=lambda m: m["name"]),
    },
)


@settings(max_examples=40, deadline=None)
@given(_user_main, st.sampled_from(["worker", "frontend", "planner", "epp", None]), st.sampled_from([None, "0", "2Gi"]))
def test_any_user_main_renders_deterministically_with_main_first_and_sorted_env(main, ctype, shm):
    spec: dict[str, Any] = {"podTemplate": {"spec": {"containers": [main]}}}
    if ctype:
        spec["type"] = ctype
    if shm:
        spec["sharedMemorySize"] = shm
    ctx = make_ctx(spec, graph_name="g")
    pod = build_pod_spec(ctx)
    assert pod == build_pod_spec(ctx)
    rendered = pod["containers"][0]
    assert rendered["name"] == "main" and rendered["image"] == main["image"]
    names = [e["name"] for e in rendered.get("env") or []]
    assert names == sorted(set(names))
    for entry in main.get("env") or []:
        assert next(e for e in rendered["env"] if e["name"] == entry["name"]) == {
            e["name"]: e for e in main["env"]}[entry["name"]]
    mounts = [m["name"] for m in rendered.get("volumeMounts") or []]
    assert [v["name"] for v in pod.get("volumes") or []][: len(mounts)] == mounts


def test_container_resource_quantities_are_serialised_canonically():
    spec = worker_spec()
    spec["podTemplate"]["spec"]["containers"][0]["resources"] = {
        "limits": {"nvidia.com/gpu": 1, "memory": "1024Mi"}, "requests": {"cpu": 0.5}}
    spec["podTemplate"]["spec"]["containers"].append({"name": "side", "resources": {"limits": {"cpu": "1000m"}}})
    pod = build_pod_spec(make_ctx(spec))
    assert pod["containers"][0]["resources"] == {"limits": {"nvidia.com/gpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}
    assert pod["containers"][1]["resources"] == {"limits": {"cpu": "1"}}


def test_role_pod_templates_replace_the_component_template_for_their_role():
    def role(name: str, image: str, label: str) -> dict[str, Any]:
        return {"name": name, "podTemplate": {
            "metadata": {"labels": {"tier": label}},
            "spec": {"containers": [{"name": "main", "image": image, "command": ["run"], "args": [name]}]}}}

    spec = {"type": "worker", "multinode": {"nodeCount": 2},
            "roles": [role("leader", "lead:1.5.0", "l"), role("worker", "work:1.4.0", "w")]}
    leader = build_pod_template(make_ctx(spec, role="leader"))
    worker = build_pod_template(make_ctx(spec, role="worker"))
    assert leader["spec"]["containers"][0]["image"] == "lead:1.5.0"
    assert leader["metadata"]["labels"]["tier"] == "l"
    assert env_of(leader["spec"]["containers"][0])["DYN_HEALTH_CHECK_ENABLED"] == "true"
    assert worker["spec"]["containers"][0]["image"] == "work:1.4.0"
    assert worker["metadata"]["labels"]["tier"] == "w"
