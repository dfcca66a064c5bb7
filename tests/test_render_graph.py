"""DGD -> DCD expansion (rendering-core 2.1): what the DGD controller writes into each DCD."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph
from dynamo_pulumi.render.backend_framework import component_backend_framework

BASE = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: g
  namespace: ns
spec:
  components:
  - name: Frontend
    type: frontend
    podTemplate: {spec: {containers: [{name: main, image: "frontend:1.4.0"}]}}
  - name: VllmWorker
    type: worker
    podTemplate:
      spec:
        containers:
        - name: main
          image: "worker:1.4.0"
          command: [python3, -m, dynamo.vllm]
          env: [{name: ZED, value: "1"}, {name: SHARED, value: component}]
"""


def graph(text: str = BASE, **spec: Any) -> DynamoGraphDeployment:
    doc = yaml.safe_load(text)
    doc["spec"].update(spec)
    return DynamoGraphDeployment.model_validate(doc)


def dcds(g: DynamoGraphDeployment, platform: Platform | None = None) -> dict[str, dict[str, Any]]:
    return {d["spec"]["name"]: d for d in render_graph(g, platform or Platform()).components}


def main_of(dcd: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in dcd["spec"]["podTemplate"]["spec"]["containers"] if c["name"] == "main")


def template_meta(dcd: dict[str, Any], key: str) -> dict[str, Any]:
    return dcd["spec"]["podTemplate"].get("metadata", {}).get(key, {})


def test_graph_env_merges_under_component_env_sorted_by_name() -> None:
    worker = dcds(graph(env=[{"name": "SHARED", "value": "graph"}, {"name": "ALPHA", "value": "a"}]))["VllmWorker"]
    assert main_of(worker)["env"] == [
        {"name": "ALPHA", "value": "a"},
        {"name": "SHARED", "value": "component"},
        {"name": "ZED", "value": "1"},
    ]


def test_graph_env_creates_a_main_container_when_the_component_has_none() -> None:
    text = BASE.replace('containers: [{name: main, image: "frontend:1.4.0"}]', "containers: [{name: side, image: s}]")
    frontend = dcds(graph(text, env=[{"name": "A", "value": "1"}]))["Frontend"]
    assert [c["name"] for c in frontend["spec"]["podTemplate"]["spec"]["containers"]] == ["main", "side"]


def test_backend_framework_is_detected_from_worker_commands() -> None:
    assert all(d["spec"]["backendFramework"] == "vllm" for d in dcds(graph()).values())


def test_explicit_backend_framework_disagreeing_with_the_command_is_a_render_error() -> None:
    with pytest.raises(RenderError, match="backend framework mismatch"):
        render_graph(graph(backendFramework="sglang"), Platform())


def _worker_spec(command: list[str], args: list[str]) -> dict[str, Any]:
    main = {"name": "main", "command": command, "args": args}
    return {"name": "w", "type": "worker", "podTemplate": {"spec": {"containers": [main]}}}


def test_two_frameworks_in_one_command_is_a_render_error_without_an_explicit_framework() -> None:
    spec = _worker_spec(["python3", "-m", "dynamo.vllm"], ["&&", "python", "-m", "dynamo.sglang"])
    with pytest.raises(RenderError, match="could not determine backend framework: multiple backend frameworks"):
        component_backend_framework(spec, "")
    # ``determineBackendFramework``: a failed detection falls back to the explicit value
    assert component_backend_framework(spec, "sglang") == "sglang"


def test_detection_uses_ascii_whitespace_only_as_the_operator_does() -> None:
    # Go's ``\s`` is ASCII: a no-break space between python and -m does not count
    assert component_backend_framework(_worker_spec(["python3\u00a0-m", "dynamo.vllm"], []), "") == ""
    assert component_backend_framework(_worker_spec(["python3", "-m", "dynamo.vllm"], []), "") == "vllm"


def test_propagated_graph_annotations_do_not_override_the_component() -> None:
    doc = yaml.safe_load(BASE)
    doc["metadata"]["annotations"] = {
        "nvidia.com/enable-metrics": "false",
        "nvidia.com/dynamo-kube-discovery-mode": "container",
        "unrelated.example/x": "y",
    }
    doc["spec"]["components"][0]["podTemplate"]["metadata"] = {"annotations": {"nvidia.com/enable-metrics": "true"}}
    result = dcds(DynamoGraphDeployment.model_validate(doc))
    assert template_meta(result["Frontend"], "annotations")["nvidia.com/enable-metrics"] == "true"
    assert template_meta(result["VllmWorker"], "annotations")["nvidia.com/enable-metrics"] == "false"
    assert template_meta(result["VllmWorker"], "annotations")["nvidia.com/dynamo-kube-discovery-mode"] == "container"
    assert "unrelated.example/x" not in template_meta(result["VllmWorker"], "annotations")


def test_origin_version_is_stamped_by_defaulting_and_propagated() -> None:
    platform = Platform.model_validate({"operatorVersion": "1.4.2"})
    frontend = dcds(graph(), platform)["Frontend"]
    assert template_meta(frontend, "annotations")["nvidia.com/dynamo-operator-origin-version"] == "1.4.2"


def test_graph_spec_labels_and_annotations_are_low_priority() -> None:
    doc = yaml.safe_load(BASE)
    doc["spec"]["labels"] = {"team": "graph", "tier": "gold"}
    doc["spec"]["annotations"] = {"note": "graph"}
    doc["spec"]["components"][0]["podTemplate"]["metadata"] = {"labels": {"team": "frontend"}}
    frontend = dcds(DynamoGraphDeployment.model_validate(doc))["Frontend"]
    assert template_meta(frontend, "labels") == {"team": "frontend", "tier": "gold"}
    assert template_meta(frontend, "annotations")["note"] == "graph"
    assert frontend["metadata"]["labels"]["team"] == "frontend"


def test_restart_id_is_stamped_on_every_component() -> None:
    result = dcds(graph(restart={"id": "2026-01-01T00:00:00Z"}))
    for dcd in result.values():
        assert template_meta(dcd, "annotations")["nvidia.com/restartAt"] == "2026-01-01T00:00:00Z"


def test_planner_gets_the_planner_service_account() -> None:
    text = BASE + '  - name: Planner\n    type: planner\n    podTemplate: {spec: {containers: [{name: main, image: "p:1.4.0"}]}}\n'
    planner = dcds(graph(text))["Planner"]
    assert planner["spec"]["podTemplate"]["spec"]["serviceAccountName"] == "planner-serviceaccount"


EPP = '  - name: Epp\n    type: epp\n    podTemplate: {spec: {containers: [{name: main, image: "epp:1.5.0"}]}}\n'


def test_epp_pod_opts_out_of_istio_sidecar_and_workers_get_the_worker_class() -> None:
    result = dcds(graph(BASE + EPP))
    assert template_meta(result["Epp"], "annotations")["sidecar.istio.io/inject"] == "false"
    worker = result["VllmWorker"]
    assert worker["metadata"]["labels"]["nvidia.com/dynamo-component-class"] == "worker"
    assert template_meta(worker, "labels")["nvidia.com/dynamo-component-class"] == "worker"
    assert "nvidia.com/dynamo-component-class" not in result["Frontend"]["metadata"]["labels"]


def test_without_epp_workers_get_no_component_class() -> None:
    assert "nvidia.com/dynamo-component-class" not in dcds(graph())["VllmWorker"]["metadata"]["labels"]


def test_kv_transfer_policy_adds_worker_env_mount_volume_and_topology_annotation() -> None:
    policy = {"labelKey": "topology.example/zone", "domain": "zone", "preferredWeight": 0.3, "enforcement": "preferred"}
    result = dcds(graph(experimental={"kvTransferPolicy": policy}))
    worker = result["VllmWorker"]
    env = {e["name"]: e["value"] for e in main_of(worker)["env"]}
    assert env["DYN_KV_TRANSFER_DOMAIN"] == "zone"
    assert env["DYN_KV_TRANSFER_ENFORCEMENT"] == "preferred"
    assert env["DYN_KV_TRANSFER_PREFERRED_WEIGHT"] == "0.3"
    assert env["DYN_TOPOLOGY_ENABLED"] == "true"
    assert env["DYN_TOPOLOGY_MOUNT_PATH"] == "/etc/dynamo/topology"
    assert main_of(worker)["volumeMounts"] == [
        {"name": "topology-labels", "mountPath": "/etc/dynamo/topology", "readOnly": True}
    ]
    assert worker["spec"]["podTemplate"]["spec"]["volumes"] == [
        {
            "name": "topology-labels",
            "downwardAPI": {
                "items": [{"path": "zone", "fieldRef": {"fieldPath": "metadata.labels['topology.example/zone']"}}]
            },
        }
    ]
    assert worker["metadata"]["annotations"] == {"nvidia.com/topology-label-key": "topology.example/zone"}
    assert "env" not in main_of(result["Frontend"])


def test_dcd_pod_template_has_no_empty_label_or_annotation_maps() -> None:
    frontend = dcds(graph())["Frontend"]
    assert frontend["spec"]["podTemplate"]["metadata"] == {
        "annotations": {"nvidia.com/dynamo-operator-origin-version": Platform().operator_version}
    }


def test_invalid_deployment_config_json_is_a_render_error() -> None:
    with pytest.raises(RenderError, match="DYN_DEPLOYMENT_CONFIG"):
        render_graph(graph(env=[{"name": "DYN_DEPLOYMENT_CONFIG", "value": "{not json"}]), Platform())


class Unresolved:
    """Stands in for a ``pulumi.Output``: an object the renderer must pass through untouched."""


def test_opaque_leaf_values_pass_through_as_the_same_objects() -> None:
    image, value, selector = Unresolved(), Unresolved(), Unresolved()
    doc = yaml.safe_load(BASE)
    worker = doc["spec"]["components"][1]["podTemplate"]["spec"]
    worker["containers"][0]["image"] = image
    worker["nodeSelector"] = selector
    doc["spec"]["env"] = [{"name": "TOKEN", "value": value}]
    result = render_graph(DynamoGraphDeployment.model_validate(doc), Platform())
    deployment = next(o for o in result.objects if o["kind"] == "Deployment" and "vllmworker" in o["metadata"]["name"])
    pod = deployment["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"] is image
    assert pod["nodeSelector"] is selector
    assert next(e for e in pod["containers"][0]["env"] if e["name"] == "TOKEN")["value"] is value


def test_render_does_not_modify_its_input() -> None:
    g = graph(env=[{"name": "A", "value": "1"}])
    before = g.model_dump()
    render_graph(g, Platform())
    assert g.model_dump() == before


ROLE_TEMPLATES = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: r}
spec:
  backendFramework: vllm
  env: [{name: GRAPH, value: "1"}]
  components:
  - name: decode
    type: decode
    multinode: {nodeCount: 2}
    roles:
    - name: leader
      podTemplate: {spec: {containers: [{name: main, image: "w:1.4.0", command: [python3], args: [-m, dynamo.vllm]}]}}
    - name: worker
      podTemplate: {spec: {containers: [{name: main, image: "w:1.4.0", command: [python3], args: [-m, dynamo.vllm]}]}}
"""


def test_role_templates_receive_the_graph_edits_and_no_component_template_appears() -> None:
    lws = Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}})
    decode = dcds(DynamoGraphDeployment.model_validate(yaml.safe_load(ROLE_TEMPLATES)), lws)["decode"]
    assert "podTemplate" not in decode["spec"]
    worker_hash = decode["metadata"]["labels"]["nvidia.com/dynamo-worker-hash"]
    for role in decode["spec"]["roles"]:
        template = role["podTemplate"]
        assert template["metadata"]["labels"]["nvidia.com/dynamo-worker-hash"] == worker_hash
        assert {"name": "GRAPH", "value": "1"} in template["spec"]["containers"][0]["env"]
