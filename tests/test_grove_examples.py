"""Worked examples of rendering-grove section 9 (and the rules they illustrate), with our own
fixtures, through the real pod assembly."""

from __future__ import annotations

from typing import Any

import pytest
from grove_fixtures import by_name, component, env_map, graph, main_container

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove import render_grove, render_pod_clique_set
from dynamo_pulumi.render.grove.gms import augment_engine_pod_spec, weight_server_pod_spec
from dynamo_pulumi.render.pod.failover import build_intra_pod_failover

GROVE = Platform.model_validate({"operatorVersion": "1.4.0", "orchestrators": {"grove": {"enabled": True}}})


def _pcs(dgd: Any, platform: Platform = GROVE) -> dict[str, Any]:
    return render_pod_clique_set(dgd, platform, "n", worker_hash="abcd1234")


def _template(dgd: Any, platform: Platform = GROVE) -> dict[str, Any]:
    return _pcs(dgd, platform)["spec"]["template"]


# --- Ex.2: multinode SGLang --------------------------------------------------------------------


def _sglang_multinode() -> Any:
    worker = component(
        "worker", replicas=5, multinode={"nodeCount": 3},
        container=main_container(gpus=2, command=["/bin/sh", "-c"],
                                 args=["python3 -m dynamo.sglang --custom-flag custom-value"]),
    )
    return graph([component("frontend", "frontend"), worker,
                  component("planner", "planner", replicas=2)], backendFramework="sglang")


def test_multinode_component_becomes_scaling_group_with_leader_and_worker_cliques() -> None:
    template = _template(_sglang_multinode())
    assert template["podCliqueScalingGroups"] == [
        {"name": "worker", "cliqueNames": ["worker-ldr", "worker-wkr"], "replicas": 5, "minAvailable": 1}
    ]
    cliques = by_name(template["cliques"])
    assert [c["name"] for c in template["cliques"]] == ["frontend", "worker-ldr", "worker-wkr", "planner"]
    assert (cliques["worker-ldr"]["spec"]["replicas"], cliques["worker-ldr"]["spec"]["minAvailable"]) == (1, 1)
    assert (cliques["worker-wkr"]["spec"]["replicas"], cliques["worker-wkr"]["spec"]["minAvailable"]) == (2, 2)
    assert cliques["planner"]["spec"]["replicas"] == 2
    assert cliques["planner"]["spec"]["minAvailable"] == 1


def test_sglang_multinode_launch_uses_grove_hostnames_and_shell_rank() -> None:
    cliques = by_name(_template(_sglang_multinode())["cliques"])
    leader = cliques["worker-ldr"]["spec"]["podSpec"]["containers"][0]
    worker = cliques["worker-wkr"]["spec"]["podSpec"]["containers"][0]
    host = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-worker-ldr-0.$(GROVE_HEADLESS_SERVICE):29500"
    assert leader["args"] == [f"python3 -m dynamo.sglang --dist-init-addr {host} --nnodes 3 --node-rank 0 "
                              "--custom-flag custom-value"]
    assert "--node-rank $((GROVE_PCLQ_POD_INDEX + 1))" in worker["args"][0]
    assert "livenessProbe" in leader and "readinessProbe" in leader
    assert not {"livenessProbe", "readinessProbe", "startupProbe"} & set(worker)


def test_vllm_and_sglang_multinode_keep_any_order_startup() -> None:
    template = _template(_sglang_multinode())
    assert template["cliqueStartupType"] == "CliqueStartupTypeAnyOrder"
    assert all("startsAfter" not in c["spec"] for c in template["cliques"])


def test_pcs_top_level_fields_are_fixed() -> None:
    pcs = _pcs(_sglang_multinode())
    assert pcs["spec"]["replicas"] == 1
    assert pcs["metadata"]["labels"] == {"nvidia.com/dynamo-graph-deployment-name": "g"}
    assert pcs["spec"]["template"]["headlessServiceConfig"] == {"publishNotReadyAddresses": True}
    assert pcs["spec"]["template"]["terminationDelay"] == "15m0s"
    assert "updateStrategy" not in pcs["spec"]


# --- TRT-LLM startup ordering --------------------------------------------------------------------


def test_trtllm_multinode_leader_starts_after_workers_and_pcs_becomes_explicit() -> None:
    worker = component("Worker", multinode={"nodeCount": 3},
                       container=main_container(gpus=4, command=["python3", "-m", "dynamo.trtllm"]))
    template = _template(graph([component("frontend", "frontend"), worker], backendFramework="trtllm"))
    cliques = by_name(template["cliques"])
    assert cliques["worker-ldr"]["spec"]["startsAfter"] == ["worker-wkr"]
    assert "startsAfter" not in cliques["worker-wkr"]["spec"]
    assert template["cliqueStartupType"] == "CliqueStartupTypeExplicit"


# --- Ex.3 / Ex.4: inter-pod GMS ------------------------------------------------------------------


def _inter_pod_gms(nodes: int = 2) -> Any:
    svc = component(
        "svc", replicas=2, multinode={"nodeCount": nodes},
        experimental={"gpuMemoryService": {"mode": "InterPod"}},
        container=main_container(gpus=4, command=["python3", "-m", "dynamo.vllm"]),
    )
    return graph([svc], backendFramework="vllm")


def test_inter_pod_gms_claim_templates_are_per_rank_inside_the_pcs() -> None:
    template = _template(_inter_pod_gms())
    request = {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount",
                                          "count": 4}}
    assert template["resourceClaimTemplates"] == [
        {"name": f"svc-gpu-rank-{r}", "templateSpec": {"spec": {"devices": {"requests": [request]}}}}
        for r in (0, 1)
    ]


def test_inter_pod_gms_scaling_group_shares_each_rank_claim_per_replica() -> None:
    (group,) = _template(_inter_pod_gms())["podCliqueScalingGroups"]
    assert group["cliqueNames"] == ["svc-gms-0", "svc-ldr", "svc-gms-1", "svc-wkr-1"]
    assert group["resourceSharing"] == [
        {"name": "svc-gpu-rank-0", "scope": "PerReplica", "filter": {"childCliqueNames": ["svc-gms-0", "svc-ldr"]}},
        {"name": "svc-gpu-rank-1", "scope": "PerReplica", "filter": {"childCliqueNames": ["svc-gms-1", "svc-wkr-1"]}},
    ]


def test_inter_pod_gms_engines_start_after_their_rank_weight_server() -> None:
    template = _template(_inter_pod_gms())
    cliques = by_name(template["cliques"])
    assert cliques["svc-ldr"]["spec"]["startsAfter"] == ["svc-gms-0"]
    assert cliques["svc-wkr-1"]["spec"]["startsAfter"] == ["svc-gms-1"]
    assert "startsAfter" not in cliques["svc-gms-0"]["spec"]
    assert template["cliqueStartupType"] == "CliqueStartupTypeExplicit"


def test_inter_pod_gms_multinode_engines_use_static_rank_hosts() -> None:
    cliques = by_name(_template(_inter_pod_gms(nodes=3))["cliques"])
    worker = cliques["svc-wkr-2"]["spec"]["podSpec"]["containers"][0]
    assert cliques["svc-wkr-2"]["spec"]["minAvailable"] == 1
    assert "GROVE_PCLQ_POD_INDEX + 1" not in " ".join(worker.get("args") or [])


def test_weight_server_clique_has_no_discovery_labels_and_runs_the_gms_server() -> None:
    cliques = by_name(_template(_inter_pod_gms())["cliques"])
    gms = cliques["svc-gms-1"]
    assert "nvidia.com/dynamo-discovery-backend" not in gms["labels"]
    main = gms["spec"]["podSpec"]["containers"][0]
    assert main["command"] == ["bash", "-c"]
    assert "python3 -m gpu_memory_service.cli.server &" in main["args"][0]
    assert main["volumeMounts"][-1]["subPathExpr"] == "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-1"


def test_weight_server_pod_spec_strips_gpus_and_probes_and_waits_for_two_sockets_per_gpu() -> None:
    base = {"containers": [{
        "name": "engine", "image": "img",
        "resources": {"limits": {"nvidia.com/gpu": "8", "memory": "64Gi"}},
        "livenessProbe": {"httpGet": {"path": "/live"}}, "readinessProbe": {"httpGet": {"path": "/health"}},
    }]}
    pod = weight_server_pod_spec(base, rank=0, gpu_count=8)
    main = pod["containers"][0]
    assert main["resources"] == {"limits": {"memory": "64Gi"}}
    assert main["startupProbe"] == {
        "exec": {"command": ["sh", "-c", "test $(ls /run/gms/shared/gms_*.sock 2>/dev/null | wc -l) -ge 16"]},
        "periodSeconds": 2, "timeoutSeconds": 2, "failureThreshold": 150,
    }
    assert "livenessProbe" not in main and "readinessProbe" not in main
    assert env_map(main)["GMS_SOCKET_DIR"] == "/run/gms/shared"
    assert pod["initContainers"] == [{
        "name": "fix-gms-perms", "image": "img", "command": ["sh", "-c", "chmod 1777 /run/gms/shared"],
        "securityContext": {"runAsUser": 0, "runAsNonRoot": False},
        "volumeMounts": [{"name": "gms-shared", "mountPath": "/run/gms/shared",
                          "subPathExpr": "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)/rank-0"}],
    }]
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert pod["volumes"] == [{"name": "gms-shared", "hostPath": {"path": "/run/gms", "type": "DirectoryOrCreate"}}]
    assert base["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8"


@pytest.mark.parametrize(("failover", "restart"), [(True, "Never"), (False, None)])
def test_engine_augmentation_sets_gms_env_and_restart_never_only_with_failover(
    failover: bool, restart: str | None
) -> None:
    pod: dict[str, Any] = {"containers": [{"name": "main", "image": "img", "env": [
        {"name": "KEEP", "value": "1"}, {"name": "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "value": "[]"}]}]}
    augment_engine_pod_spec(pod, rank=1, inter_pod_failover=failover)
    env = env_map(pod["containers"][0])
    assert env["ENGINE_ID"] == {"fieldRef": {"fieldPath": "metadata.labels['grove.io/podclique-pod-index']"}}
    assert env["FAILOVER_LOCK_PATH"] == "/run/gms/shared/failover.lock"
    assert env["DYN_SYSTEM_STARTING_HEALTH_STATUS"] == "notready"
    assert "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS" not in env and env["KEEP"] == "1"
    assert pod.get("restartPolicy") == restart


# --- Ex.5: intra-pod failover ---------------------------------------------------------------------


def _failover_pod() -> dict[str, Any]:
    main = {
        "name": "main", "command": ["python3", "-m", "dynamo.vllm"],
        "env": [{"name": n, "value": v} for n, v in [
            ("DYN_SYSTEM_PORT", "9090"), ("DYN_SYSTEM_ENABLED", "true"),
            ("DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "true"), ("DYN_HEALTH_CHECK_ENABLED", "true"),
            ("DYN_DISCOVERY_BACKEND", "kubernetes")]],
        "ports": [{"name": "system", "containerPort": 9090, "protocol": "TCP"}],
        "livenessProbe": {"httpGet": {"path": "/live", "port": "system"}},
        "resources": {"claims": [{"name": "intrapod-shared-gpu"}]},
    }
    return {"containers": [main, {"name": "frontend-sidecar"}]}


def test_intra_pod_failover_clones_main_into_two_engines_before_sidecars() -> None:
    pod = _failover_pod()
    build_intra_pod_failover(pod, number_of_nodes=1, backend="vllm")
    assert [c["name"] for c in pod["containers"]] == ["engine-0", "engine-1", "frontend-sidecar"]
    one = pod["containers"][1]
    assert one["ports"] == [{"protocol": "TCP", "name": "system-1", "containerPort": 9091}]
    assert one["livenessProbe"]["httpGet"]["port"] == "system-1"
    env = env_map(one)
    assert (env["ENGINE_ID"], env["CONTAINER_NAME"], env["DYN_SYSTEM_PORT"]) == ("1", "engine-1", "9091")
    assert env["DYN_FORWARDPASS_METRIC_PORT"] == "20381"
    assert env["FAILOVER_LOCK_PATH"] == "/gms-intrapod-control/failover.lock"
    assert (env["VLLM_NIXL_SIDE_CHANNEL_PORT"], env["DYN_VLLM_KV_EVENT_PORT"]) == ("5601", "20081")
    assert "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS" not in env and "DYN_HEALTH_CHECK_ENABLED" not in env
    assert one["args"] == ["--master-port", "29600"]
    assert "args" not in pod["containers"][0] and "NNODES" not in env


def test_intra_pod_failover_staggers_an_existing_master_port_and_sets_nnodes() -> None:
    pod = _failover_pod()
    pod["containers"][0]["args"] = ["--master-port", "30000"]
    build_intra_pod_failover(pod, number_of_nodes=4, backend="vllm")
    assert pod["containers"][1]["args"] == ["--master-port", "30100"]
    assert env_map(pod["containers"][0])["NNODES"] == "4"


def test_intra_pod_failover_refuses_backends_other_than_vllm() -> None:
    with pytest.raises(RenderError, match="supported only for vLLM"):
        build_intra_pod_failover(_failover_pod(), number_of_nodes=1, backend="sglang")


def test_intra_pod_gms_renders_claim_template_sidecar_and_engines() -> None:
    worker = component("Worker", experimental={"gpuMemoryService": {}, "failover": {}},
                       container=main_container(gpus=2, command=["python3", "-m", "dynamo.vllm"]))
    objects = render_grove(graph([worker], backendFramework="vllm"), GROVE, "n", worker_hash="abcd1234")
    rct = next(o for o in objects if o["kind"] == "ResourceClaimTemplate")
    assert rct["apiVersion"] == "resource.k8s.io/v1"
    assert rct["metadata"] == {"name": "g-worker-gpu", "namespace": "n"}
    assert rct["spec"]["spec"]["devices"]["requests"] == [
        {"name": "gpus", "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 2}}
    ]
    pod = objects[0]["spec"]["template"]["cliques"][0]["spec"]["podSpec"]
    assert pod["resourceClaims"] == [{"name": "intrapod-shared-gpu", "resourceClaimTemplateName": "g-worker-gpu"}]
    assert [c["name"] for c in pod["containers"]] == ["engine-0", "engine-1"]
    assert "nvidia.com/gpu" not in (pod["containers"][0]["resources"].get("limits") or {})
    (sidecar,) = pod["initContainers"]
    assert (sidecar["name"], sidecar["restartPolicy"]) == ("gms-server", "Always")
    assert sidecar["command"] == ["python3", "-m", "gpu_memory_service.cli.server"]


# --- Ex.6: topology -------------------------------------------------------------------------------


def _topology(pack_domain: str | None, nodes: int = 1) -> dict[str, Any]:
    spec_tc: dict[str, Any] = {"clusterTopologyName": "grove-topology"}
    if pack_domain:
        spec_tc["packDomain"] = pack_domain
    fields: dict[str, Any] = {"replicas": 2, "topologyConstraint": {"packDomain": "rack"}}
    if nodes > 1:
        fields["multinode"] = {"nodeCount": nodes}
    return _template(graph([component("Worker", **fields)], name="test-deploy", topologyConstraint=spec_tc))


def test_spec_pack_domain_goes_on_pcs_and_component_inherits_the_topology_name() -> None:
    template = _topology("zone")
    assert template["topologyConstraint"] == {"topologyName": "grove-topology", "pack": {"required": "zone"}}
    assert template["cliques"][0]["topologyConstraint"] == {"pack": {"required": "rack"}}


def test_without_spec_pack_domain_the_component_names_the_topology() -> None:
    template = _topology(None)
    assert "topologyConstraint" not in template
    assert template["cliques"][0]["topologyConstraint"] == {
        "topologyName": "grove-topology", "pack": {"required": "rack"}}


def test_multinode_topology_goes_on_the_scaling_group_not_the_cliques() -> None:
    template = _topology(None, nodes=2)
    assert template["podCliqueScalingGroups"][0]["topologyConstraint"] == {
        "topologyName": "grove-topology", "pack": {"required": "rack"}}
    assert all("topologyConstraint" not in c for c in template["cliques"])


# --- Ex.7: update strategy ------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["RollingRecreate", "OnDelete", "Coherent"])
def test_update_strategy_annotation_sets_spec_update_strategy(value: str) -> None:
    dgd = graph([component("worker")], annotations={"nvidia.com/grove-update-strategy": value})
    pcs = _pcs(dgd)
    assert pcs["spec"]["updateStrategy"] == {"type": value}
    plain = _pcs(graph([component("worker")]))
    assert pcs["spec"]["template"] == plain["spec"]["template"]


@pytest.mark.parametrize("value", ["ondelete", " OnDelete ", "BlueGreen", ""])
def test_unsupported_update_strategy_is_a_render_error(value: str) -> None:
    dgd = graph([component("worker")], annotations={"nvidia.com/grove-update-strategy": value})
    with pytest.raises(RenderError, match="unsupported Grove update strategy"):
        _pcs(dgd)


# --- Ex.10: single-node inter-pod GMS + inter-pod failover ----------------------------------------


def test_single_node_inter_pod_gms_with_failover_renders_shadow_engines() -> None:
    worker = component(
        "worker", replicas=2,
        experimental={"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod", "numShadows": 1}},
        container=main_container(gpus=4, command=["python3", "-m", "dynamo.vllm"]),
    )
    dgd = graph([worker], annotations={"nvidia.com/dynamo-kube-discovery-mode": "container"},
                backendFramework="vllm")
    objects = render_grove(dgd, GROVE, "n", worker_hash="abcd1234")
    template = objects[0]["spec"]["template"]
    cliques = by_name(template["cliques"])
    assert [c["name"] for c in template["cliques"]] == ["worker-gms-0", "worker"]
    engine = cliques["worker"]
    assert (engine["spec"]["replicas"], engine["spec"]["minAvailable"]) == (2, 1)
    assert engine["spec"]["startsAfter"] == ["worker-gms-0"]
    assert engine["labels"]["nvidia.com/dynamo-failover-engine-group-member"] == "true"
    assert "nvidia.com/dynamo-failover-engine-group-member" not in cliques["worker-gms-0"]["labels"]
    pod = engine["spec"]["podSpec"]
    assert pod["restartPolicy"] == "Never"
    main = pod["containers"][0]
    assert env_map(main)["DYN_VLLM_GMS_SHADOW_MODE"] == "true"
    assert "--load-format" in " ".join(main.get("args") or []) + " ".join(main.get("command") or [])
    assert template["podCliqueScalingGroups"] == [{
        "name": "worker", "cliqueNames": ["worker-gms-0", "worker"], "replicas": 2, "minAvailable": 1,
        "resourceSharing": [{"name": "worker-gpu-rank-0", "scope": "PerReplica",
                             "filter": {"childCliqueNames": ["worker-gms-0", "worker"]}}],
    }]
    assert [o["metadata"]["name"] for o in objects if o["kind"] == "ResourceClaimTemplate"] == ["g-worker-gpu"]


# --- shapes, minimums, names ------------------------------------------------------------------------


def test_forced_scaling_group_carries_replicas_and_single_pod_clique() -> None:
    worker = component("worker", replicas=3, experimental={"grove": {"forceScalingGroup": True}})
    template = _template(graph([worker]))
    assert template["cliques"][0]["spec"]["replicas"] == 1
    assert template["podCliqueScalingGroups"] == [
        {"name": "worker", "cliqueNames": ["worker"], "replicas": 3, "minAvailable": 1}]


def test_standalone_clique_min_available_follows_the_component_minimum() -> None:
    template = _template(graph([component("worker", replicas=4, minAvailable=2)]))
    assert template["cliques"][0]["spec"]["minAvailable"] == 2
    assert "podCliqueScalingGroups" not in template


def test_long_graph_name_is_truncated_with_fnv_suffix_within_grove_budget() -> None:
    name = "a-very-long-graph-deployment-name-for-grove"
    pcs = _pcs(graph([component("decode-worker", multinode={"nodeCount": 2})], name=name))
    pcs_name = pcs["metadata"]["name"]
    assert pcs_name != name and len(pcs_name) + len("decode-worker") + len("decode-worker-ldr") <= 45
    assert pcs["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"] == name
    clique = pcs["spec"]["template"]["cliques"][0]
    assert clique["labels"]["nvidia.com/selector"] == f"{name}-decode-worker"


def test_clique_labels_reflect_epp_metrics_and_worker_hash() -> None:
    dgd = graph([component("epp", "epp", eppConfig={"config": {}}), component("Prefill", "prefill")],
                annotations={"nvidia.com/enable-metrics": "false"}, labels={"team": "a"})
    labels = by_name(_template(dgd)["cliques"])["prefill"]["labels"]
    assert labels["nvidia.com/dynamo-component-class"] == "worker"
    assert labels["nvidia.com/dynamo-component"] == "Prefill"
    assert labels["nvidia.com/dynamo-sub-component-type"] == "prefill"
    assert labels["nvidia.com/dynamo-worker-hash"] == "abcd1234"
    assert labels["team"] == "a"
    assert "nvidia.com/metrics-enabled" not in labels


# --- provider overrides -----------------------------------------------------------------------------


def test_provider_overrides_land_on_their_named_grove_entries() -> None:
    tc = {"pack": {"required": "rack"}}
    worker = component(
        "Worker", multinode={"nodeCount": 2},
        providerOverride={"apiVersion": "grove.io/v1alpha1", "value": {"topologyConstraint": tc, "minAvailable": 1}},
        roles=[{"name": "leader", "providerOverride": {"apiVersion": "grove.io/v1alpha1",
                                                        "value": {"topologyConstraint": {"pack": {"required": "host"}}}}}],
    )
    root = {"apiVersion": "grove.io/v1alpha1",
            "value": {"spec": {"template": {"topologyConstraint": {"topologyName": "t", "pack": {"required": "zone"}}}}}}
    template = _template(graph([worker], providerOverride=root))
    assert template["topologyConstraint"] == {"topologyName": "t", "pack": {"required": "zone"}}
    assert template["podCliqueScalingGroups"][0]["topologyConstraint"] == tc
    cliques = by_name(template["cliques"])
    assert cliques["worker-ldr"]["topologyConstraint"] == {"pack": {"required": "host"}}
    assert "topologyConstraint" not in cliques["worker-wkr"]


def test_multinode_role_overrides_render_like_role_overrides() -> None:
    """The snapshot spelling ``multinode.<role>.providerOverride`` lands on ``<c>-ldr`` / ``<c>-wkr``."""
    host = {"topologyConstraint": {"pack": {"required": "host"}}}
    rack = {"topologyConstraint": {"pack": {"required": "rack"}}}

    def po(value: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "grove.io/v1alpha1", "target": "PodCliqueTemplateSpec", "value": value}

    legacy = component("Worker", multinode={"nodeCount": 3, "leader": {"providerOverride": po(host)},
                                            "worker": {"providerOverride": po(rack)}})
    roles = component("Worker", multinode={"nodeCount": 3}, roles=[
        {"name": "leader", "providerOverride": po(host)}, {"name": "worker", "providerOverride": po(rack)}])
    rendered = by_name(_template(graph([legacy]))["cliques"])
    assert rendered["worker-ldr"]["topologyConstraint"] == host["topologyConstraint"]
    assert rendered["worker-wkr"]["topologyConstraint"] == rack["topologyConstraint"]
    expected = by_name(_template(graph([roles]))["cliques"])
    assert {k: v.get("topologyConstraint") for k, v in rendered.items()} == {
        k: v.get("topologyConstraint") for k, v in expected.items()
    }


# --- what needs the cluster -------------------------------------------------------------------------


def _checkpoint(policy: str) -> Any:
    worker = component("worker", replicas=2, experimental={"checkpoint": {
        "enabled": True, "startupPolicy": policy, "identity": {"model": "m", "backendFramework": "vllm"}}})
    return graph([worker], backendFramework="vllm")


CHECKPOINT_ON = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "checkpoint": {"enabled": True}})


def test_wait_for_checkpoint_holds_engine_replicas_at_zero() -> None:
    template = _template(_checkpoint("WaitForCheckpoint"), CHECKPOINT_ON)
    assert template["cliques"][0]["spec"]["replicas"] == 0


def test_immediate_checkpoint_restore_needs_the_cluster_and_is_refused() -> None:
    with pytest.raises(RenderError, match="DynamoCheckpoint"):
        _template(_checkpoint("Immediate"), CHECKPOINT_ON)


def test_lpx_component_is_refused_with_build_registry_reason() -> None:
    lpx = component("lpx", "lpx", lpx={"buildId": "b"})
    with pytest.raises(RenderError, match="build registry"):
        _template(graph([lpx]))


# --- v1alpha1 input (Ex.2 is written as a v1alpha1 services map) ---------------------------------

ALPHA_GRAPH = """
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: test-dynamo-graph-deployment, namespace: test-namespace}
spec:
  backendFramework: sglang
  services:
    worker:
      componentType: worker
      subComponentType: test-sub-component
      replicas: 5
      labels: {nvidia.com/label1: label1}
      annotations: {nvidia.com/annotation1: annotation1}
      multinode: {nodeCount: 3}
      extraPodSpec:
        mainContainer:
          image: worker-image:1.4.0
          command: [/bin/sh, -c]
          args: ["python3 -m dynamo.sglang --custom-flag custom-value"]
"""


def test_alpha_service_labels_annotations_and_sub_type_reach_the_cliques() -> None:
    from dynamo_pulumi.defaulting.webhooks import default_graph
    from dynamo_pulumi.loading.documents import load_documents

    (loaded,) = load_documents(ALPHA_GRAPH).graphs
    dgd = default_graph(loaded.object, GROVE)
    cliques = by_name(_template(dgd)["cliques"])
    for name in ("worker-ldr", "worker-wkr"):
        assert cliques[name]["labels"]["nvidia.com/dynamo-sub-component-type"] == "test-sub-component"
        assert cliques[name]["labels"]["nvidia.com/label1"] == "label1"
        assert cliques[name]["annotations"]["nvidia.com/annotation1"] == "annotation1"
        assert cliques[name]["labels"]["nvidia.com/dynamo-namespace"] == "n-test-dynamo-graph-deployment"


# --- every worked example is a PCS the Grove CRD accepts ---------------------------------------------


def _examples() -> dict[str, Any]:
    failover = component(
        "worker", replicas=2,
        experimental={"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod", "numShadows": 1}},
        container=main_container(gpus=4, command=["python3", "-m", "dynamo.vllm"]))
    intra = component("Worker", experimental={"gpuMemoryService": {}, "failover": {}},
                      container=main_container(gpus=2, command=["python3", "-m", "dynamo.vllm"]))
    return {
        "sglang-multinode": _sglang_multinode(),
        "inter-pod-gms": _inter_pod_gms(nodes=3),
        "inter-pod-failover": graph([failover], backendFramework="vllm"),
        "intra-pod-failover": graph([intra], backendFramework="vllm"),
        "forced-group": graph([component("w", replicas=3, experimental={"grove": {"forceScalingGroup": True}})]),
    }


@pytest.mark.parametrize("name", sorted(_examples()))
def test_worked_example_validates_against_the_grove_crd(name: str, conformance_dir: Any) -> None:
    import jsonschema
    import yaml

    crd = yaml.safe_load((conformance_dir / "crds" / "grove.io_podcliquesets.yaml").read_text())
    schema = next(v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1")["schema"]["openAPIV3Schema"]
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(_pcs(_examples()[name])))
    assert [f"{list(e.absolute_path)}: {e.message}" for e in errors] == []
