"""Intra-pod failover (two engine containers sharing the GPUs through GMS), translated from the
operator's Go tests (``internal/dynamo/failover_test.go``, ``TestBuildFailoverPod_*``).

The Go cases transform a hand-built pod spec that has "already been through GMS"; here a vLLM
decode component with ``experimental.gpuMemoryService`` and intra-pod ``failover`` goes through
the whole pipeline, so the engines are built from the pod the operator really builds before them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from oracle_support import cliques, env, of_kind, render_yaml

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform

PLATFORM = Platform.model_validate({"orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": True}},
                                    "dra": {"enabled": True}})
GROVE_DRA = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "dra": {"enabled": True}})
#: The Go base pod runs container discovery (``DYN_KUBE_DISCOVERY_MODE=container``): the annotation asks for it.
_CONTAINER_DISCOVERY = {"nvidia.com/dynamo-kube-discovery-mode": "container"}


def _graph(backend: str = "vllm", nodes: int = 1) -> str:
    main = {"name": "main", "image": f"{backend}:1.4.0", "command": ["python3"], "args": ["-m", f"dynamo.{backend}"],
            "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    component: dict[str, Any] = {
        "name": "decode", "type": "decode",
        "experimental": {"gpuMemoryService": {"mode": "IntraPod"}, "failover": {"mode": "IntraPod"}},
        "podTemplate": {"metadata": {"annotations": _CONTAINER_DISCOVERY}, "spec": {"containers": [main]}}}
    if nodes > 1:
        component["multinode"] = {"nodeCount": nodes}
    return json.dumps({"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
                       "metadata": {"name": "g", "namespace": "ns"},
                       "spec": {"backendFramework": backend, "components": [component]}})


def _pod(nodes: int = 1) -> dict[str, Any]:
    if nodes > 1:
        return cliques(render_yaml(_graph(nodes=nodes), GROVE_DRA))["decode-ldr"]["spec"]["podSpec"]
    (deployment,) = of_kind(render_yaml(_graph(), PLATFORM), "Deployment").values()
    return deployment["spec"]["template"]["spec"]


def _engines(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in pod["containers"] if c["name"].startswith("engine-")]


# from failover_test.go: TestBuildFailoverPod_TwoEnginesPlusSidecar (without the sidecar: the
# engines replace main and come first)
def test_intra_pod_failover_replaces_main_with_two_engines() -> None:
    pod = _pod()
    assert [c["name"] for c in pod["containers"]][:2] == ["engine-0", "engine-1"]
    assert "main" not in [c["name"] for c in pod["containers"]]


# from failover_test.go: TestBuildFailoverPod_EngineEnvVars
def test_each_engine_gets_its_identity_lock_and_not_ready_start() -> None:
    for index, engine in enumerate(_engines(_pod())):
        values = env(engine)
        assert values["ENGINE_ID"] == str(index)
        assert values["CONTAINER_NAME"] == f"engine-{index}"
        assert values["DYN_KUBE_DISCOVERY_MODE"] == "container"
        assert values["FAILOVER_LOCK_PATH"].endswith("failover.lock")
        assert values["DYN_SYSTEM_STARTING_HEALTH_STATUS"] == "notready"
        assert values["DYN_SYSTEM_ENABLED"] == "true"
        assert "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS" not in values
        assert "DYN_HEALTH_CHECK_ENABLED" not in values


# from failover_test.go: TestBuildFailoverPod_StaggeredPorts
def test_engines_get_staggered_system_ports() -> None:
    for index, engine in enumerate(_engines(_pod())):
        assert env(engine)["DYN_SYSTEM_PORT"] == str(9090 + index)
        system = [p for p in engine["ports"] if p["name"].startswith("system")]
        assert system == [{"name": f"system-{index}", "containerPort": 9090 + index, "protocol": "TCP"}]


# from failover_test.go: TestBuildFailoverPod_ProbesRetargetedToNamedPort
def test_engine_probes_target_their_own_system_port() -> None:
    for index, engine in enumerate(_engines(_pod())):
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            http = (engine.get(probe) or {}).get("httpGet")
            if http is not None:
                assert http["port"] == f"system-{index}"


# from failover_test.go: TestBuildFailoverPod_PreservesDRAClaim
def test_engines_keep_the_shared_gpu_claim() -> None:
    for engine in _engines(_pod()):
        assert engine["resources"]["claims"] == [{"name": "intrapod-shared-gpu"}]


# from failover_test.go: TestBuildFailoverPod_PreservesDiscoveryBackend
def test_engines_keep_the_discovery_backend() -> None:
    for engine in _engines(_pod()):
        assert env(engine)["DYN_DISCOVERY_BACKEND"] == "kubernetes"


# from failover_test.go: TestBuildFailoverPod_SingleNodeNoNNODES
def test_single_node_engines_have_no_nnodes() -> None:
    for engine in _engines(_pod()):
        assert "NNODES" not in env(engine)


# from failover_test.go: TestBuildFailoverPod_MultinodeNNODES (four nodes, on Grove)
def test_multinode_engines_know_the_node_count() -> None:
    engines = _engines(_pod(nodes=4))
    assert len(engines) == 2
    for engine in engines:
        assert env(engine)["NNODES"] == "4"


def test_multinode_intra_pod_failover_on_lws_is_refused_as_the_operator_refuses_it() -> None:
    """``checkMainContainer`` runs on LWS leader/worker templates after the engines replaced
    ``main``, so the DCD controller fails with "main container not found in pod spec"."""
    with pytest.raises(RenderError, match="main container not found in pod spec"):
        render_yaml(_graph(nodes=4), PLATFORM)


# from failover_test.go: TestBuildFailoverPod_RejectsNonVLLM
def test_intra_pod_failover_is_refused_for_other_backends() -> None:
    with pytest.raises(RenderError, match="supported only for vLLM"):
        render_yaml(_graph(backend="sglang"), PLATFORM)
