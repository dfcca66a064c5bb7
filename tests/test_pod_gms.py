"""Intra-pod GPU memory service and intra-pod failover on the component pathway (no Grove).

The operator applies both as the last steps of ``GenerateBasePodSpec`` on every pathway (ERRATA
2.35), and the DGD's shared-resources reconciler syncs the standalone ResourceClaimTemplate
``<dgd>-<lower(component)>-gpu`` for either workload program (rendering-grove 4.2).
"""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph
from dynamo_pulumi.render.pod.gms import apply_intra_pod_gms

COMPONENT_PLATFORM = Platform()
LWS_PLATFORM = Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}})
GROVE_PLATFORM = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})
VLLM = ["python3", "-m", "dynamo.vllm"]


def _worker(experimental: dict[str, Any], gpus: str = "2", **fields: Any) -> dict[str, Any]:
    main = {"name": "main", "image": "registry.example/vllm:1.4.0", "command": VLLM, "args": ["--model", "m"],
            "resources": {"limits": {"nvidia.com/gpu": gpus}, "requests": {"nvidia.com/gpu": gpus, "cpu": "1"}}}
    containers = [main, *fields.pop("extra_containers", [])]
    return {"name": "VllmWorker", "type": "worker", "experimental": experimental,
            "podTemplate": {"spec": {"containers": containers}}, **fields}


def _graph(*components: dict[str, Any]) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate({
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g", "namespace": "n"},
        "spec": {"components": list(components)},
    })


def _of_kind(result: Any, kind: str) -> list[dict[str, Any]]:
    return [o for o in result.objects if o["kind"] == kind]


def _pod(result: Any) -> dict[str, Any]:
    (deployment,) = _of_kind(result, "Deployment")
    return deployment["spec"]["template"]["spec"]


def test_component_pathway_renders_the_dgd_owned_claim_template() -> None:
    result = render_graph(_graph(_worker({"gpuMemoryService": {"deviceClassName": "mig.nvidia.com"}})),
                          COMPONENT_PLATFORM)
    assert result.pathway == "component"
    (rct,) = _of_kind(result, "ResourceClaimTemplate")
    assert rct == {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "g-vllmworker-gpu", "namespace": "n"},
        "spec": {"spec": {"devices": {"requests": [{
            "name": "gpus",
            "exactly": {"deviceClassName": "mig.nvidia.com", "allocationMode": "ExactCount", "count": 2},
        }]}}},
    }
    assert rct in result.graph_objects()
    kubernetes_validate.validate(rct, "1.34.0", strict=True)


def test_component_pathway_deployment_pod_claims_the_template_and_runs_the_gms_sidecar() -> None:
    pod = _pod(render_graph(_graph(_worker({"gpuMemoryService": {}})), COMPONENT_PLATFORM))
    main = pod["containers"][0]
    assert main["name"] == "main"
    assert main["resources"] == {"requests": {"cpu": "1"}, "claims": [{"name": "intrapod-shared-gpu"}]}
    assert pod["resourceClaims"] == [{"name": "intrapod-shared-gpu", "resourceClaimTemplateName": "g-vllmworker-gpu"}]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert {"name": "gms-intrapod-control", "emptyDir": {}} in pod["volumes"]
    assert {"name": "gms-intrapod-control", "mountPath": "/gms-intrapod-control"} in main["volumeMounts"]
    assert {"name": "GMS_SOCKET_DIR", "value": "/gms-intrapod-control"} in main["env"]
    (server,) = pod["initContainers"]
    assert server["name"] == "gms-server"
    assert server["image"] == "registry.example/vllm:1.4.0"
    assert server["restartPolicy"] == "Always"
    assert server["resources"] == {"claims": [{"name": "intrapod-shared-gpu"}]}


def test_component_pathway_intra_pod_failover_clones_main_into_two_engines_after_gms() -> None:
    pod = _pod(render_graph(_graph(_worker({"gpuMemoryService": {}, "failover": {}})), COMPONENT_PLATFORM))
    assert [c["name"] for c in pod["containers"]] == ["engine-0", "engine-1"]
    for i, engine in enumerate(pod["containers"]):
        env = {e["name"]: e.get("value") for e in engine["env"]}
        assert env["ENGINE_ID"] == str(i)
        assert env["DYN_SYSTEM_PORT"] == str(9090 + i)
        assert env["FAILOVER_LOCK_PATH"] == "/gms-intrapod-control/failover.lock"
        assert env["GMS_SOCKET_DIR"] == "/gms-intrapod-control"
        assert engine["ports"] == [{"protocol": "TCP", "name": f"system-{i}", "containerPort": 9090 + i}]
        assert engine["resources"]["claims"] == [{"name": "intrapod-shared-gpu"}]
    assert pod["containers"][1]["args"][-2:] == ["--master-port", "29600"]
    assert [c["name"] for c in pod["initContainers"]] == ["gms-server"]


def test_component_pathway_intra_pod_failover_is_vllm_only() -> None:
    worker = _worker({"gpuMemoryService": {}, "failover": {}})
    worker["podTemplate"]["spec"]["containers"][0]["command"] = ["python3", "-m", "dynamo.sglang"]
    with pytest.raises(RenderError, match="supported only for vLLM"):
        render_graph(_graph(worker), COMPONENT_PLATFORM)


def test_lws_leader_and_worker_pods_both_get_the_intra_pod_wiring() -> None:
    worker = _worker({"gpuMemoryService": {}}, multinode={"nodeCount": 2})
    result = render_graph(_graph(worker), LWS_PLATFORM)
    (lws,) = _of_kind(result, "LeaderWorkerSet")
    template = lws["spec"]["leaderWorkerTemplate"]
    for pod in (template["leaderTemplate"]["spec"], template["workerTemplate"]["spec"]):
        assert pod["resourceClaims"] == [{"name": "intrapod-shared-gpu", "resourceClaimTemplateName": "g-vllmworker-gpu"}]
        assert [c["name"] for c in pod["initContainers"]][-1] == "gms-server"
    assert [o["metadata"]["name"] for o in _of_kind(result, "ResourceClaimTemplate")] == ["g-vllmworker-gpu"]


def test_extra_client_containers_share_the_claim_on_the_component_pathway() -> None:
    sidecar = {"name": "loader", "image": "loader:1", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    worker = _worker({"gpuMemoryService": {"extraClientContainers": ["loader"]}}, extra_containers=[sidecar])
    loader = _pod(render_graph(_graph(worker), COMPONENT_PLATFORM))["containers"][1]
    assert loader["resources"] == {"claims": [{"name": "intrapod-shared-gpu"}]}
    assert {"name": "GMS_SOCKET_DIR", "value": "/gms-intrapod-control"} in loader["env"]


def test_no_claim_template_without_gms_or_without_gpus() -> None:
    plain = render_graph(_graph(_worker({})), COMPONENT_PLATFORM)
    assert _of_kind(plain, "ResourceClaimTemplate") == []
    assert "resourceClaims" not in _pod(plain)
    no_gpus = _worker({"gpuMemoryService": {}})
    no_gpus["podTemplate"]["spec"]["containers"][0].pop("resources")
    assert _of_kind(render_graph(_graph(no_gpus), COMPONENT_PLATFORM), "ResourceClaimTemplate") == []


def test_dra_disabled_fails_the_graph_on_the_component_pathway_too() -> None:
    platform = Platform.model_validate({"dra": {"enabled": False}})
    with pytest.raises(RenderError, match="requires DRA"):
        render_graph(_graph(_worker({"gpuMemoryService": {}})), platform)


def test_standalone_dcd_pod_names_its_own_template_and_renders_none() -> None:
    dcd = DynamoComponentDeployment.model_validate({
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
        "metadata": {"name": "solo", "namespace": "n"},
        "spec": {"backendFramework": "vllm", **_worker({"gpuMemoryService": {}})},
    })
    result = render_graph(dcd, COMPONENT_PLATFORM)
    assert _of_kind(result, "ResourceClaimTemplate") == []
    assert _pod(result)["resourceClaims"] == [
        {"name": "intrapod-shared-gpu", "resourceClaimTemplateName": "solo-vllmworker-gpu"}
    ]


def test_grove_renders_the_same_claim_template_once() -> None:
    result = render_graph(_graph(_worker({"gpuMemoryService": {}})), GROVE_PLATFORM)
    assert result.pathway == "grove"
    (rct,) = _of_kind(result, "ResourceClaimTemplate")
    assert rct["metadata"] == {"name": "g-vllmworker-gpu", "namespace": "n"}
    kubernetes_validate.validate(rct, "1.34.0", strict=True)


def test_extra_client_problems_are_reported_as_the_operator_words_them() -> None:
    worker = _worker({"gpuMemoryService": {"extraClientContainers": ["b", "a", "b"]}})
    component = _graph(worker).components[0]
    pod = {"containers": [{"name": "main"}]}
    with pytest.raises(RenderError) as err:
        apply_intra_pod_gms(pod, component, "g", "VllmWorker")
    assert str(err.value).endswith(
        'gpuMemoryService.extraClientContainers contains duplicate names ["b"]; '
        'references missing pod containers ["a" "b"]'
    )


class Unresolved:
    """Stands in for a ``pulumi.Output``: an object the renderer must pass through untouched."""


def test_opaque_main_image_reaches_the_gms_server_and_both_engines_untouched() -> None:
    image = Unresolved()
    worker = _worker({"gpuMemoryService": {}, "failover": {}})
    worker["podTemplate"]["spec"]["containers"][0]["image"] = image
    pod = _pod(render_graph(_graph(worker), COMPONENT_PLATFORM))
    assert pod["initContainers"][0]["image"] is image
    assert all(c["image"] is image for c in pod["containers"])
