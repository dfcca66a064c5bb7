"""Multinode launch rewriting by the vLLM backend, translated from the operator's Go tests
(``internal/dynamo/backend_vllm_test.go``: ``TestUpdateVLLMMultinodeArgs``, ``TestShouldUseMpBackend``).

The Go cases call the backend on one container with a chosen deployer (Grove or LWS) and
annotations; here a two-node graph named ``test-service`` goes through the whole pipeline on the
Grove or LWS pathway. The Go case's "nil annotations" (a legacy graph with no origin version)
is a graph created by an operator older than the multiprocessing gate (origin 0.9.0): on CREATE
the defaulting webhook always stamps the running operator's version.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from oracle_support import cliques, main_of, of_kind, render_yaml

from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.backends.vllm import should_use_mp_backend

GROVE_HOST = "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-test-service-ldr-0.$(GROVE_HEADLESS_SERVICE)"


def _platform(pathway: str, origin: str) -> Platform:
    grove = pathway == "grove"
    return Platform.model_validate({"operatorVersion": origin, "orchestrators": {
        "grove": {"enabled": grove}, "lws": {"enabled": not grove}}})


def _graph(command: list[str] | None, args: list[str], gpus: int = 8) -> str:
    main: dict[str, Any] = {"name": "main", "image": "vllm:1.4.0", "args": args,
                            "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}
    if command is not None:
        main["command"] = command
    return json.dumps({"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
                       "metadata": {"name": "g", "namespace": "ns"},
                       "spec": {"backendFramework": "vllm", "components": [{
                           "name": "test-service", "type": "worker", "multinode": {"nodeCount": 2},
                           "podTemplate": {"spec": {"containers": [main]}}}]}})


def _role_main(text: str, pathway: str, role: str, origin: str) -> dict[str, Any]:
    result = render_yaml(text, _platform(pathway, origin))
    if pathway == "grove":
        suffix = "ldr" if role == "leader" else "wkr"
        return main_of(cliques(result)[f"test-service-{suffix}"]["spec"]["podSpec"])
    (lws,) = of_kind(result, "LeaderWorkerSet").values()
    template = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate" if role == "leader" else "workerTemplate"]
    return main_of(template["spec"])


_TP16 = ["-m", "dynamo.vllm", "--tensor-parallel-size", "16"]
_DP16 = ["-m", "dynamo.vllm", "--data-parallel-size", "16"]
_MP_TAIL = ["--distributed-executor-backend", "mp", "--nnodes", "2"]

MULTINODE = [
    ("leader uses ray (nil annotations = legacy)", "grove", "leader", "0.9.0", ["python3"], _TP16,
     ["ray start --head --port=6379 && python3 -m dynamo.vllm --tensor-parallel-size 16 "
      "--distributed-executor-backend ray"]),
    ("leader uses mp (origin version >= threshold)", "grove", "leader", "1.0.0", ["python3"], _TP16,
     [*_TP16, *_MP_TAIL, "--master-addr", GROVE_HOST, "--master-port", "29500", "--node-rank", "0"]),
    ("worker uses mp (origin version >= threshold) Grove", "grove", "worker", "1.0.0", ["python3"], _TP16,
     [f"exec python3 -m dynamo.vllm --tensor-parallel-size 16 --distributed-executor-backend mp --nnodes 2 "
      f"--master-addr {GROVE_HOST} --master-port 29500 --node-rank $((GROVE_PCLQ_POD_INDEX + 1)) --headless"]),
    ("worker uses mp (origin version >= threshold) LWS", "lws", "worker", "1.0.0", ["python3"], _TP16,
     [*_TP16, *_MP_TAIL, "--master-addr", "$(LWS_LEADER_ADDRESS)", "--master-port", "29500",
      "--node-rank", "$(LWS_WORKER_INDEX)", "--headless"]),
    ("leader uses mp (origin version >= threshold) LWS", "lws", "leader", "1.0.0", ["python3"], _TP16,
     [*_TP16, *_MP_TAIL, "--master-addr", "$(LWS_LEADER_ADDRESS)", "--master-port", "29500", "--node-rank", "0"]),
    ("leader with data parallel launch LWS", "lws", "leader", "0.9.0", ["python3"], _DP16,
     [*_DP16, "--data-parallel-hybrid-lb", "--data-parallel-size-local", "8", "--data-parallel-start-rank", "0",
      "--data-parallel-address", "$(LWS_LEADER_ADDRESS)", "--data-parallel-rpc-port", "13445"]),
    ("leader prepends distributed data parallel flags (annotations don't affect DP path)", "grove", "leader", "0.9.0",
     ["python3"], _DP16,
     [*_DP16, "--data-parallel-hybrid-lb", "--data-parallel-size-local", "8", "--data-parallel-start-rank", "0",
      "--data-parallel-address", GROVE_HOST, "--data-parallel-rpc-port", "13445"]),
    ("worker with ray distributed launch Grove (nil annotations)", "grove", "worker", "0.9.0", None,
     ["python3", *_TP16], [f"ray start --address={GROVE_HOST}:6379 --block"]),
    ("worker with data parallel launch Grove", "grove", "worker", "0.9.0", ["python3"], _DP16,
     [f"exec python3 -m dynamo.vllm --data-parallel-size 16 --data-parallel-hybrid-lb --data-parallel-size-local 8 "
      f"--data-parallel-start-rank $(( 8 * $((GROVE_PCLQ_POD_INDEX + 1)) )) --data-parallel-address {GROVE_HOST} "
      "--data-parallel-rpc-port 13445"]),
    ("worker with data parallel launch Grove, tp > 1", "grove", "worker", "0.9.0", ["python3"],
     ["-m", "dynamo.vllm", "--data-parallel-size", "8", "--tensor-parallel-size", "2"],
     [f"exec python3 -m dynamo.vllm --data-parallel-size 8 --tensor-parallel-size 2 --data-parallel-hybrid-lb "
      f"--data-parallel-size-local 4 --data-parallel-start-rank $(( 4 * $((GROVE_PCLQ_POD_INDEX + 1)) )) "
      f"--data-parallel-address {GROVE_HOST} --data-parallel-rpc-port 13445"]),
    ("worker with ray distributed launch LWS (nil annotations)", "lws", "worker", "0.9.0", None,
     ["python3", *_TP16], ["ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"]),
]


# from backend_vllm_test.go: TestUpdateVLLMMultinodeArgs (one case per row)
@pytest.mark.parametrize(("case", "pathway", "role", "origin", "command", "args", "want"), MULTINODE,
                         ids=[c[0] for c in MULTINODE])
def test_vllm_multinode_launch_args(case: str, pathway: str, role: str, origin: str, command: list[str] | None,
                                    args: list[str], want: list[str]) -> None:
    assert _role_main(_graph(command, args), pathway, role, origin)["args"] == want


MP_BACKEND = [
    ("nil annotations = legacy = ray (delegates to feature gate)", None, False),
    ("empty annotations = legacy = ray (delegates to feature gate)", {}, False),
    ("explicit override mp takes priority over version", {"nvidia.com/dynamo-operator-origin-version": "0.1.0",
                                                          "nvidia.com/vllm-distributed-executor-backend": "mp"}, True),
    ("explicit override ray takes priority over version", {"nvidia.com/dynamo-operator-origin-version": "1.0.0",
                                                           "nvidia.com/vllm-distributed-executor-backend": "ray"}, False),
    ("explicit override mp (no origin version)", {"nvidia.com/vllm-distributed-executor-backend": "mp"}, True),
    ("explicit override with invalid value falls through to feature gate",
     {"nvidia.com/dynamo-operator-origin-version": "1.0.0", "nvidia.com/vllm-distributed-executor-backend": "invalid"},
     True),
    ("explicit override case insensitive MP", {"nvidia.com/vllm-distributed-executor-backend": "MP"}, True),
    ("explicit override case insensitive Ray", {"nvidia.com/dynamo-operator-origin-version": "1.0.0",
                                                "nvidia.com/vllm-distributed-executor-backend": "RAY"}, False),
]


# from backend_vllm_test.go: TestShouldUseMpBackend (one case per row)
@pytest.mark.parametrize(("case", "annotations", "want"), MP_BACKEND, ids=[c[0] for c in MP_BACKEND])
def test_the_vllm_distributed_executor_backend_choice(case: str, annotations: dict[str, str] | None,
                                                      want: bool) -> None:
    assert should_use_mp_backend(annotations or {}) is want


def test_a_dgd_backend_annotation_chooses_ray_for_a_new_graph() -> None:
    """``nvidia.com/vllm-distributed-executor-backend`` on the DGD reaches the pod template
    (``propagateDGDAnnotations``) and overrides the origin-version gate for the launch."""
    text = _graph(["python3"], _TP16).replace('"namespace": "ns"}',
                                              '"namespace": "ns", "annotations": '
                                              '{"nvidia.com/vllm-distributed-executor-backend": "ray"}}')
    leader = _role_main(text, "grove", "leader", "1.6.0")
    assert leader["args"][0].startswith("ray start --head --port=6379 && ")
