"""TRT-LLM backend: mpirun leader, sshd worker, SSH secret volume and mount (Example 8)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import ComponentSpecFields
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.backends import (
    BackendInput,
    grove_wiring,
    lws_wiring,
    update_container,
    update_pod_spec,
)

SECRET = "mpi-run-ssh-secret"
PROBES = {
    "livenessProbe": {"httpGet": {"path": "/live", "port": "system"}},
    "readinessProbe": {"httpGet": {"path": "/health", "port": "system"}},
    "startupProbe": {"httpGet": {"path": "/live", "port": "system"}},
}
SSH_SETUP = (
    "ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && "
    "cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && "
    "chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && "
    "printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config"
)
WORKER1 = "$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-1\\./')"
X_FLAGS = (
    "-x CPATH -x CUDA_VISIBLE_DEVICES -x HF_DATASETS_CACHE -x HF_ENDPOINT -x HF_HOME -x HF_TOKEN -x HOME "
    "-x HUGGING_FACE_HUB_TOKEN -x LD_LIBRARY_PATH -x MODEL_PATH -x NCCL_DEBUG -x NCCL_IB_DISABLE "
    "-x NCCL_P2P_DISABLE -x OMPI_MCA_orte_keep_fqdn_hostnames -x PATH -x PYTHONPATH -x TENSORRT_LLM_CACHE_DIR "
    "-x TOKENIZERS_PARALLELISM -x TRANSFORMERS_CACHE -x TRITON_PTXAS_PATH -x TRTLLM_USE_UCX_KVCACHE -x USER"
)


def backend_input(role: str, nodes: int = 2, gpus: int | None = 1, wiring: str = "lws",
                  gpu_key: str = "limits") -> BackendInput:
    main: dict[str, Any] = {"name": "main"}
    if gpus is not None:
        main["resources"] = {gpu_key: {"nvidia.com/gpu": str(gpus)}}
    wired = lws_wiring(nodes) if wiring == "lws" else grove_wiring("svc", nodes)
    return BackendInput(
        framework="trtllm", role=role,  # type: ignore[arg-type]
        component=ComponentSpecFields.model_validate({"type": "worker", "podTemplate": {"spec": {"containers": [main]}}}),
        dgd_name="g", namespace="ns", number_of_nodes=nodes, component_name="svc",
        platform=Platform.model_validate({"mpi": {"sshSecretName": SECRET}}), wiring=wired,
    )


def example8_container() -> dict[str, Any]:
    return {"name": "main", "args": ["python3", "--model", "test"], **copy.deepcopy(PROBES)}


def test_lws_leader_runs_ssh_setup_dns_wait_and_mpirun() -> None:
    c = example8_container()
    update_container(c, backend_input("leader"))
    dns_wait = (
        f"TIMEOUT=300; START_TIME=$(date +%s); for worker in {WORKER1}; do echo \"Waiting for DNS: $worker\"; "
        "until getent hosts $worker >/dev/null 2>&1; do CURRENT_TIME=$(date +%s); if [ $((CURRENT_TIME - START_TIME)) "
        "-gt $TIMEOUT ]; then echo \"ERROR: Timeout waiting for DNS: $worker\"; exit 1; fi; echo \"DNS not ready for "
        "$worker, retrying...\"; sleep 2; done; echo \"\u2713 DNS resolved: $worker\"; done; echo \"All workers DNS ready\""
    )
    mpirun = (
        'mpirun $([ "$(id -u)" = "0" ] && echo --allow-run-as-root) --oversubscribe -n 2 '
        f"-H $(LWS_LEADER_ADDRESS),{WORKER1} --mca pml ob1 "
        '--mca plm_rsh_args "-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa" '
        f"{X_FLAGS} bash -c 'trtllm-llmapi-launch python3 --model test'"
    )
    assert c["command"] == ["/bin/sh", "-c"]
    assert c["args"] == [f"mkdir -p $HOME/.ssh && {SSH_SETUP} && {dns_wait} && {mpirun}"]
    assert c["volumeMounts"] == [{"name": SECRET, "mountPath": "/ssh-pk", "readOnly": True}]
    assert c["env"] == [{"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "1"}]
    assert all(c[k] == PROBES[k] for k in PROBES)


def test_worker_runs_sshd_and_probes_only_the_ssh_port() -> None:
    c = example8_container()
    update_container(c, backend_input("worker"))
    assert c["command"] == ["/bin/sh", "-c"]
    assert c["args"] == [
        f"mkdir -p $HOME/.ssh $HOME/.ssh/host_keys $HOME/.ssh/run && {SSH_SETUP} && "
        "ssh-keygen -t rsa -f $HOME/.ssh/host_keys/ssh_host_rsa_key -N '' && "
        "ssh-keygen -t ecdsa -f $HOME/.ssh/host_keys/ssh_host_ecdsa_key -N '' && "
        "ssh-keygen -t ed25519 -f $HOME/.ssh/host_keys/ssh_host_ed25519_key -N '' && "
        "printf 'Port 2222\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_rsa_key\\n"
        "HostKey '$HOME'/.ssh/host_keys/ssh_host_ecdsa_key\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_ed25519_key\\n"
        "PidFile '$HOME'/.ssh/run/sshd.pid\\nStrictModes no\\nPermitRootLogin yes\\nPasswordAuthentication no\\n"
        "PubkeyAuthentication yes\\nAuthorizedKeysFile '$HOME'/.ssh/authorized_keys\\n' > $HOME/.ssh/sshd_config && "
        "/usr/sbin/sshd -D -f $HOME/.ssh/sshd_config"
    ]
    assert "livenessProbe" not in c and "startupProbe" not in c
    assert c["readinessProbe"] == {"tcpSocket": {"port": 2222}, "initialDelaySeconds": 20, "periodSeconds": 20,
                                   "timeoutSeconds": 5, "failureThreshold": 10}
    assert c["volumeMounts"] == [{"name": SECRET, "mountPath": "/ssh-pk", "readOnly": True}]


def test_pod_gets_secret_volume_with_mode_0644_serialised_as_420() -> None:
    pod: dict[str, Any] = {"containers": [{"name": "main"}], "volumes": [{"name": "shared-memory", "emptyDir": {}}]}
    update_pod_spec(pod, backend_input("worker"))
    assert pod["volumes"][-1] == {"name": SECRET, "secret": {"secretName": SECRET, "defaultMode": 420}}
    assert "defaultMode: 420" in yaml.safe_dump(pod)


def test_grove_leader_lists_clique_hosts_without_dns_wait_and_counts_all_ranks() -> None:
    c = {"command": ["python3", "-m", "dynamo.trtllm"], "args": ["--model-path", "m"]}
    update_container(c, backend_input("leader", nodes=3, gpus=2, wiring="grove"))
    arg = c["args"][0]
    prefix = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-svc"
    hosts = f"{prefix}-ldr-0.$(GROVE_HEADLESS_SERVICE),{prefix}-wkr-0.$(GROVE_HEADLESS_SERVICE),{prefix}-wkr-1.$(GROVE_HEADLESS_SERVICE)"
    assert f"--oversubscribe -n 6 -H {hosts} --mca pml ob1" in arg
    assert "getent hosts" not in arg
    assert arg.endswith("bash -c 'trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path m'")


def test_python_leader_command_quotes_json_args() -> None:
    c = {"command": ["python3", "-m", "dynamo.trtllm"],
         "args": ["--model-path", "deepseek-ai/DeepSeek-R1", "--override-engine-args",
                  '{"load_format": "DUMMY", "tensor_parallel_size": 8}']}
    update_container(c, backend_input("leader", gpu_key="requests", gpus=4, wiring="grove"))
    assert ('--override-engine-args "{\\"load_format\\": \\"DUMMY\\", \\"tensor_parallel_size\\": 8}"\'' in c["args"][0])
    assert "-n 8 " in c["args"][0]


def test_shell_leader_command_joins_args_unquoted() -> None:
    c = {"command": ["sh", "-c"], "args": ["python3 -m dynamo.trtllm --x 1"]}
    update_container(c, backend_input("leader"))
    assert c["args"][0].endswith("bash -c 'trtllm-llmapi-launch python3 -m dynamo.trtllm --x 1'")


def test_command_only_leader_uses_command() -> None:
    c = {"command": ["trtllm-serve", "m"]}
    update_container(c, backend_input("leader"))
    assert c["args"][0].endswith("bash -c 'trtllm-llmapi-launch trtllm-serve m'")


def test_mpirun_forwards_every_container_env_name_sorted() -> None:
    c = {"args": ["python3"], "env": [{"name": "ZED", "value": "1"}, {"name": "AAA", "valueFrom": {"x": 1}}]}
    update_container(c, backend_input("leader"))
    arg = c["args"][0]
    assert "--mca plm_rsh_args \"-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa\" -x AAA -x CPATH" in arg
    assert "-x USER -x ZED bash -c" in arg


@pytest.mark.parametrize("role", ["main", "leader", "worker"])
def test_single_node_is_untouched(role: str) -> None:
    c = example8_container()
    pod: dict[str, Any] = {"containers": [c]}
    before = copy.deepcopy(pod)
    inp = backend_input(role, nodes=1)
    update_container(c, inp)
    update_pod_spec(pod, inp)
    assert pod == before


def test_default_secret_name_comes_from_platform_defaults() -> None:
    inp = BackendInput(
        framework="trtllm", role="worker", component=ComponentSpecFields.model_validate({"type": "worker"}),
        dgd_name="g", namespace="ns", number_of_nodes=2, wiring=lws_wiring(2),
    )
    pod: dict[str, Any] = {"containers": []}
    update_pod_spec(pod, inp)
    assert pod["volumes"] == [{"name": "mpirun-ssh-key", "secret": {"secretName": "mpirun-ssh-key", "defaultMode": 420}}]


# --- role templates: the user owns mpirun/sshd, Dynamo keeps the SSH and probe wiring --------------------


def role_input(role: str, main: dict[str, Any], nodes: int = 2, wiring: str = "lws") -> BackendInput:
    """A role of a component with complete role templates, as the pod assembly hands it over."""
    def template(r: str) -> dict[str, Any]:
        return {"spec": {"containers": [{"name": "main", **main}]}}

    spec = {"type": "worker", "multinode": {"nodeCount": nodes}, "podTemplate": template(role),
            "roles": [{"name": r, "podTemplate": template(r)} for r in ("leader", "worker")]}
    return BackendInput(
        framework="trtllm", role=role,  # type: ignore[arg-type]
        component=ComponentSpecFields.model_validate(spec),
        dgd_name="g", namespace="ns", number_of_nodes=nodes, component_name="svc",
        platform=Platform.model_validate({"mpi": {"sshSecretName": SECRET}}),
        wiring=lws_wiring(nodes) if wiring == "lws" else grove_wiring("svc", nodes),
    )


USER_LEADER = {"command": ["bash", "-c"], "args": ["/opt/launch-leader.sh && mpirun -n 16 trtllm-llmapi-launch x"]}
USER_WORKER = {"command": ["bash", "-c"], "args": ["/opt/start-sshd.sh"]}
DRA_ONLY = {"resources": {"claims": [{"name": "gpus"}]}}  # the GPU count (mpirun -n) is never resolved


@pytest.mark.parametrize("wiring", ["lws", "grove"])
def test_trtllm_role_templates_keep_user_commands_and_ssh_wiring(wiring: str) -> None:
    leader = {**copy.deepcopy(USER_LEADER), **copy.deepcopy(PROBES)}
    update_container(leader, role_input("leader", DRA_ONLY, wiring=wiring))
    assert {k: leader[k] for k in ("command", "args")} == USER_LEADER  # no key-setup + mpirun script
    assert all(leader[k] == PROBES[k] for k in PROBES)
    assert leader["volumeMounts"] == [{"name": SECRET, "mountPath": "/ssh-pk", "readOnly": True}]
    assert leader["env"] == [{"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "1"}]

    worker = {**copy.deepcopy(USER_WORKER), **copy.deepcopy(PROBES)}
    update_container(worker, role_input("worker", DRA_ONLY, wiring=wiring))
    assert {k: worker[k] for k in ("command", "args")} == USER_WORKER  # no sshd script
    assert "livenessProbe" not in worker and "startupProbe" not in worker
    assert worker["readinessProbe"] == {"tcpSocket": {"port": 2222}, "initialDelaySeconds": 20,
                                        "periodSeconds": 20, "timeoutSeconds": 5, "failureThreshold": 10}
    assert worker["volumeMounts"] == leader["volumeMounts"]
    assert worker["env"] == leader["env"]


@pytest.mark.parametrize("role", ["leader", "worker"])
def test_trtllm_role_template_pods_still_get_the_ssh_secret_volume(role: str) -> None:
    pod: dict[str, Any] = {"containers": [copy.deepcopy(USER_LEADER)]}
    update_pod_spec(pod, role_input(role, DRA_ONLY))
    assert pod["volumes"] == [{"name": SECRET, "secret": {"secretName": SECRET, "defaultMode": 420}}]
    assert pod["containers"] == [USER_LEADER]
