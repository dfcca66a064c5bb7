"""GPU counts from DRA ResourceClaims, translated from the operator's Go tests.

The operator reads the ResourceClaimTemplate (or ResourceClaim) and its DeviceClasses from the API
server (``dra.ResolveGPUCount``). Offline they come from the objects beside the graph (the same
YAML file, or ``objects=`` in a Pulumi program), or from the platform fact
``cluster.resourceClaimGpus``; a claim known from neither is refused, naming it and both ways.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from dra_support import ONE_GPU, dra_graph
from oracle_support import GROVE, cliques, docs, main_of, of_kind, render_yaml

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.backends.dra_claims import DraInventory
from dynamo_pulumi.render.backends.gpus import resolve_gpu_count
from dynamo_pulumi.resources import DynamoGraphDeployment


def _driver(driver: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": f"device.driver == '{driver}'"}}]


def _exact(name: str, device_class: str, count: int = 0, mode: str = "", driver: str = "") -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": device_class}
    if mode:
        exactly["allocationMode"] = mode
    if count:
        exactly["count"] = count
    if driver:
        exactly["selectors"] = _driver(driver)
    return {"name": name, "exactly": exactly}


def _template(name: str, *requests: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": list(requests)}}}}


def _claim(name: str, *requests: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"devices": {"requests": list(requests)}}}


def _class(name: str, driver: str = "", extended: str = "", expression: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if driver:
        spec["selectors"] = _driver(driver)
    if expression:
        spec["selectors"] = [{"cel": {"expression": expression}}]
    if extended:
        spec["extendedResourceName"] = extended
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


#: The Go test's cluster always holds these three DeviceClasses.
_CLASSES = [_class("gpu.nvidia.com", "gpu.nvidia.com"), _class("gpu.intel.com", "gpu.intel.com"),
            _class("rdma-dranet", "dra.net.example.com")]


def _template_claim(claim: str, template: str) -> dict[str, Any]:
    return {"name": claim, "resourceClaimTemplateName": template}


def _resolve(objects: list[dict[str, Any]], pod_claim: dict[str, Any], request: str = "") -> int:
    inventory = DraInventory.of([*_CLASSES, *objects], "default")
    claim = {"name": pod_claim["name"], **({"request": request} if request else {})}
    return resolve_gpu_count({"resources": {"claims": [claim]}}, {"resourceClaims": [pod_claim]}, inventory)


# from dra_test.go: TestResolveGPUCountFromResourceClaims (one case per row)
COUNTED = [
    ("ResourceClaimTemplate exact NVIDIA GPU count",
     [_template("gpu-template", _exact("gpus", "gpu.nvidia.com", 4, "ExactCount"))],
     _template_claim("accelerators", "gpu-template"), "", 4),
    ("ResourceClaim request selector excludes non-GPU devices",
     [_claim("devices", _exact("gpus", "gpu.intel.com", 2), _exact("network", "rdma-dranet", 1))],
     {"name": "accelerators", "resourceClaimName": "devices"}, "gpus", 2),
    ("default exact count is one",
     [_template("gpu-template", _exact("gpus", "gpu.nvidia.com"))],
     _template_claim("accelerators", "gpu-template"), "", 1),
    ("custom DeviceClass name uses its GPU driver selector",
     [_class("shared-h100.example.com", "gpu.nvidia.com"),
      _template("gpu-template", _exact("gpus", "shared-h100.example.com", 8, "ExactCount"))],
     _template_claim("accelerators", "gpu-template"), "", 8),
    ("custom DeviceClass name uses its extended GPU resource",
     [_class("shared-gpus.example.com", extended="nvidia.com/gpu"),
      _template("gpu-template", _exact("gpus", "shared-gpus.example.com", 4, "ExactCount"))],
     _template_claim("accelerators", "gpu-template"), "", 4),
    ("request selector overrides a GPU-like empty DeviceClass",
     [_class("gpu.example.com"),
      _template("network-template", _exact("network", "gpu.example.com", 1, driver="dra.net.example.com"))],
     _template_claim("network", "network-template"), "", 0),
    ("request selector classifies an otherwise unknown DeviceClass as GPU",
     [_class("accelerators.example.com"),
      _template("gpu-template", _exact("gpus", "accelerators.example.com", 2, driver="gpu.nvidia.com"))],
     _template_claim("accelerators", "gpu-template"), "", 2),
    ("same DeviceClass is classified independently for each request",
     [_class("devices.example.com"),
      _template("devices-template", _exact("gpus", "devices.example.com", 2, driver="gpu.nvidia.com"),
                _exact("network", "devices.example.com", 1, driver="dra.net.example.com"))],
     _template_claim("devices", "devices-template"), "", 2),
    ("non-GPU claim is ignored",
     [_template("network-template", _exact("network", "rdma-dranet", 1))],
     _template_claim("network", "network-template"), "", 0),
    ("equal-count GPU firstAvailable alternatives are supported",
     [_class("nvidia.example.com"), _class("intel.example.com"),
      _template("gpu-template", {"name": "gpus", "firstAvailable": [
          {"name": "nvidia", "deviceClassName": "nvidia.example.com", "selectors": _driver("gpu.nvidia.com"), "count": 2},
          {"name": "intel", "deviceClassName": "intel.example.com", "selectors": _driver("gpu.intel.com"), "count": 2},
      ]})],
     _template_claim("accelerators", "gpu-template"), "", 2),
]

REFUSED = [
    ("conflicting class and request driver selectors are rejected",
     [_class("shared-gpus.example.com", "gpu.nvidia.com"),
      _template("conflicting-template", _exact("devices", "shared-gpus.example.com", 1, driver="dra.net.example.com"))],
     _template_claim("devices", "conflicting-template"), "constrain device.driver to both GPU and non-GPU drivers"),
    ("allocation mode All is rejected",
     [_template("gpu-template", _exact("gpus", "gpu.nvidia.com", 0, "All"))],
     _template_claim("accelerators", "gpu-template"), "has no deterministic per-node device count"),
    ("mixed firstAvailable alternatives are rejected",
     [_template("mixed-template", {"name": "devices", "firstAvailable": [
         {"name": "gpu", "deviceClassName": "gpu.nvidia.com", "count": 1},
         {"name": "network", "deviceClassName": "rdma-dranet", "count": 1}]})],
     _template_claim("devices", "mixed-template"), "mixes GPU and non-GPU"),
    ("unclassifiable DeviceClass is actionable",
     [_class("accelerators.example.com"),
      _template("accelerator-template", _exact("accelerators", "accelerators.example.com", 1))],
     _template_claim("accelerators", "accelerator-template"),
     'cannot determine whether DeviceClass \'accelerators.example.com\' provides GPUs'),
    ("unsupported selector does not fall back to GPU-like class name",
     [_class("gpu.example.com", expression='device.driver != "cpu.example.com"'),
      _template("gpu-template", _exact("gpus", "gpu.example.com", 1))],
     _template_claim("accelerators", "gpu-template"), "cannot determine whether DeviceClass 'gpu.example.com' provides GPUs"),
    # Offline: "failed to get DeviceClass" becomes a refusal naming both ways to provide it.
    ("missing DeviceClass is actionable",
     [_template("missing-class-template", _exact("accelerators", "missing.example.com", 1))],
     _template_claim("accelerators", "missing-class-template"), "DeviceClass 'missing.example.com' is not known offline"),
    ("request without a supported shape is rejected",
     [_template("invalid-template", {"name": "devices"})],
     _template_claim("devices", "invalid-template"), "must set exactly or firstAvailable"),
    # Offline: "failed to get ResourceClaimTemplate default/missing" names the claim and both ways.
    ("missing ResourceClaimTemplate is actionable", [], _template_claim("accelerators", "missing"),
     "ResourceClaimTemplate 'missing' is not known offline"),
]


@pytest.mark.parametrize(("case", "objects", "pod_claim", "request_name", "want"), COUNTED, ids=[c[0] for c in COUNTED])
def test_gpu_count_of_a_claim_is_the_gpu_devices_it_requests(case: str, objects: Any, pod_claim: Any,
                                                              request_name: str, want: int) -> None:
    assert _resolve(objects, pod_claim, request_name) == want


@pytest.mark.parametrize(("case", "objects", "pod_claim", "message"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_claim_whose_gpu_count_is_not_determined_is_refused(case: str, objects: Any, pod_claim: Any,
                                                               message: str) -> None:
    with pytest.raises(RenderError, match="cannot determine GPU count for ResourceClaim") as err:
        _resolve(objects, pod_claim)
    assert message in str(err.value)


# from dra_test.go: TestResolveGPUCountPrefersScalarResources
def test_scalar_gpus_win_over_an_unresolvable_claim() -> None:
    container = {"resources": {"limits": {"nvidia.com/gpu": "8"}, "claims": [{"name": "missing"}]}}
    assert resolve_gpu_count(container) == 8


# from graph_test.go: TestGenerateGrovePodCliqueSet_TRTLLMMultinodeDRA
def test_trtllm_multinode_mpirun_size_comes_from_the_claim_template_in_the_same_file() -> None:
    result = render_yaml(dra_graph("trtllm", ["-m", "dynamo.trtllm"]) + "---" + ONE_GPU, GROVE)
    found = cliques(result)
    leader, worker = main_of(found["agg-ldr"]["spec"]["podSpec"]), main_of(found["agg-wkr"]["spec"]["podSpec"])
    assert len(leader["args"]) == 1
    assert "--oversubscribe -n 2 " in leader["args"][0]
    assert leader["resources"]["claims"] == [{"name": "gpu"}]
    assert worker["resources"]["claims"] == [{"name": "gpu"}]


# from graph_test.go: TestGenerateGrovePodCliqueSet_VLLMMultinodeDRA
def test_vllm_multinode_mp_launch_from_a_claim_only_gpu_count() -> None:
    text = dra_graph("vllm", ["-m", "dynamo.vllm", "--tensor-parallel-size", "2"],
                      annotations="{nvidia.com/vllm-distributed-executor-backend: mp}")
    found = cliques(render_yaml(text, GROVE, objects=docs(ONE_GPU)))
    leader, worker = main_of(found["agg-ldr"]["spec"]["podSpec"]), main_of(found["agg-wkr"]["spec"]["podSpec"])
    for flag in ("--distributed-executor-backend", "--nnodes", "--node-rank", "0"):
        assert flag in leader["args"]
    assert len(worker["args"]) == 1
    assert "--node-rank $((GROVE_PCLQ_POD_INDEX + 1))" in worker["args"][0]
    assert "--headless" in worker["args"][0]
    for container in (leader, worker):
        assert container["resources"]["claims"] == [{"name": "gpu"}]
        assert "nvidia.com/gpu" not in (container["resources"].get("limits") or {})
        assert "nvidia.com/gpu" not in (container["resources"].get("requests") or {})


def test_the_platform_fact_states_the_gpus_of_a_claim_template_not_given_beside_the_graph() -> None:
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}},
                                        "cluster": {"resourceClaimGpus": {"one-gpu": 4}}})
    found = cliques(render_yaml(dra_graph("trtllm", ["-m", "dynamo.trtllm"]), platform))
    assert "--oversubscribe -n 8 " in main_of(found["agg-ldr"]["spec"]["podSpec"])["args"][0]


def test_an_unknown_claim_template_is_refused_naming_the_claim_and_both_ways_to_provide_it() -> None:
    with pytest.raises(RenderError) as err:
        render_yaml(dra_graph("trtllm", ["-m", "dynamo.trtllm"], template="eight-gpus"), GROVE)
    message = str(err.value)
    assert "ResourceClaim 'gpu'" in message
    assert "ResourceClaimTemplate 'eight-gpus'" in message
    assert "same file as the graph" in message
    assert "cluster.resourceClaimGpus" in message


def test_a_claim_template_of_another_namespace_is_not_visible() -> None:
    other = ONE_GPU.replace("namespace: default", "namespace: elsewhere")
    with pytest.raises(RenderError, match="'one-gpu' is not known offline"):
        render_yaml(dra_graph("trtllm", ["-m", "dynamo.trtllm"]) + "---" + other, GROVE)


# from graph_test.go: TestGenerateGrovePodCliqueSet_DoesNotResolveUnusedContainerGPUCount
@pytest.mark.parametrize(("framework", "nodes", "module"), [("sglang", 2, "dynamo.sglang"), ("vllm", 1, "dynamo.vllm")],
                         ids=["multinode SGLang", "single-node vLLM"])
def test_a_gpu_count_no_launch_needs_is_never_resolved(framework: str, nodes: int, module: str) -> None:
    # the Go input's nodeCount 1 is below the CRD minimum: a single-node component has none
    text = dra_graph(framework, ["-m", module], template="missing-network-template", nodes=nodes)
    text = text.replace("name: gpu,", "name: network,")
    text = text.replace("claims: [{name: gpu}]", "claims: [{name: network}]")
    assert cliques(render_yaml(text, GROVE))


def _pulumi_leader_args(program: Any) -> str:
    recording, _ = run_program(program, preview=True)
    (pcs,) = [r for r in recording.resources if r.type.endswith("PodCliqueSet")]
    leader = next(c for c in pcs.inputs["spec"]["template"]["cliques"] if c["name"] == "agg-ldr")
    return str(main_of(leader["spec"]["podSpec"])["args"][0])


def test_a_pulumi_program_passes_the_claim_template_it_deploys_as_objects() -> None:
    graph = yaml.safe_load(dra_graph("trtllm", ["-m", "dynamo.trtllm"]))
    platform = {"orchestrators": {"grove": {"enabled": True}}}
    args = _pulumi_leader_args(lambda: DynamoGraphDeployment(
        "dra-test", graph, namespace="default", platform=platform, objects=docs(ONE_GPU)))
    assert "--oversubscribe -n 2 " in args


def test_a_pulumi_program_reads_the_claim_template_from_the_graph_file(tmp_path: Any) -> None:
    path = tmp_path / "graph.yaml"
    path.write_text(dra_graph("trtllm", ["-m", "dynamo.trtllm"]) + "---" + ONE_GPU)
    platform = {"orchestrators": {"grove": {"enabled": True}}}
    args = _pulumi_leader_args(lambda: DynamoGraphDeployment("dra-test", str(path), platform=platform))
    assert "--oversubscribe -n 2 " in args


def test_the_lws_pathway_counts_claim_only_gpus_the_same_way() -> None:
    """The DCD controller resolves the same count (``containerGPUCount``) for its LWS leader."""
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": True}}})
    result = render_yaml(dra_graph("trtllm", ["-m", "dynamo.trtllm"]) + "---" + ONE_GPU, platform)
    (lws,) = of_kind(result, "LeaderWorkerSet").values()
    leader = main_of(lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"])
    assert "--oversubscribe -n 2 " in leader["args"][0]
