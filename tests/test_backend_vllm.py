"""vLLM backend: single-node, mp / Ray / DP hybrid LB / elastic EP multinode, GMS, cache env."""

from __future__ import annotations

import ast
import copy
from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import ComponentSpecFields
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.render.backends import (
    BackendInput,
    build_wait_leader_configmap,
    grove_wiring,
    lws_wiring,
    update_container,
    update_pod_spec,
)
from dynamo_pulumi.render.backends.flags import inject_flags
from dynamo_pulumi.render.backends.wait_leader import WAIT_LEADER_SCRIPT

ORIGIN = "nvidia.com/dynamo-operator-origin-version"
EXECUTOR = "nvidia.com/vllm-distributed-executor-backend"
GROVE_LEADER = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-ldr-0.$(GROVE_HEADLESS_SERVICE)"
PROBES = {
    "livenessProbe": {"httpGet": {"path": "/live", "port": "system"}},
    "readinessProbe": {"httpGet": {"path": "/health", "port": "system"}},
    "startupProbe": {"httpGet": {"path": "/live", "port": "system"}},
}
POD_IP_REF = {"fieldRef": {"fieldPath": "status.podIP"}}


def component(gpus: int | None = None, nodes: int = 1, **extra: Any) -> ComponentSpecFields:
    main: dict[str, Any] = {"name": "main"}
    if gpus is not None:
        main["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    spec: dict[str, Any] = {"type": "worker", "podTemplate": {"spec": {"containers": [main]}}, **extra}
    if nodes > 1:
        spec["multinode"] = {"nodeCount": nodes}
    return ComponentSpecFields.model_validate(spec)


def backend_input(
    role: str = "main",
    nodes: int = 1,
    gpus: int | None = None,
    wiring: str | None = None,
    annotations: dict[str, Any] | None = None,
    **extra: Any,
) -> BackendInput:
    wired = None
    if wiring == "lws":
        wired = lws_wiring(nodes)
    elif wiring == "grove":
        wired = grove_wiring("test-service", nodes)
    fields = {k: extra.pop(k) for k in ("compilation_cache_mount_path", "gpu_count", "dgd_name") if k in extra}
    return BackendInput(
        framework="vllm",
        role=role,  # type: ignore[arg-type]
        component=component(gpus, nodes, **extra),
        dgd_name=fields.pop("dgd_name", "graph"),
        namespace="ns",
        number_of_nodes=nodes,
        component_name="test-service",
        annotations=annotations or {},
        wiring=wired,
        **fields,
    )


def env_names(container: dict[str, Any]) -> list[str]:
    return [e["name"] for e in container.get("env", [])]


# --- Example 1: LWS, Ray, TP 4 over 1 GPU -----------------------------------------------------------


def example1_container() -> dict[str, Any]:
    return {
        "name": "main",
        "image": "test-image:1.5.0",
        "command": ["some", "dynamo", "command"],
        "args": ["--tensor-parallel-size", "4", "--pipeline-parallel-size", "1"],
        "env": [{"name": "A", "value": "1"}],
        **copy.deepcopy(PROBES),
    }


def test_lws_ray_leader_starts_head_then_quoted_command_with_ray_executor() -> None:
    c = example1_container()
    update_container(c, backend_input("leader", 2, gpus=1, wiring="lws"))
    assert c["command"] == ["/bin/sh", "-c"]
    assert c["args"] == [
        "ray start --head --port=6379 && some dynamo command --tensor-parallel-size 4 "
        "--pipeline-parallel-size 1 --distributed-executor-backend ray"
    ]
    assert all(k in c for k in PROBES)
    assert env_names(c) == ["A"]  # Ray: no NIXL side-channel env


def test_lws_ray_worker_only_joins_the_cluster_and_loses_probes() -> None:
    c = example1_container()
    update_container(c, backend_input("worker", 2, gpus=1, wiring="lws"))
    assert c["command"] == ["/bin/sh", "-c"]
    assert c["args"] == ["ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"]
    assert not any(k in c for k in PROBES)


def test_ray_leader_double_quotes_json_args() -> None:
    c = {"command": ["python3", "-m", "dynamo.vllm"],
         "args": ["--model", "test", "--tensor-parallel-size", "8", "--kv-transfer-config",
                  '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}']}
    update_container(c, backend_input("leader", 3, gpus=4, wiring="grove"))
    assert c["args"] == [
        'ray start --head --port=6379 && python3 -m dynamo.vllm --model test --tensor-parallel-size 8 '
        '--kv-transfer-config "{\\"kv_connector\\": \\"NixlConnector\\", \\"kv_role\\": \\"kv_both\\"}" '
        "--distributed-executor-backend ray"
    ]


def test_ray_leader_without_command_keeps_go_double_space() -> None:
    c = {"args": ["python3", "-m", "dynamo.vllm", "--tensor-parallel-size", "8"]}
    update_container(c, backend_input("leader", 2, gpus=4, wiring="lws"))
    assert c["args"] == [
        "ray start --head --port=6379 &&  python3 -m dynamo.vllm --tensor-parallel-size 8 "
        "--distributed-executor-backend ray"
    ]


# --- mp ---------------------------------------------------------------------------------------------


def test_mp_leader_appends_flags_when_origin_is_at_least_one_zero() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"]}
    update_container(c, backend_input("leader", 2, gpus=8, wiring="grove", annotations={ORIGIN: "1.0.0"}))
    assert c["args"] == [
        "-m", "dynamo.vllm", "--tensor-parallel-size", "16", "--distributed-executor-backend", "mp",
        "--nnodes", "2", "--master-addr", GROVE_LEADER, "--master-port", "29500", "--node-rank", "0",
    ]
    assert c["env"] == [{"name": "VLLM_NIXL_SIDE_CHANNEL_HOST", "valueFrom": POD_IP_REF}]


def test_mp_grove_worker_needs_shell_for_rank_arithmetic() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"], **copy.deepcopy(PROBES)}
    update_container(c, backend_input("worker", 2, gpus=8, wiring="grove", annotations={ORIGIN: "v1.2"}))
    assert c["command"] == ["sh", "-c"]
    assert c["args"] == [
        "exec python3 -m dynamo.vllm --tensor-parallel-size 16 --distributed-executor-backend mp --nnodes 2 "
        f"--master-addr {GROVE_LEADER} --master-port 29500 --node-rank $((GROVE_PCLQ_POD_INDEX + 1)) --headless"
    ]
    assert not any(k in c for k in PROBES)


def test_mp_lws_worker_appends_kubelet_expanded_rank_without_shell() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"]}
    update_container(c, backend_input("worker", 2, gpus=8, wiring="lws", annotations={EXECUTOR: "mp"}))
    assert c["command"] == ["python3"]
    assert c["args"] == [
        "-m", "dynamo.vllm", "--tensor-parallel-size", "16", "--distributed-executor-backend", "mp",
        "--nnodes", "2", "--master-addr", "$(LWS_LEADER_ADDRESS)", "--master-port", "29500",
        "--node-rank", "$(LWS_WORKER_INDEX)", "--headless",
    ]


@pytest.mark.parametrize(
    ("annotations", "uses_mp"),
    [
        ({}, False),
        ({ORIGIN: "0.9.9"}, False),
        ({ORIGIN: "1.0.0-rc.1"}, False),  # ERRATA 33: a pre-release sorts below its release
        ({ORIGIN: "1.0"}, True),
        ({ORIGIN: "1.6.0", EXECUTOR: "RAY"}, False),
        ({EXECUTOR: "Mp"}, True),
        ({ORIGIN: "1.1.0", EXECUTOR: "bogus"}, True),
        ({EXECUTOR: ""}, False),
    ],
)
def test_executor_annotation_wins_then_origin_gate_decides(annotations: dict[str, str], uses_mp: bool) -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"]}
    update_container(c, backend_input("leader", 2, gpus=8, wiring="lws", annotations=annotations))
    assert ("--distributed-executor-backend" in c["args"]) is uses_mp
    assert (c["command"] == ["/bin/sh", "-c"]) is not uses_mp


def test_mp_side_channel_env_is_added_even_without_a_distributed_launch() -> None:
    # ERRATA 19: the env follows the mp choice, not the TP/PP decision.
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}
    update_container(c, backend_input("leader", 2, gpus=8, wiring="lws", annotations={ORIGIN: "1.0.0"}))
    assert c["args"] == ["-m", "dynamo.vllm"]
    assert env_names(c) == ["VLLM_NIXL_SIDE_CHANNEL_HOST"]


def test_mp_flags_go_inside_a_shell_string_launch() -> None:
    c = {"command": ["/bin/sh", "-c"], "args": ["python3 -m dynamo.vllm --tensor-parallel-size 16 && echo done"]}
    update_container(c, backend_input("leader", 2, gpus=8, wiring="lws", annotations={EXECUTOR: "mp"}))
    assert c["args"] == [
        "python3 -m dynamo.vllm --distributed-executor-backend mp --nnodes 2 --master-addr $(LWS_LEADER_ADDRESS) "
        "--master-port 29500 --node-rank 0 --tensor-parallel-size 16 && echo done"
    ]


# --- no GPUs / nothing to distribute ----------------------------------------------------------------


def test_multinode_without_gpus_keeps_launch_but_worker_loses_probes() -> None:
    # The golden dcd/lws: no GPU resources, so no launch rewrite.
    leader = {"command": ["/bin/sh", "-c"], "args": ["--model", "test/model"], **copy.deepcopy(PROBES)}
    worker = copy.deepcopy(leader)
    update_container(leader, backend_input("leader", 2, wiring="lws"))
    update_container(worker, backend_input("worker", 2, wiring="lws"))
    assert leader["args"] == worker["args"] == ["--model", "test/model"]
    assert all(k in leader for k in PROBES) and not any(k in worker for k in PROBES)


def test_single_node_does_not_touch_the_launch() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "8"], **copy.deepcopy(PROBES)}
    before = copy.deepcopy(c)
    update_container(c, backend_input("main", 1, gpus=1))
    assert c == before


# --- DP hybrid LB -----------------------------------------------------------------------------------


def test_dp_hybrid_lb_leader_computes_local_and_total_ranks() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "2", "--data-parallel-size", "8"]}
    update_container(c, backend_input("leader", 2, gpus=8, wiring="lws"))
    assert c["args"][6:] == [
        "--data-parallel-hybrid-lb", "--data-parallel-size-local", "4", "--data-parallel-start-rank", "0",
        "--data-parallel-address", "$(LWS_LEADER_ADDRESS)", "--data-parallel-rpc-port", "13445",
    ]


def test_dp_hybrid_lb_lws_worker_always_uses_shell_for_start_rank() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--data-parallel-size", "2"], **copy.deepcopy(PROBES)}
    update_container(c, backend_input("worker", 2, gpus=1, wiring="lws"))
    assert c["command"] == ["sh", "-c"]
    assert c["args"] == [
        "exec python3 -m dynamo.vllm --data-parallel-size 2 --data-parallel-hybrid-lb --data-parallel-size-local 1 "
        "--data-parallel-start-rank $(( 1 * $(LWS_WORKER_INDEX) )) --data-parallel-address $(LWS_LEADER_ADDRESS) "
        "--data-parallel-rpc-port 13445"
    ]
    assert not any(k in c for k in PROBES)


def test_dp_hybrid_lb_grove_worker_with_dra_gpu_count_supplied() -> None:
    comp_claims = {"podTemplate": {"spec": {"containers": [{"name": "main", "resources": {"claims": [{"name": "gpu"}]}}]}}}
    inp = BackendInput(
        framework="vllm", role="worker", component=ComponentSpecFields.model_validate(comp_claims),
        dgd_name="g", namespace="ns", number_of_nodes=2, component_name="test-service",
        wiring=grove_wiring("test-service", 2), gpu_count=1,
    )
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--data-parallel-size", "2"]}
    update_container(c, inp)
    assert c["args"] == [
        "exec python3 -m dynamo.vllm --data-parallel-size 2 --data-parallel-hybrid-lb --data-parallel-size-local 1 "
        f"--data-parallel-start-rank $(( 1 * $((GROVE_PCLQ_POD_INDEX + 1)) )) --data-parallel-address {GROVE_LEADER} "
        "--data-parallel-rpc-port 13445"
    ]


def test_tp_beyond_gpus_takes_distributed_launch_before_data_parallel() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "4", "--data-parallel-size", "1"]}
    update_container(c, backend_input("leader", 3, gpus=2, wiring="lws"))
    assert c["command"] == ["/bin/sh", "-c"]  # TP 4 > 2 GPUs: a distributed (Ray) launch
    assert "--data-parallel-hybrid-lb" not in c["args"][0]


def test_dra_only_gpus_from_an_unknown_claim_template_are_a_render_error() -> None:
    comp = {"podTemplate": {"spec": {
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpus"}],
        "containers": [{"name": "main", "resources": {"claims": [{"name": "gpu"}]}}]}}}
    inp = BackendInput(framework="vllm", role="leader", component=ComponentSpecFields.model_validate(comp),
                       dgd_name="g", namespace="ns", number_of_nodes=2, wiring=lws_wiring(2))
    with pytest.raises(RenderError, match="ResourceClaimTemplate 'gpus' is not known offline"):
        update_container({"command": ["python3"], "args": []}, inp)


# --- elastic EP -------------------------------------------------------------------------------------

RAY_HEAD_POLL = (
    "i=0; until python3 -c \"import socket; s=socket.create_connection(('127.0.0.1',6379),timeout=1); "
    's.close()" 2>/dev/null; do i=$((i+1)); [ "$i" -ge 150 ] && { echo "ERROR: Ray head did not start '
    'within 300s" >&2; exit 1; }; sleep 2; done'
)


@pytest.mark.parametrize("backend_flag", [["--data-parallel-backend", "ray"], ["--data-parallel-backend=ray"], ["-dpb", "ray"], ["-dpb=ray"]])
def test_single_pod_elastic_ep_gets_exec_ray_head_and_pod_ip_env(backend_flag: list[str]) -> None:
    c = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--model", "test", *backend_flag, "--enable-elastic-ep"],
         **copy.deepcopy(PROBES)}
    update_container(c, backend_input("main", 1, gpus=4))
    engine = " ".join(["python3 -m dynamo.vllm --model test", *backend_flag, "--enable-elastic-ep"])
    assert c["command"] == ["/bin/sh", "-c"]
    assert c["args"] == [f'ray start --head --port=6379 --node-ip-address="$POD_IP" --block & {RAY_HEAD_POLL} && exec {engine}']
    assert c["env"] == [{"name": "POD_IP", "valueFrom": POD_IP_REF}, {"name": "VLLM_DP_MASTER_IP", "valueFrom": POD_IP_REF}]
    assert all(k in c for k in PROBES)


def test_single_pod_elastic_ep_flags_in_command_are_detected() -> None:
    c = {"command": ["python3", "-m", "dynamo.vllm", "--data-parallel-backend", "ray", "--enable-elastic-ep"]}
    update_container(c, backend_input("main", 1, gpus=4))
    assert c["args"][0].endswith("&& exec python3 -m dynamo.vllm --data-parallel-backend ray --enable-elastic-ep")


@pytest.mark.parametrize(
    "c",
    [
        {"args": ["--model", "test", "--data-parallel-backend", "ray", "--enable-elastic-ep"]},  # no command
        {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--data-parallel-backend", "ray"]},
        {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--enable-elastic-ep"]},
        {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--data-parallel-backend", "mp", "--enable-elastic-ep"]},
    ],
)
def test_single_pod_without_full_elastic_ep_ray_launch_is_left_alone(c: dict[str, Any]) -> None:
    before = copy.deepcopy(c)
    update_container(c, backend_input("main", 1, gpus=4))
    assert c == before


def test_elastic_ep_posix_quotes_tokens() -> None:
    c = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--cfg", "{'a': 1}", "-dpb", "ray", "--enable-elastic-ep"]}
    update_container(c, backend_input("main", 1, gpus=4))
    assert c["args"][0].endswith("&& exec python3 -m dynamo.vllm --cfg '{'\\''a'\\'': 1}' -dpb ray --enable-elastic-ep")


def test_multinode_elastic_ep_leader_has_no_exec_and_no_node_ip() -> None:
    c = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--enable-elastic-ep", "--data-parallel-size", "2"]}
    update_container(c, backend_input("leader", 2, gpus=8, wiring="lws"))
    assert c["args"] == [
        f"ray start --head --port=6379 --block & {RAY_HEAD_POLL} && python3 -m dynamo.vllm --enable-elastic-ep --data-parallel-size 2"
    ]
    assert "env" not in c


def test_multinode_elastic_ep_worker_waits_for_leader_live_then_joins() -> None:
    c = {"command": ["python3", "-m", "dynamo.vllm"], "args": ["--enable-elastic-ep"], **copy.deepcopy(PROBES)}
    update_container(c, backend_input("worker", 2, gpus=8, wiring="lws"))
    assert c["command"] == ["/bin/sh", "-c"]
    assert c["args"] == [
        "i=0; until python3 -c \"import urllib.request; urllib.request.urlopen('http://$(LWS_LEADER_ADDRESS):9090/live', "
        'timeout=5)" 2>/dev/null; do i=$((i+1)); [ "$i" -ge 720 ] && { echo "ERROR: leader /live did not become ready '
        "within 3h\" >&2; exit 1; }; echo 'waiting for leader dynamo.vllm /live to return 200...'; sleep 15; done "
        "&& ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"
    ]
    assert not any(k in c for k in PROBES)


# --- GMS, compilation cache ---------------------------------------------------------------------------


def test_inter_pod_gms_adds_load_format_and_failover_adds_shadow_mode() -> None:
    exp = {"experimental": {"gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod"}}}
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}
    update_container(c, backend_input("main", 1, gpus=1, **exp))
    assert c["args"] == ["-m", "dynamo.vllm", "--load-format", "gms"]
    assert c["env"] == [{"name": "DYN_VLLM_GMS_SHADOW_MODE", "value": "true"}]


def test_inter_pod_gms_does_not_duplicate_existing_load_format() -> None:
    exp = {"experimental": {"gpuMemoryService": {"mode": "InterPod"}}}
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--load-format=gms"]}
    update_container(c, backend_input("main", 1, gpus=1, **exp))
    assert c == {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--load-format=gms"]}


def test_intra_pod_gms_changes_nothing() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}
    update_container(c, backend_input("main", 1, gpus=1, experimental={"gpuMemoryService": {}}))
    assert c == {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}


def test_compilation_cache_sets_vllm_cache_root_last() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"], "env": [{"name": "Z", "value": "1"}]}
    update_container(c, backend_input("leader", 2, gpus=8, wiring="lws", annotations={EXECUTOR: "mp"},
                                      compilation_cache_mount_path="/root/.cache/vllm"))
    assert c["env"][-1] == {"name": "VLLM_CACHE_ROOT", "value": "/root/.cache/vllm"}
    assert env_names(c) == ["Z", "VLLM_NIXL_SIDE_CHANNEL_HOST", "VLLM_CACHE_ROOT"]


def test_no_compilation_cache_means_no_cache_env() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm"]}
    update_container(c, backend_input("main", 1, gpus=1))
    assert "env" not in c


# --- pod spec: wait-for-leader ---------------------------------------------------------------------------


def mp_worker_pod(image: Any = "img:1") -> dict[str, Any]:
    return {"containers": [{"name": "main", "image": image, "command": ["python3"],
                            "args": ["-m", "dynamo.vllm", "--distributed-executor-backend", "mp"]}],
            "volumes": [{"name": "shared-memory", "emptyDir": {"medium": "Memory"}}]}


def test_lws_mp_worker_gets_wait_for_leader_init_container_and_volume() -> None:
    pod = mp_worker_pod()
    update_pod_spec(pod, backend_input("worker", 2, wiring="lws", dgd_name="my-graph"))
    assert pod["volumes"][-1] == {"name": "wait-leader-script", "configMap": {"name": "my-graph-wait-leader-script"}}
    assert pod["initContainers"] == [{
        "name": "wait-for-leader-mp",
        "image": "img:1",
        "command": ["sh", "-c",
                    'export LEADER_HOST="${LWS_LEADER_ADDRESS}" LEADER_PORT="29500" && exec python3 /scripts/wait-for-leader.py'],
        "volumeMounts": [{"name": "wait-leader-script", "mountPath": "/scripts", "readOnly": True}],
    }]


def test_grove_mp_worker_init_container_uses_shell_variable_syntax() -> None:
    sentinel = object()  # an unresolved image passes through untouched
    pod = mp_worker_pod(sentinel)
    update_pod_spec(pod, backend_input("worker", 2, wiring="grove"))
    init = pod["initContainers"][0]
    assert init["image"] is sentinel
    assert init["command"][2] == (
        'export LEADER_HOST="${GROVE_PCSG_NAME}-${GROVE_PCSG_INDEX}-test-service-ldr-0.${GROVE_HEADLESS_SERVICE}" '
        'LEADER_PORT="29500" && exec python3 /scripts/wait-for-leader.py'
    )


@pytest.mark.parametrize(("role", "dgd_name"), [("leader", "g"), ("worker", "")])
def test_wait_for_leader_only_for_mp_workers_of_a_graph(role: str, dgd_name: str) -> None:
    pod = mp_worker_pod()
    before = copy.deepcopy(pod)
    update_pod_spec(pod, backend_input(role, 2, wiring="lws", dgd_name=dgd_name))
    assert pod == before


def test_ray_worker_gets_no_wait_for_leader() -> None:
    pod = {"containers": [{"name": "main", "command": ["/bin/sh", "-c"], "args": ["ray start --address=x:6379 --block"]}]}
    update_pod_spec(pod, backend_input("worker", 2, wiring="lws"))
    assert "initContainers" not in pod and "volumes" not in pod


def test_wait_leader_configmap_is_labelled_and_holds_a_python_script() -> None:
    cm = build_wait_leader_configmap("my-graph", "ns1")
    assert cm["metadata"] == {"name": "my-graph-wait-leader-script", "namespace": "ns1",
                              "labels": {"nvidia.com/dynamo-graph-deployment-name": "my-graph"}}
    assert cm["data"] == {"wait-for-leader.py": WAIT_LEADER_SCRIPT}
    tree = ast.parse(WAIT_LEADER_SCRIPT)
    assert {"LEADER_HOST", "LEADER_PORT"} <= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}


def test_multinode_without_wiring_is_a_render_error() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"]}
    with pytest.raises(RenderError, match="no multinode orchestrator"):
        update_container(c, backend_input("leader", 2, gpus=8))


def test_rendering_is_deterministic() -> None:
    outs = []
    for _ in range(2):
        c = example1_container()
        update_container(c, backend_input("leader", 2, gpus=1, wiring="lws"))
        outs.append(c)
    assert outs[0] == outs[1]


def test_golden_lws_worker_container_is_the_leader_container_without_probes(conformance_dir: Any) -> None:
    """The operator's golden dcd/lws: no GPUs, so only the worker's probes change."""
    golden = yaml.safe_load((conformance_dir / "golden" / "dcd" / "lws" / "output.yaml").read_text())
    templates = golden["spec"]["leaderWorkerTemplate"]
    leader_out = templates["leaderTemplate"]["spec"]["containers"][0]
    worker_out = templates["workerTemplate"]["spec"]["containers"][0]
    leader, worker = copy.deepcopy(leader_out), copy.deepcopy(leader_out)
    update_container(leader, backend_input("leader", 2, wiring="lws"))
    update_container(worker, backend_input("worker", 2, wiring="lws"))
    assert leader == leader_out
    assert worker == worker_out


def test_python_command_with_no_flags_and_no_args_gets_no_args_key() -> None:
    c: dict[str, Any] = {"command": ["python3"]}
    inject_flags(c, "", False, "vllm")
    assert c == {"command": ["python3"]}


# --- role templates: the user owns the launch, Dynamo keeps the wiring and port 29500 ----------------


MP_LEADER_ARGS = ["-m", "dynamo.vllm", "--model", "m", "--tensor-parallel-size", "16",
                  "--distributed-executor-backend", "mp", "--nnodes", "2",
                  "--master-addr", "$(LWS_LEADER_ADDRESS)", "--node-rank", "0"]
MP_WORKER_SCRIPT = ("exec python3 -m dynamo.vllm --model m --tensor-parallel-size 16 "
                    "--distributed-executor-backend mp --nnodes 2 --master-addr $(LWS_LEADER_ADDRESS) "
                    "--node-rank $(LWS_WORKER_INDEX) --headless")


def role_template(role: str, main: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"labels": {"role-tier": role}}, "spec": {"containers": [{"name": "main", **main}]}}


def role_input(role: str, main: dict[str, Any], *, nodes: int = 2, wiring: str = "lws",
               annotations: dict[str, Any] | None = None) -> BackendInput:
    """The input the pod assembly builds for a role of a role-template component: the component
    view carries the role's template as ``podTemplate`` and keeps ``roles``."""
    roles = [{"name": r, "podTemplate": role_template(r, main)} for r in ("leader", "worker")]
    spec = {"type": "worker", "multinode": {"nodeCount": nodes}, "roles": roles,
            "podTemplate": role_template(role, main)}
    return BackendInput(
        framework="vllm", role=role,  # type: ignore[arg-type]
        component=ComponentSpecFields.model_validate(spec), dgd_name="graph", namespace="ns",
        number_of_nodes=nodes, component_name="test-service", annotations=annotations or {},
        wiring=lws_wiring(nodes) if wiring == "lws" else grove_wiring("test-service", nodes),
    )


GPUS_8 = {"resources": {"limits": {"nvidia.com/gpu": "8"}}}


def test_manual_launch_is_only_for_multinode_roles_of_role_template_components() -> None:
    assert role_input("leader", GPUS_8).manual_launch
    assert role_input("worker", GPUS_8).manual_launch
    assert not backend_input("leader", 2, gpus=8, wiring="lws").manual_launch  # component template
    assert not backend_input("main", 1, gpus=8).manual_launch


def test_vllm_role_templates_keep_user_commands_and_get_master_port() -> None:
    annotations = {EXECUTOR: "mp"}
    leader = {"image": "v:1", "command": ["python3"], "args": list(MP_LEADER_ARGS), **GPUS_8,
              **copy.deepcopy(PROBES)}
    update_container(leader, role_input("leader", GPUS_8, annotations=annotations))
    assert leader["command"] == ["python3"]
    assert leader["args"] == [*MP_LEADER_ARGS, "--master-port", "29500"]
    assert all(k in leader for k in PROBES)
    assert leader["env"] == [{"name": "VLLM_NIXL_SIDE_CHANNEL_HOST", "valueFrom": POD_IP_REF}]

    worker = {"image": "v:1", "command": ["sh", "-c"], "args": [MP_WORKER_SCRIPT], **GPUS_8,
              **copy.deepcopy(PROBES)}
    update_container(worker, role_input("worker", GPUS_8, annotations=annotations))
    assert worker["command"] == ["sh", "-c"]
    assert worker["args"] == [MP_WORKER_SCRIPT.replace("dynamo.vllm ", "dynamo.vllm --master-port 29500 ", 1)]
    assert not any(k in worker for k in PROBES)  # multinode pod wiring: workers never serve health

    pod = {"containers": [worker]}
    update_pod_spec(pod, role_input("worker", GPUS_8, annotations=annotations))
    assert [c["name"] for c in pod["initContainers"]] == ["wait-for-leader-mp"]
    assert 'LEADER_PORT="29500"' in pod["initContainers"][0]["command"][2]
    assert pod["volumes"] == [{"name": "wait-leader-script", "configMap": {"name": "graph-wait-leader-script"}}]


def test_automatic_launch_of_the_same_command_still_rewrites_it() -> None:
    """Contrast: with a component template the operator owns the launch and appends its mp flags."""
    c = {"command": ["python3"], "args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"]}
    update_container(c, backend_input("leader", 2, gpus=8, wiring="lws", annotations={EXECUTOR: "mp"}))
    assert "--nnodes" in c["args"] and "--node-rank" in c["args"]


@pytest.mark.parametrize("pair", [["--master-port", "29500"], ["--master-port=29500"]])
def test_vllm_role_template_with_the_port_already_set_is_unchanged(pair: list[str]) -> None:
    c = {"command": ["python3"], "args": [*MP_LEADER_ARGS, *pair]}
    before = copy.deepcopy(c)
    update_container(c, role_input("leader", GPUS_8))
    assert c == before  # no mp annotation: no side-channel env either


def test_vllm_role_template_direct_vllm_serve_script_gets_port_inline() -> None:
    script = "exec vllm serve /mnt/models --distributed-executor-backend=mp --nnodes 2 | tee /log"
    c = {"command": ["/bin/sh", "-c"], "args": [script]}
    update_container(c, role_input("leader", GPUS_8))
    assert c["args"] == ["exec vllm serve /mnt/models --distributed-executor-backend=mp --nnodes 2 "
                         "--master-port 29500| tee /log"]


def test_vllm_role_template_non_shell_command_gets_port_appended_to_args() -> None:
    c = {"command": ["vllm", "serve", "m", "--distributed-executor-backend", "mp"]}
    update_container(c, role_input("leader", GPUS_8))
    assert c == {"command": ["vllm", "serve", "m", "--distributed-executor-backend", "mp"],
                 "args": ["--master-port", "29500"]}


def test_vllm_role_template_user_port_is_kept_and_followed_by_the_shared_port() -> None:
    c = {"command": ["python3"], "args": [*MP_LEADER_ARGS, "--master-port", "12345"]}
    update_container(c, role_input("leader", GPUS_8))
    assert c["args"][-4:] == ["--master-port", "12345", "--master-port", "29500"]


def test_vllm_role_template_mp_script_without_recognisable_launch_is_a_render_error() -> None:
    c = {"command": ["sh", "-c"], "args": ["./start.sh --distributed-executor-backend mp"]}
    with pytest.raises(RenderError, match="--master-port"):
        update_container(c, role_input("leader", GPUS_8))


@pytest.mark.parametrize("role", ["leader", "worker"])
@pytest.mark.parametrize("args", [
    ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"],  # automatic mode: Ray wrappers
    ["-m", "dynamo.vllm", "--data-parallel-size", "4"],  # automatic mode: DP hybrid-LB flags
    ["-m", "dynamo.vllm", "--enable-elastic-ep"],  # automatic mode: elastic-EP Ray wrappers
])
def test_vllm_role_templates_skip_ray_dp_and_elastic_ep_rewrites(role: str, args: list[str]) -> None:
    main = {"resources": {"claims": [{"name": "gpus"}]}}  # DRA only: the GPU count is never needed
    c = {"command": ["python3"], "args": list(args), **copy.deepcopy(PROBES)}
    update_container(c, role_input(role, main, wiring="grove"))
    assert c["command"] == ["python3"] and c["args"] == args
    assert all(k in c for k in PROBES) == (role == "leader")
    pod = {"containers": [c]}
    update_pod_spec(pod, role_input(role, main, wiring="grove"))
    assert "initContainers" not in pod  # no mp on the command line: no wait-for-leader


def test_vllm_role_templates_through_the_pod_assembly() -> None:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment
    from dynamo_pulumi.render.context import ComponentRenderContext
    from dynamo_pulumi.render.pod import build_pod_spec

    def template(role: str, args: list[str]) -> dict[str, Any]:
        return {"spec": {"containers": [{"name": "main", "image": "vllm:1.4.0", "command": ["python3"],
                                         "args": args, **GPUS_8}]}}

    worker_args = ["-m", "dynamo.vllm", "--tensor-parallel-size", "16", "--distributed-executor-backend", "mp",
                   "--node-rank", "$(LWS_WORKER_INDEX)", "--headless"]
    spec = {"type": "worker", "multinode": {"nodeCount": 2}, "roles": [
        {"name": "leader", "podTemplate": template("leader", MP_LEADER_ARGS)},
        {"name": "worker", "podTemplate": template("worker", worker_args)}]}
    dcd = DynamoComponentDeployment.model_validate({"metadata": {"name": "w"}, "spec": spec})
    pods = {
        role: build_pod_spec(ComponentRenderContext(
            dcd=dcd, dcd_name="w", graph_name="graph", namespace="ns", dynamo_namespace="ns-w",
            backend_framework="vllm", role=role, multinode_wiring=lws_wiring(2)))
        for role in ("leader", "worker")
    }
    assert pods["leader"]["containers"][0]["args"] == [*MP_LEADER_ARGS, "--master-port", "29500"]
    assert pods["worker"]["containers"][0]["args"] == [*worker_args, "--master-port", "29500"]
    assert "readinessProbe" in pods["leader"]["containers"][0]
    assert "readinessProbe" not in pods["worker"]["containers"][0]
    assert [c["name"] for c in pods["worker"]["initContainers"]] == ["wait-for-leader-mp"]
    assert "initContainers" not in pods["leader"]
