"""TRT-LLM multinode launch (mpirun over SSH), translated from the operator's Go tests
(``internal/dynamo/backend_trtllm_test.go``: ``TestTRTLLMBackend_setupLeaderContainer``,
``TestTRTLLMBackend_setupWorkerContainer``).

The Go cases rewrite a bare container; here the component goes through the whole pipeline, so
the leader's container already holds the operator's env when the backend runs (as in the real
controller) and ``-x`` forwards those names too. The assertions take the Go expectation's parts:
the SSH preamble, ``mpirun`` size and hosts, the fixed forwarded names, and the launched command.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from oracle_support import cliques, main_of, of_kind, render_yaml

from dynamo_pulumi.platform import Platform

SSH_SETUP = (
    "mkdir -p $HOME/.ssh && ls -la /ssh-pk/ && cp /ssh-pk/private.key $HOME/.ssh/id_rsa && "
    "cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys && "
    "chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 $HOME/.ssh/id_rsa.pub && "
    "printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort 2222\\n' > $HOME/.ssh/config"
)
MPIRUN = '&& mpirun $([ "$(id -u)" = "0" ] && echo --allow-run-as-root) --oversubscribe -n '
MCA = '--mca pml ob1 --mca plm_rsh_args "-p 2222 -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa"'
FORWARDED = [
    "CPATH", "CUDA_VISIBLE_DEVICES", "HF_DATASETS_CACHE", "HF_ENDPOINT", "HF_HOME", "HF_TOKEN", "HOME",
    "HUGGING_FACE_HUB_TOKEN", "LD_LIBRARY_PATH", "MODEL_PATH", "NCCL_DEBUG", "NCCL_IB_DISABLE", "NCCL_P2P_DISABLE",
    "PATH", "PYTHONPATH", "TENSORRT_LLM_CACHE_DIR", "TOKENIZERS_PARALLELISM", "TRANSFORMERS_CACHE",
    "TRITON_PTXAS_PATH", "TRTLLM_USE_UCX_KVCACHE", "USER",
]
WORKER_SCRIPT = (
    "mkdir -p $HOME/.ssh $HOME/.ssh/host_keys $HOME/.ssh/run && ls -la /ssh-pk/ && cp /ssh-pk/private.key "
    "$HOME/.ssh/id_rsa && cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub && cp /ssh-pk/private.key.pub "
    "$HOME/.ssh/authorized_keys && chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys && chmod 644 "
    "$HOME/.ssh/id_rsa.pub && printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\nPort "
    "2222\\n' > $HOME/.ssh/config && ssh-keygen -t rsa -f $HOME/.ssh/host_keys/ssh_host_rsa_key -N '' && ssh-keygen "
    "-t ecdsa -f $HOME/.ssh/host_keys/ssh_host_ecdsa_key -N '' && ssh-keygen -t ed25519 -f "
    "$HOME/.ssh/host_keys/ssh_host_ed25519_key -N '' && printf 'Port 2222\\nHostKey "
    "'$HOME'/.ssh/host_keys/ssh_host_rsa_key\\nHostKey '$HOME'/.ssh/host_keys/ssh_host_ecdsa_key\\nHostKey "
    "'$HOME'/.ssh/host_keys/ssh_host_ed25519_key\\nPidFile '$HOME'/.ssh/run/sshd.pid\\nStrictModes "
    "no\\nPermitRootLogin yes\\nPasswordAuthentication no\\nPubkeyAuthentication yes\\nAuthorizedKeysFile "
    "'$HOME'/.ssh/authorized_keys\\n' > $HOME/.ssh/sshd_config && /usr/sbin/sshd -D -f $HOME/.ssh/sshd_config"
)


def _grove_hosts(service: str, nodes: int) -> str:
    host = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{}.$(GROVE_HEADLESS_SERVICE)"
    return ",".join([host.format(f"{service}-ldr-0"), *(host.format(f"{service}-wkr-{i}") for i in range(nodes - 1))])


def _graph(service: str, nodes: int, command: list[str], args: list[str], resources: dict[str, Any] | None,
           env: list[dict[str, str]] | None = None) -> str:
    main: dict[str, Any] = {"name": "main", "image": "trtllm:1.4.0", "command": command, "args": args}
    if resources:
        main["resources"] = resources
    if env:
        main["env"] = env
    return json.dumps({"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
                       "metadata": {"name": "g", "namespace": "ns"},
                       "spec": {"backendFramework": "trtllm", "components": [{
                           "name": service, "type": "worker", "multinode": {"nodeCount": nodes},
                           "podTemplate": {"spec": {"containers": [main]}}}]}})


def _containers(text: str, pathway: str, service: str) -> tuple[dict[str, Any], dict[str, Any]]:
    grove = pathway == "grove"
    result = render_yaml(text, Platform.model_validate({"orchestrators": {"grove": {"enabled": grove},
                                                                          "lws": {"enabled": not grove}}}))
    if grove:
        found = cliques(result)
        return (main_of(found[f"{service}-ldr"]["spec"]["podSpec"]),
                main_of(found[f"{service}-wkr"]["spec"]["podSpec"]))
    (lws,) = of_kind(result, "LeaderWorkerSet").values()
    template = lws["spec"]["leaderWorkerTemplate"]
    return main_of(template["leaderTemplate"]["spec"]), main_of(template["workerTemplate"]["spec"])


def _forwarded(script: str) -> list[str]:
    words = script.split()
    return [words[i + 1] for i, word in enumerate(words) if word == "-x"]


LEADER = [
    ("Leader with args and GPU resources", "grove", "test-service", 3, [], ["python3", "--model", "test"],
     {"requests": {"nvidia.com/gpu": "2"}}, 6, "python3 --model test"),
    ("Leader with both command and args (shell command - args take precedence)", "grove", "test", 2, ["sh", "-c"],
     ["launch", "--config", "test.yaml"], {"limits": {"nvidia.com/gpu": "1"}}, 2, "launch --config test.yaml"),
    ("Leader with python command and args (combined)", "grove", "test", 2, ["python3"],
     ["-m", "dynamo.trtllm", "--model-path", "test"], {"limits": {"nvidia.com/gpu": "1"}}, 2,
     "python3 -m dynamo.trtllm --model-path test"),
    ("Leader with python module command and separate args", "grove", "test", 2, ["python3", "-m", "dynamo.trtllm"],
     ["--model-path", "Qwen/Qwen3-0.6B", "--served-model-name", "Qwen/Qwen3-0.6B", "--disaggregation-mode", "prefill"],
     {"limits": {"nvidia.com/gpu": "1"}}, 2,
     "python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --served-model-name Qwen/Qwen3-0.6B "
     "--disaggregation-mode prefill"),
    ("Leader with absolute path python command", "grove", "test", 2, ["/usr/bin/python3.8"],
     ["-m", "dynamo.trtllm", "--model-path", "test"], {"limits": {"nvidia.com/gpu": "1"}}, 2,
     "/usr/bin/python3.8 -m dynamo.trtllm --model-path test"),
    ("Leader with all environment variables forwarded", "grove", "test", 2, [], ["serve", "--model", "test"],
     {"requests": {"nvidia.com/gpu": "1"}}, 2, "serve --model test"),
]


# from backend_trtllm_test.go: TestTRTLLMBackend_setupLeaderContainer (Grove rows)
@pytest.mark.parametrize(("case", "pathway", "service", "nodes", "command", "args", "resources", "size", "launched"),
                         LEADER, ids=[c[0] for c in LEADER])
def test_trtllm_leader_runs_mpirun_over_every_node(case: str, pathway: str, service: str, nodes: int,
                                                   command: list[str], args: list[str], resources: dict[str, Any],
                                                   size: int, launched: str) -> None:
    leader, _ = _containers(_graph(service, nodes, command, args, resources), pathway, service)
    assert leader["command"] == ["/bin/sh", "-c"]
    (script,) = leader["args"]
    assert script.startswith(SSH_SETUP + " ")
    assert f"{MPIRUN}{size} -H {_grove_hosts(service, nodes)} {MCA} " in script
    assert set(FORWARDED) <= set(_forwarded(script))
    assert script.endswith(f" bash -c 'trtllm-llmapi-launch {launched}'")


# from backend_trtllm_test.go: TestTRTLLMBackend_setupLeaderContainer ("Leader with command and no GPU resources", LWS)
def test_trtllm_lws_leader_waits_for_worker_dns_and_sizes_mpirun_from_zero_gpus() -> None:
    leader, _ = _containers(_graph("worker", 2, ["python", "-m", "worker"], [], None), "lws", "worker")
    (script,) = leader["args"]
    assert script.startswith(SSH_SETUP + " && TIMEOUT=300; START_TIME=$(date +%s); for worker in "
                             "$(echo \"$LWS_LEADER_ADDRESS\" | sed 's/\\./-1\\./'); do")
    assert 'echo "All workers DNS ready" ' + MPIRUN + "0 -H $(LWS_LEADER_ADDRESS),$(echo \"$LWS_LEADER_ADDRESS\" | " \
           "sed 's/\\./-1\\./') " + MCA in script
    assert script.endswith(" bash -c 'trtllm-llmapi-launch python -m worker'")


# from backend_trtllm_test.go: TestTRTLLMBackend_setupLeaderContainer ("Leader with overlapping environment variables")
def test_trtllm_leader_forwards_container_env_once() -> None:
    env = [{"name": "CUDA_VISIBLE_DEVICES", "value": "0,1"}, {"name": "CUSTOM_VAR", "value": "test_value"},
           {"name": "PATH", "value": "/custom/path"}]
    leader, _ = _containers(_graph("test", 2, [], ["serve", "--model", "test"], {"requests": {"nvidia.com/gpu": "1"}},
                                   env), "grove", "test")
    forwarded = _forwarded(leader["args"][0])
    assert "CUSTOM_VAR" in forwarded
    assert len(forwarded) == len(set(forwarded))
    assert forwarded == sorted(forwarded)


# from backend_trtllm_test.go: TestTRTLLMBackend_setupWorkerContainer (both rows)
@pytest.mark.parametrize(("command", "args"), [([], ["some", "args"]), (["original", "command"], [])],
                         ids=["Worker setup with initial args", "Worker setup with initial command"])
def test_trtllm_workers_run_only_sshd(command: list[str], args: list[str]) -> None:
    _, worker = _containers(_graph("test", 2, command, args, {"limits": {"nvidia.com/gpu": "1"}}), "grove", "test")
    assert worker["command"] == ["/bin/sh", "-c"]
    assert worker["args"] == [WORKER_SCRIPT]
