"""TRT-LLM multinode: the leader runs ``mpirun`` over SSH, workers run ``sshd`` (core 4.3).

MPI starts every rank from the leader, so workers only need an SSH daemon on port 2222 with the
shared key pair from the ``mpi.sshSecretName`` Secret, and a readiness probe on that port. The
leader copies the same keys, optionally waits until the LWS worker names resolve, and launches
``trtllm-llmapi-launch <original command>`` on ``nodes x GPUs`` ranks, forwarding the usual
environment with ``-x``. Single-node pods are untouched (no compilation-cache env either).

With complete role templates (:attr:`BackendInput.manual_launch`) the leader's key-setup +
``mpirun`` script and the worker's ``sshd`` script are not written: the user's commands stay.
The multinode wiring stays (the operator's ``MultinodeWiring`` and ``PodSpec`` groups): the
worker's probes (liveness/startup removed, readiness on the SSH port), the SSH key Secret
volume and its ``/ssh-pk`` mount, and ``OMPI_MCA_orte_keep_fqdn_hostnames=1``, because a
user-written mpirun/sshd launch still needs the key pair the operator distributes.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import MPI_RUN_SSH_PORT
from dynamo_pulumi.render.backends import flags as fl
from dynamo_pulumi.render.backends.base import ROLE_LEADER, ROLE_WORKER, BackendInput
from dynamo_pulumi.render.backends.edits import append_env, append_to, remove_probes
from dynamo_pulumi.render.backends.multinode import MultinodeWiring
from dynamo_pulumi.render.backends.resolve import container_gpus, require_wiring

SSH_KEY_MOUNT_PATH = "/ssh-pk"
#: Octal 0644, serialised as the integer 420 (ERRATA 26).
SSH_SECRET_DEFAULT_MODE = 0o644
OMPI_KEEP_FQDN_ENV = "OMPI_MCA_orte_keep_fqdn_hostnames"
DNS_WAIT_TIMEOUT_SECONDS = 300

#: Environment every mpirun rank receives, besides the container's own variables (ERRATA 20).
COMMON_TRTLLM_ENV_VARS: frozenset[str] = frozenset({
    "CPATH", "CUDA_VISIBLE_DEVICES", "HF_DATASETS_CACHE", "HF_ENDPOINT", "HF_HOME", "HF_TOKEN",
    "HOME", "HUGGING_FACE_HUB_TOKEN", "LD_LIBRARY_PATH", "MODEL_PATH", "NCCL_DEBUG",
    "NCCL_IB_DISABLE", "NCCL_P2P_DISABLE", "PATH", "PYTHONPATH", "TENSORRT_LLM_CACHE_DIR",
    "TOKENIZERS_PARALLELISM", "TRANSFORMERS_CACHE", "TRITON_PTXAS_PATH", "TRTLLM_USE_UCX_KVCACHE",
    "USER",
})

# $HOME rather than ~: images may set HOME while running as root, and sshd/mpirun follow HOME.
_COPY_KEYS: tuple[str, ...] = (
    "ls -la /ssh-pk/",
    "cp /ssh-pk/private.key $HOME/.ssh/id_rsa",
    "cp /ssh-pk/private.key.pub $HOME/.ssh/id_rsa.pub",
    "cp /ssh-pk/private.key.pub $HOME/.ssh/authorized_keys",
    "chmod 600 $HOME/.ssh/id_rsa $HOME/.ssh/authorized_keys",
    "chmod 644 $HOME/.ssh/id_rsa.pub",
    "printf 'Host *\\nIdentityFile '$HOME'/.ssh/id_rsa\\nStrictHostKeyChecking no\\n"
    f"Port {MPI_RUN_SSH_PORT}\\n' > $HOME/.ssh/config",
)
_HOST_KEY_TYPES: tuple[str, ...] = ("rsa", "ecdsa", "ed25519")


def update_container(container: dict[str, Any], inp: BackendInput) -> None:
    """``TRTLLMBackend.UpdateContainer`` for multinode pods."""
    if not inp.is_multinode:
        return
    if inp.role == ROLE_WORKER:
        remove_probes(container, "livenessProbe", "startupProbe")
        container["readinessProbe"] = {
            "tcpSocket": {"port": MPI_RUN_SSH_PORT},
            "initialDelaySeconds": 20,
            "periodSeconds": 20,
            "timeoutSeconds": 5,
            "failureThreshold": 10,
        }
    secret = inp.platform.mpi.ssh_secret_name
    append_to(container, "volumeMounts", {"name": secret, "mountPath": SSH_KEY_MOUNT_PATH, "readOnly": True})
    append_env(container, OMPI_KEEP_FQDN_ENV, "1")
    if inp.manual_launch:
        return
    if inp.role == ROLE_LEADER:
        _setup_leader(container, inp, require_wiring(inp), container_gpus(inp))
    elif inp.role == ROLE_WORKER:
        container["command"] = ["/bin/sh", "-c"]
        container["args"] = [" && ".join(worker_commands())]


def update_pod_spec(pod_spec: dict[str, Any], inp: BackendInput) -> None:
    """The SSH key pair Secret as a pod volume, on every multinode pod (role templates too)."""
    if not inp.is_multinode:
        return
    secret = inp.platform.mpi.ssh_secret_name
    append_to(
        pod_spec,
        "volumes",
        {"name": secret, "secret": {"secretName": secret, "defaultMode": SSH_SECRET_DEFAULT_MODE}},
    )


def worker_commands() -> list[str]:
    """Key setup, host keys in a writable directory, and sshd in the foreground on port 2222."""
    host_keys = [f"$HOME/.ssh/host_keys/ssh_host_{kind}_key" for kind in _HOST_KEY_TYPES]
    keygen = [f"ssh-keygen -t {kind} -f {path} -N ''" for kind, path in zip(_HOST_KEY_TYPES, host_keys, strict=True)]
    host_key_lines = "".join(f"HostKey '$HOME'/.ssh/host_keys/ssh_host_{kind}_key\\n" for kind in _HOST_KEY_TYPES)
    sshd_config = (
        f"printf 'Port {MPI_RUN_SSH_PORT}\\n{host_key_lines}PidFile '$HOME'/.ssh/run/sshd.pid\\n"
        "StrictModes no\\nPermitRootLogin yes\\nPasswordAuthentication no\\nPubkeyAuthentication yes\\n"
        "AuthorizedKeysFile '$HOME'/.ssh/authorized_keys\\n' > $HOME/.ssh/sshd_config"
    )
    return [
        "mkdir -p $HOME/.ssh $HOME/.ssh/host_keys $HOME/.ssh/run",
        *_COPY_KEYS,
        *keygen,
        sshd_config,
        "/usr/sbin/sshd -D -f $HOME/.ssh/sshd_config",
    ]


def _setup_leader(container: dict[str, Any], inp: BackendInput, wiring: MultinodeWiring, gpus: int) -> None:
    hosts = list(wiring.host_names)
    commands = ["mkdir -p $HOME/.ssh", *_COPY_KEYS]
    if wiring.needs_dns_wait:
        commands.append(dns_wait_command(hosts[1:]))
    commands.append(mpirun_command(container, hosts, inp.number_of_nodes * gpus))
    container["command"] = ["/bin/sh", "-c"]
    container["args"] = [" && ".join(commands)]


def original_command(container: dict[str, Any]) -> str:
    """The launch to wrap: quoted tokens for a python command, else args, else command, joined."""
    command = container.get("command") or []
    if command and fl.is_python_command(command[0]):
        tokens = [*fl.text_tokens(command, "command"), *fl.text_tokens(container.get("args"), "args")]
        return " ".join(fl.shell_quote_for_bash_c(t) for t in tokens)
    args = fl.text_tokens(container.get("args"), "args")
    if args:
        return " ".join(args)
    return " ".join(fl.text_tokens(command, "command"))


def mpirun_env_flags(container: dict[str, Any]) -> str:
    """``-x NAME`` for the sorted union of the common set and every env name on the container."""
    names = set(COMMON_TRTLLM_ENV_VARS)
    names.update(
        env["name"] for env in container.get("env") or [] if isinstance(env, dict) and isinstance(env.get("name"), str)
    )
    return " ".join(f"-x {name}" for name in sorted(names))


def mpirun_command(container: dict[str, Any], hosts: list[str], total_ranks: int) -> str:
    return (
        'mpirun $([ "$(id -u)" = "0" ] && echo --allow-run-as-root) --oversubscribe '
        f"-n {total_ranks} -H {','.join(hosts)} --mca pml ob1 "
        f'--mca plm_rsh_args "-p {MPI_RUN_SSH_PORT} -o StrictHostKeyChecking=no -i $HOME/.ssh/id_rsa" '
        f"{mpirun_env_flags(container)} bash -c 'trtllm-llmapi-launch {original_command(container)}'"
    )


def dns_wait_command(worker_hosts: list[str]) -> str:
    """Wait (up to 300 s overall) until every worker host name resolves: LWS pods start together."""
    return (
        f"TIMEOUT={DNS_WAIT_TIMEOUT_SECONDS}; START_TIME=$(date +%s); for worker in {' '.join(worker_hosts)}; do "
        'echo "Waiting for DNS: $worker"; until getent hosts $worker >/dev/null 2>&1; do '
        "CURRENT_TIME=$(date +%s); if [ $((CURRENT_TIME - START_TIME)) -gt $TIMEOUT ]; then "
        'echo "ERROR: Timeout waiting for DNS: $worker"; exit 1; fi; '
        'echo "DNS not ready for $worker, retrying..."; sleep 2; done; '
        'echo "\u2713 DNS resolved: $worker"; done; echo "All workers DNS ready"'
    )
