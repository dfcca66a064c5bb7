"""SGLang backend: dist-init flags under LWS and Grove, probe removal, NIXL exporter ports."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from dynamo_pulumi.api.v1beta1 import ComponentSpecFields
from dynamo_pulumi.render.backends import (
    BackendInput,
    grove_wiring,
    lws_wiring,
    update_container,
    update_pod_spec,
)

PROBES = {
    "livenessProbe": {"httpGet": {"path": "/live", "port": "system"}},
    "readinessProbe": {"httpGet": {"path": "/health", "port": "system"}},
    "startupProbe": {"httpGet": {"path": "/live", "port": "system"}},
}
GROVE_LEADER = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-worker-ldr-0.$(GROVE_HEADLESS_SERVICE)"


def backend_input(role: str = "main", nodes: int = 1, wiring: str | None = None, gpus: int | None = None,
                  name: str = "test-service") -> BackendInput:
    main: dict[str, Any] = {"name": "main"}
    if gpus is not None:
        main["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    wired = lws_wiring(nodes) if wiring == "lws" else grove_wiring(name, nodes) if wiring == "grove" else None
    return BackendInput(
        framework="sglang", role=role,  # type: ignore[arg-type]
        component=ComponentSpecFields.model_validate({"type": "worker", "podTemplate": {"spec": {"containers": [main]}}}),
        dgd_name="g", namespace="ns", number_of_nodes=nodes, component_name=name, wiring=wired,
    )


# --- Example 7 (rendering-core section 9) -------------------------------------------------------------


def test_lws_worker_appends_dist_init_flags_with_worker_index() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.sglang", "--model", "llama"]}
    update_container(c, backend_input("worker", 2, "lws"))
    assert c == {"command": ["python3"], "args": [
        "-m", "dynamo.sglang", "--model", "llama", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):29500",
        "--nnodes", "2", "--node-rank", "$(LWS_WORKER_INDEX)"]}


def test_lws_leader_appends_rank_zero() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.sglang"]}
    update_container(c, backend_input("leader", 2, "lws"))
    assert c["args"] == ["-m", "dynamo.sglang", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):29500",
                         "--nnodes", "2", "--node-rank", "0"]


def test_lws_leader_shell_string_gets_flags_inline() -> None:
    c = {"command": ["sh", "-c"], "args": ["python -m dynamo.sglang"]}
    update_container(c, backend_input("leader", 2, "lws"))
    assert c == {"command": ["sh", "-c"],
                 "args": ["python -m dynamo.sglang --dist-init-addr $(LWS_LEADER_ADDRESS):29500 --nnodes 2 --node-rank 0"]}


def test_single_node_is_unchanged() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.sglang"], **copy.deepcopy(PROBES)}
    before = copy.deepcopy(c)
    update_container(c, backend_input("main", 1))
    assert c == before


def test_pipeline_flags_land_before_the_next_shell_operator() -> None:
    c = {"command": ["sh", "-c"], "args": ["echo blah | wc -l && python -m dynamo.sglang && ls -al"]}
    update_container(c, backend_input("leader", 2, "lws"))
    assert c["args"] == ["echo blah | wc -l && python -m dynamo.sglang --dist-init-addr $(LWS_LEADER_ADDRESS):29500 "
                         "--nnodes 2 --node-rank 0 && ls -al"]


def test_non_python_command_is_unchanged() -> None:
    c = {"command": ["java"], "args": ["-jar", "app.jar"]}
    update_container(c, backend_input("leader", 2, "lws"))
    assert c == {"command": ["java"], "args": ["-jar", "app.jar"]}


# --- Grove (rendering-grove examples 2 and 9) ------------------------------------------------------------


def test_grove_leader_shell_string_gets_leader_clique_address() -> None:
    c = {"command": ["/bin/sh", "-c"], "args": ["python3 -m dynamo.sglang --custom-flag custom-value"], **copy.deepcopy(PROBES)}
    update_container(c, backend_input("leader", 3, "grove", name="worker"))
    assert c["args"] == [f"python3 -m dynamo.sglang --dist-init-addr {GROVE_LEADER}:29500 --nnodes 3 --node-rank 0 "
                         "--custom-flag custom-value"]
    assert all(k in c for k in PROBES)


def test_grove_worker_shell_string_gets_arithmetic_rank_and_loses_probes() -> None:
    c = {"command": ["/bin/sh", "-c"], "args": ["python3 -m dynamo.sglang --custom-flag custom-value"], **copy.deepcopy(PROBES)}
    update_container(c, backend_input("worker", 3, "grove", name="worker"))
    assert c["command"] == ["/bin/sh", "-c"]
    assert c["args"] == [f"python3 -m dynamo.sglang --dist-init-addr {GROVE_LEADER}:29500 --nnodes 3 "
                         "--node-rank $((GROVE_PCLQ_POD_INDEX + 1)) --custom-flag custom-value"]
    assert not any(k in c for k in PROBES)


def test_grove_worker_python_command_is_wrapped_in_exec_shell() -> None:
    c = {"command": ["python3"], "args": ["-m", "dynamo.sglang", "--model", "llama"]}
    update_container(c, backend_input("worker", 2, "grove", name="worker"))
    assert c == {"command": ["sh", "-c"], "args": [
        f"exec python3 -m dynamo.sglang --model llama --dist-init-addr {GROVE_LEADER}:29500 --nnodes 2 "
        "--node-rank $((GROVE_PCLQ_POD_INDEX + 1))"]}


def test_grove_inter_pod_gms_rank_is_static_and_needs_no_shell() -> None:
    inp = backend_input("worker", 3)
    inp = dataclasses.replace(inp, wiring=grove_wiring("svc", 3, inter_pod_gms=True, rank=2))
    c = {"command": ["python3"], "args": ["-m", "dynamo.sglang"]}
    update_container(c, inp)
    assert c["command"] == ["python3"]
    assert c["args"][-2:] == ["--node-rank", "2"]
    assert c["args"][3] == "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-svc-ldr-$(GROVE_PCLQ_POD_INDEX).$(GROVE_HEADLESS_SERVICE):29500"


def test_sglang_adds_nothing_at_pod_level() -> None:
    pod = {"containers": [{"name": "main"}]}
    update_pod_spec(pod, backend_input("worker", 2, "lws"))
    assert pod == {"containers": [{"name": "main"}]}


# --- NIXL exporter ports ----------------------------------------------------------------------------------


def nixl_container(enable: Any) -> dict[str, Any]:
    return {"command": ["python3"], "args": ["-m", "dynamo.sglang"],
            "env": [{"name": "NIXL_TELEMETRY_ENABLE", "value": enable}],
            "ports": [{"protocol": "TCP", "name": "system", "containerPort": 9090},
                      {"protocol": "TCP", "name": "nixl", "containerPort": 19090}]}


def test_nixl_telemetry_on_reserves_one_port_per_colocated_rank() -> None:
    c = nixl_container(" Y ")
    update_container(c, backend_input("main", 1, gpus=3))
    assert c["ports"][2:] == [{"protocol": "TCP", "name": "nixl-1", "containerPort": 19091},
                              {"protocol": "TCP", "name": "nixl-2", "containerPort": 19092}]


def test_nixl_ports_are_capped_at_eight_ranks() -> None:
    c = nixl_container("y")
    update_container(c, backend_input("main", 1, gpus=16))
    assert [p["name"] for p in c["ports"][2:]] == [f"nixl-{i}" for i in range(1, 8)]


@pytest.mark.parametrize("enable", ["n", "", None, "yes"])
def test_nixl_telemetry_off_reserves_nothing(enable: Any) -> None:
    c = nixl_container(enable)
    update_container(c, backend_input("main", 1, gpus=4))
    assert len(c["ports"]) == 2


def test_container_without_nixl_port_reserves_nothing() -> None:
    c = nixl_container("y")
    c["ports"] = c["ports"][:1]
    update_container(c, backend_input("main", 1, gpus=4))
    assert [p["name"] for p in c["ports"]] == ["system"]


# --- role templates: the user owns the launch, Dynamo keeps the pod wiring -----------------------------


def role_input(role: str, main: dict[str, Any], nodes: int = 2, wiring: str = "grove") -> BackendInput:
    """A role of a component with complete role templates, as the pod assembly hands it over."""
    def template(r: str) -> dict[str, Any]:
        return {"spec": {"containers": [{"name": "main", **main}]}}

    spec = {"type": "worker", "multinode": {"nodeCount": nodes}, "podTemplate": template(role),
            "roles": [{"name": r, "podTemplate": template(r)} for r in ("leader", "worker")]}
    wired = lws_wiring(nodes) if wiring == "lws" else grove_wiring("worker", nodes)
    return BackendInput(
        framework="sglang", role=role,  # type: ignore[arg-type]
        component=ComponentSpecFields.model_validate(spec),
        dgd_name="g", namespace="ns", number_of_nodes=nodes, component_name="worker", wiring=wired,
    )


@pytest.mark.parametrize("wiring", ["lws", "grove"])
@pytest.mark.parametrize("role", ["leader", "worker"])
def test_sglang_role_templates_keep_user_commands_and_worker_probe_wiring(role: str, wiring: str) -> None:
    args = ["-m", "dynamo.sglang", "--model", "llama", "--dist-init-addr", "my-leader:5000", "--nnodes", "2",
            "--node-rank", "0" if role == "leader" else "1"]
    c = {"command": ["python3"], "args": list(args), **copy.deepcopy(PROBES)}
    update_container(c, role_input(role, {}, wiring=wiring))
    assert c["command"] == ["python3"]  # no sh -c wrapper for Grove rank arithmetic either
    assert c["args"] == args  # no --dist-init-addr <leader>:29500 / --nnodes / --node-rank added
    assert [k for k in PROBES if k in c] == (list(PROBES) if role == "leader" else [])


def test_sglang_role_template_shell_script_is_left_as_written() -> None:
    script = "python3 -m dynamo.sglang --custom-flag v && echo done"
    c = {"command": ["/bin/sh", "-c"], "args": [script]}
    update_container(c, role_input("leader", {}, nodes=3))
    assert c == {"command": ["/bin/sh", "-c"], "args": [script]}


def test_sglang_role_template_still_reserves_nixl_exporter_ports() -> None:
    c = nixl_container("y")
    update_container(c, role_input("worker", {"resources": {"limits": {"nvidia.com/gpu": "3"}}}))
    assert [p["name"] for p in c["ports"]] == ["system", "nixl", "nixl-1", "nixl-2"]
    assert c["args"] == ["-m", "dynamo.sglang"]
