"""PodCliqueSet structure (cliques, scaling groups, startup order, names), translated from the
operator's Go tests (``internal/dynamo/graph_test.go``). Inputs are the Go tests' v1alpha1 graphs
converted by our loader (the operator's conversion), rendered through the whole pipeline."""

from __future__ import annotations

import json
from typing import Any

import pytest
from oracle_support import GROVE, cliques, pcs, render_yaml

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec
from dynamo_pulumi.model.pcs_naming import pcs_name
from dynamo_pulumi.platform import Platform

GROVE_DRA = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "dra": {"enabled": True}})


def _graph(services: dict[str, Any], backend: str = "vllm", beta_patch: dict[str, Any] | None = None,
           name: str = "test-dgd") -> str:
    for service in services.values():
        service.setdefault("extraPodSpec", {"mainContainer": {
            "image": "worker:1.4.0", "command": ["python3"], "args": ["-m", f"dynamo.{backend}"]}})
    return json.dumps({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
                       "metadata": {"name": name, "namespace": "test-ns"},
                       "spec": {"backendFramework": backend, "services": services}})


def _template(text: str, platform: Platform = GROVE) -> dict[str, Any]:
    return pcs(render_yaml(text, platform))["spec"]["template"]


_GPU = {"limits": {"gpu": "1"}}

MIN_AVAILABLE = [
    ("standalone pod clique", {"minAvailable": 2}, "clique", 2),
    ("standalone pod clique defaults minAvailable to 1", {}, "clique", 1),
    ("pod clique scaling group", {"minAvailable": 2, "multinode": {"nodeCount": 2}}, "group", 2),
    ("pod clique scaling group defaults minAvailable to 1", {"multinode": {"nodeCount": 2}}, "group", 1),
]


# from graph_test.go: TestGenerateGrovePodCliqueSet_ComponentMinAvailable (one case per row)
@pytest.mark.parametrize(("case", "fields", "where", "want"), MIN_AVAILABLE, ids=[c[0] for c in MIN_AVAILABLE])
def test_component_min_available_lands_on_the_clique_or_its_scaling_group(
        case: str, fields: dict[str, Any], where: str, want: int) -> None:
    template = _template(_graph({"worker": {"componentType": "worker", "replicas": 4, "resources": _GPU, **fields}}))
    if where == "clique":
        (clique,) = template["cliques"]
        assert clique["spec"]["minAvailable"] == want
    else:
        (group,) = template["podCliqueScalingGroups"]
        assert group["minAvailable"] == want


# from graph_test.go: TestGenerateGrovePodCliqueSet_SingleNodeForceScalingGroup
def test_force_scaling_group_puts_a_single_node_component_in_a_scaling_group() -> None:
    text = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: test-dgd, namespace: test-ns}
spec:
  backendFramework: vllm
  components:
  - name: worker
    type: worker
    replicas: 4
    minAvailable: 2
    experimental: {grove: {forceScalingGroup: true}}
    podTemplate:
      spec:
        containers: [{name: main, image: "vllm:1.4.0", resources: {limits: {nvidia.com/gpu: "1"}}}]
"""
    template = _template(text)
    (clique,) = template["cliques"]
    assert clique["name"] == "worker"
    assert (clique["spec"]["replicas"], clique["spec"]["minAvailable"]) == (1, 1)
    (group,) = template["podCliqueScalingGroups"]
    assert (group["name"], group["cliqueNames"], group["replicas"], group["minAvailable"]) == ("worker", ["worker"], 4, 2)


# from graph_test.go: TestGenerateGrovePodCliqueSet_MinAvailable_FailoverShadowsAreRedundant
def test_inter_pod_failover_engine_cliques_need_one_pod_of_primary_and_shadows() -> None:
    text = _graph({"decode": {
        "componentType": "decode", "replicas": 1, "multinode": {"nodeCount": 2}, "resources": _GPU,
        "gpuMemoryService": {"enabled": True, "mode": "interPod"},
        "failover": {"enabled": True, "mode": "interPod", "numShadows": 1},
    }})
    engines = 0
    for name, clique in cliques(render_yaml(text, GROVE_DRA)).items():
        spec = clique["spec"]
        if "gms" in name:
            assert (spec["minAvailable"], spec["replicas"]) == (1, 1)
            continue
        engines += 1
        assert (spec["replicas"], spec["minAvailable"]) == (2, 1)
    assert engines


STARTUP = [
    ("vllm_worker_starts_after_leader", "vllm", {}, "CliqueStartupTypeAnyOrder"),
    ("sglang_worker_starts_after_leader", "sglang", {}, "CliqueStartupTypeAnyOrder"),
    ("trtllm_leader_starts_after_worker", "trtllm", {"main-ldr": ["main-wkr"]}, "CliqueStartupTypeExplicit"),
]


# from graph_test.go: TestGenerateGrovePodCliqueSet_StartsAfterDependencies (one case per row)
@pytest.mark.parametrize(("case", "backend", "deps", "startup"), STARTUP, ids=[c[0] for c in STARTUP])
def test_multinode_startup_order_depends_on_the_backend(case: str, backend: str, deps: dict[str, list[str]],
                                                       startup: str) -> None:
    text = _graph({"main": {"componentType": "worker", "replicas": 1, "multinode": {"nodeCount": 2},
                            "resources": {"requests": {"gpu": "1"}}}}, backend=backend, name="test-deployment")
    text = text.replace('"namespace": "test-ns"', '"namespace": "default"')
    template = _template(text)
    assert template["cliqueStartupType"] == startup
    found = {c["name"]: c for c in template["cliques"]}
    for name in ("main-ldr", "main-wkr"):
        assert found[name]["spec"].get("startsAfter", []) == deps.get(name, [])


def _component(name: str, nodes: int = 1) -> DynamoComponentDeploymentSharedSpec:
    body: dict[str, Any] = {"name": name}
    if nodes > 1:
        body["multinode"] = {"nodeCount": nodes}
    return DynamoComponentDeploymentSharedSpec.model_validate(body)


PCS_NAMES: list[tuple[str, str, list[DynamoComponentDeploymentSharedSpec], str, int]] = [
    ("short name passes through unchanged", "trtllm-disagg", [_component("prefill"), _component("decode")],
     "trtllm-disagg", 0),
    ("short name with multinode passes through unchanged", "my-dgd",
     [_component("prefill", 2), _component("decode", 2)], "my-dgd", 0),
    ("long name gets truncated with hash", "deepseek-v32-fp4-trtllm-dgd",
     [_component("prefill", 2), _component("decode", 2)], "", 27),
    ("deterministic - same input always produces same output", "deepseek-v32-fp4-trtllm-dgd",
     [_component("prefill", 2)], "", 27),
    ("old long vllm service names get truncated more aggressively", "my-deployment-dgd",
     [_component("VllmPrefillWorker", 2)], "", 8),
    ("empty components - no truncation needed", "my-dgd", [], "my-dgd", 0),
]


# from graph_test.go: TestPCSNameForDGD (one case per row)
@pytest.mark.parametrize(("case", "dgd", "components", "want", "length"), PCS_NAMES, ids=[c[0] for c in PCS_NAMES])
def test_the_pod_clique_set_name_fits_the_grove_name_budget(case: str, dgd: str, components: Any, want: str,
                                                           length: int) -> None:
    got = pcs_name(dgd, components)
    assert got == pcs_name(dgd, components)
    if want:
        assert got == want
    else:
        assert len(got) == length


# from graph_test.go: TestGenerateGrovePodCliqueSet_WaitForCheckpointGatesPodCliqueScalingGroup
def test_wait_for_checkpoint_gates_the_scaling_group_until_the_checkpoint_is_ready() -> None:
    """A fresh install has no Ready checkpoint yet (the Go case: exists, not ready), so the
    engines wait: scaling-group and clique replicas 0, minAvailable kept."""
    text = _graph({"decode": {"componentType": "decode", "replicas": 3, "resources": _GPU,
                              "multinode": {"nodeCount": 2},
                              "checkpoint": {"enabled": True, "startupPolicy": "WaitForCheckpoint"}}})
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "dra": {"enabled": True},
                                        "checkpoint": {"enabled": True}})
    template = _template(text, platform)
    (group,) = template["podCliqueScalingGroups"]
    assert (group["replicas"], group["minAvailable"]) == (0, 1)
    for clique in template["cliques"]:
        assert (clique["spec"]["replicas"], clique["spec"]["minAvailable"]) == (0, 1)
