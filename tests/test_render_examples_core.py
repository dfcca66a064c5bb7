"""Worked examples 2, 3, 4 and 6 of rendering-core section 9, plus the object rules they rest on."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph
from dynamo_pulumi.render.objects.ingress import IngressSpec, build_ingress, build_virtual_service

LWS_PLATFORM = Platform.model_validate({"discovery": {"backend": "kubernetes"}, "orchestrators": {"lws": {"enabled": True}}})


def dgd(text: str) -> DynamoGraphDeployment:
    return DynamoGraphDeployment.model_validate(yaml.safe_load(text))


def dcd(text: str) -> DynamoComponentDeployment:
    return DynamoComponentDeployment.model_validate(yaml.safe_load(text))


def find(objects: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    matches = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(matches) == 1, f"{kind} {name}: {[o['metadata']['name'] for o in objects if o['kind'] == kind]}"
    return matches[0]


def main_env(template: dict[str, Any]) -> dict[str, Any]:
    main = next(c for c in template["spec"]["containers"] if c["name"] == "main")
    return {e["name"]: e.get("value") for e in main.get("env") or []}


# --- Example 2: LWS and Service names for a worker DCD -------------------------------------------

EXAMPLE_2 = """
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata: {name: vllm-disagg-decode-4e5bb2af, namespace: default}
spec:
  name: decode
  type: decode
  backendFramework: vllm
  multinode: {nodeCount: 2}
  podTemplate:
    spec:
      containers:
      - name: main
        image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
        command: [python3]
        args: [-m, dynamo.vllm]
        resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_example_2_lws_is_named_dcd_dash_0_so_it_does_not_collide_with_the_service() -> None:
    objects = render_graph(dcd(EXAMPLE_2), LWS_PLATFORM).objects
    service = find(objects, "Service", "vllm-disagg-decode-4e5bb2af")
    lws = find(objects, "LeaderWorkerSet", "vllm-disagg-decode-4e5bb2af-0")
    assert lws["spec"]["leaderWorkerTemplate"]["size"] == 2
    assert service["spec"]["selector"] == {
        "nvidia.com/dynamo-component-type": "decode",
        "nvidia.com/dynamo-namespace": "default-vllm-disagg-decode-4e5bb2af",
        "nvidia.com/dynamo-component": "decode",
        "role": "leader",
    }
    assert not [o for o in objects if o["kind"] == "Deployment"]


def test_example_2_lws_templates_carry_role_labels_and_no_selector_label() -> None:
    lws = find(render_graph(dcd(EXAMPLE_2), LWS_PLATFORM).objects, "LeaderWorkerSet")
    template = lws["spec"]["leaderWorkerTemplate"]
    for role in ("leader", "worker"):
        labels = template[f"{role}Template"]["metadata"]["labels"]
        assert labels["role"] == role
        assert "nvidia.com/selector" not in labels
    assert lws["spec"]["startupPolicy"] == "LeaderCreated"


def test_multinode_standalone_dcd_without_lws_falls_back_to_a_deployment() -> None:
    objects = render_graph(dcd(EXAMPLE_2), Platform()).objects
    assert find(objects, "Deployment", "vllm-disagg-decode-4e5bb2af")
    assert not [o for o in objects if o["kind"] == "LeaderWorkerSet"]


def test_lws_main_container_without_args_is_a_render_error() -> None:
    from dynamo_pulumi.errors import RenderError

    no_args = EXAMPLE_2.replace("        args: [-m, dynamo.vllm]\n", "").replace("backendFramework: vllm", "")
    with pytest.raises(RenderError, match="Args cannot be empty"):
        render_graph(dcd(no_args), LWS_PLATFORM)


# --- Example 3: DCD generation from a DGD --------------------------------------------------------

EXAMPLE_3 = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: test-dynamographdeployment, namespace: default}
spec:
  components:
  - name: service1
    type: frontend
    replicas: 3
    podTemplate:
      spec:
        containers:
        - name: main
          resources: {requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "0"}}
  - name: service2
    replicas: 3
    podTemplate:
      spec:
        containers:
        - name: main
          resources: {requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "0"}}
"""


@pytest.mark.parametrize("component", ["service1", "service2"])
def test_example_3_dcd_names_and_labels(component: str) -> None:
    dcds = render_graph(dgd(EXAMPLE_3), Platform()).components
    doc = find(dcds, "DynamoComponentDeployment", f"test-dynamographdeployment-{component}")
    assert doc["metadata"]["namespace"] == "default"
    assert doc["metadata"]["labels"] == {
        "nvidia.com/dynamo-component": component,
        "nvidia.com/dynamo-namespace": "default-test-dynamographdeployment",
        "nvidia.com/dynamo-graph-deployment-name": "test-dynamographdeployment",
    }
    assert doc["spec"]["name"] == component
    assert doc["spec"]["replicas"] == 3
    main = doc["spec"]["podTemplate"]["spec"]["containers"][0]
    assert main["resources"] == {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "0"}}


def test_example_3_worker_component_gets_hash_suffix_and_worker_hash_label() -> None:
    text = EXAMPLE_3.replace("  - name: service2\n", "  - name: Service2\n    type: decode\n")
    doc = next(d for d in render_graph(dgd(text), Platform()).components if d["spec"]["name"] == "Service2")
    worker_hash = doc["metadata"]["labels"]["nvidia.com/dynamo-worker-hash"]
    assert len(worker_hash) == 8
    assert doc["metadata"]["name"] == f"test-dynamographdeployment-service2-{worker_hash}"
    assert doc["spec"]["podTemplate"]["metadata"]["labels"]["nvidia.com/dynamo-worker-hash"] == worker_hash


WORKER_GRAPH = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: g, namespace: default}
spec:
  components:
  - name: frontend
    type: frontend
    replicas: 1
    podTemplate: {spec: {containers: [{name: main, image: "frontend:1.4.0"}]}}
  - name: worker
    type: worker
    replicas: 2
    podTemplate: {spec: {containers: [{name: main, image: "worker:1.4.0"}]}}
"""


def worker_hash_of(text: str) -> str:
    return render_graph(dgd(text), Platform()).worker_hash


def test_worker_hash_ignores_replicas() -> None:
    assert worker_hash_of(WORKER_GRAPH) == worker_hash_of(WORKER_GRAPH.replace("replicas: 2", "replicas: 5"))


def test_worker_hash_ignores_non_worker_components() -> None:
    assert worker_hash_of(WORKER_GRAPH) == worker_hash_of(WORKER_GRAPH.replace("frontend:1.4.0", "frontend:1.4.1"))


def test_worker_hash_changes_with_the_worker_pod_template() -> None:
    assert worker_hash_of(WORKER_GRAPH) != worker_hash_of(WORKER_GRAPH.replace("worker:1.4.0", "worker:1.4.1"))


def test_graph_without_workers_has_no_worker_hash() -> None:
    assert worker_hash_of(EXAMPLE_3) == ""


# --- Example 4: DYN_DEPLOYMENT_CONFIG override ---------------------------------------------------

EXAMPLE_4_ENV = """
  env:
  - name: DYN_DEPLOYMENT_CONFIG
    value: '{"service1":{"port":8080,"ServiceArgs":{"Workers":2, "Resources":{"CPU":"2", "Memory":"2Gi", "GPU":"2"}}}}'
"""


def example_4() -> list[dict[str, Any]]:
    return render_graph(dgd(EXAMPLE_3 + EXAMPLE_4_ENV), Platform()).components


def test_example_4_explicit_replicas_win_over_workers() -> None:
    service1 = find(example_4(), "DynamoComponentDeployment", "test-dynamographdeployment-service1")
    assert service1["spec"]["replicas"] == 3


def test_example_4_resources_set_both_requests_and_limits() -> None:
    service1 = find(example_4(), "DynamoComponentDeployment", "test-dynamographdeployment-service1")
    resources = service1["spec"]["podTemplate"]["spec"]["containers"][0]["resources"]
    expected = {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "2"}
    assert resources == {"requests": expected, "limits": expected}


def test_example_4_frontend_config_is_rewritten_compact_sorted_with_port_8000() -> None:
    service1 = find(example_4(), "DynamoComponentDeployment", "test-dynamographdeployment-service1")
    env = main_env(service1["spec"]["podTemplate"])
    assert env["DYN_DEPLOYMENT_CONFIG"] == (
        '{"service1":{"ServiceArgs":{"Resources":{"CPU":"2","GPU":"2","Memory":"2Gi"},"Workers":2},"port":8000}}'
    )


def test_example_4_other_components_only_get_the_graph_env() -> None:
    service2 = find(example_4(), "DynamoComponentDeployment", "test-dynamographdeployment-service2")
    main = service2["spec"]["podTemplate"]["spec"]["containers"][0]
    assert main["resources"] == {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "0"}}
    assert json.loads(main_env(service2["spec"]["podTemplate"])["DYN_DEPLOYMENT_CONFIG"])["service1"]["port"] == 8080


def test_workers_in_deployment_config_set_replicas_when_component_has_none() -> None:
    text = EXAMPLE_3.replace("    type: frontend\n    replicas: 3\n", "    type: frontend\n") + EXAMPLE_4_ENV
    service1 = find(render_graph(dgd(text), Platform()).components, "DynamoComponentDeployment", "test-dynamographdeployment-service1")
    # the defaulting webhook sets replicas to 1 before the controller sees the component
    assert service1["spec"]["replicas"] == 1


# --- Example 6: Ingress and VirtualService -------------------------------------------------------

ALPHA_INGRESS = IngressSpec(enabled=True, host="someservice", ingress_controller_class_name="nginx")


def test_example_6_ingress_from_preserved_alpha_spec() -> None:
    [ingress] = build_ingress("service1", "default", ALPHA_INGRESS)
    assert ingress == {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "service1", "namespace": "default"},
        "spec": {
            "ingressClassName": "nginx",
            "rules": [
                {
                    "host": "someservice.local",
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "service1", "port": {"number": 8000}}},
                            }
                        ]
                    },
                }
            ],
        },
    }


def test_example_6_disabled_ingress_renders_nothing() -> None:
    assert build_ingress("service1", "default", IngressSpec(enabled=False, host="x", ingress_controller_class_name="nginx")) == []


def test_example_6_virtual_service() -> None:
    spec = IngressSpec(enabled=True, host="someservice", use_virtual_service=True, virtual_service_gateway="istio-system/ingress-alb")
    [vs] = build_virtual_service("service1", "default", spec)
    assert vs["apiVersion"] == "networking.istio.io/v1beta1"
    assert vs["metadata"] == {"name": "service1", "namespace": "default"}
    assert vs["spec"] == {
        "hosts": ["someservice.local"],
        "gateways": ["istio-system/ingress-alb"],
        "http": [
            {
                "match": [{"uri": {"prefix": "/"}}],
                "route": [{"destination": {"host": "service1", "port": {"number": 8000}}}],
            }
        ],
    }


def test_example_6_ingress_and_service_names_are_dot_normalised() -> None:
    [ingress] = build_ingress("service.1", "default", ALPHA_INGRESS)
    assert ingress["metadata"]["name"] == "service-1"
    assert ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]["name"] == "service-1"


def test_example_6_frontend_ingress_defaults_from_operator_config_and_parent_graph() -> None:
    graph = dgd(
        """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: test-dgd, namespace: default}
spec:
  components:
  - name: Frontend
    type: frontend
    podTemplate: {spec: {containers: [{name: main, image: "frontend:1.4.0"}]}}
"""
    )
    platform = Platform.model_validate({"ingress": {"controllerClassName": "nginx", "hostSuffix": "example.com"}})
    ingress = find(render_graph(graph, platform).objects, "Ingress")
    assert ingress["metadata"]["name"] == "test-dgd-frontend"
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["rules"][0]["host"] == "test-dgd.example.com"


def test_no_ingress_without_a_class_name_in_config() -> None:
    graph = dgd(EXAMPLE_3)
    objects = render_graph(graph, Platform()).objects
    assert not [o for o in objects if o["kind"] in ("Ingress", "VirtualService")]


def test_virtual_service_gateway_in_config_gives_frontends_a_virtual_service() -> None:
    graph = dgd(EXAMPLE_3)
    platform = Platform.model_validate({"ingress": {"virtualServiceGateway": "istio-system/gw"}})
    objects = render_graph(graph, platform).objects
    vs = find(objects, "VirtualService", "test-dynamographdeployment-service1")
    assert vs["spec"]["hosts"] == ["test-dynamographdeployment.local"]
    assert vs["spec"]["gateways"] == ["istio-system/gw"]
    assert not [o for o in objects if o["kind"] == "Ingress"]


def test_namespace_defaults_to_the_graph_metadata_namespace() -> None:
    text = EXAMPLE_3.replace("namespace: default", "namespace: team-b")
    result = render_graph(dgd(text), Platform())
    assert {o["metadata"]["namespace"] for o in result.objects + result.components} == {"team-b"}
    assert result.components[0]["metadata"]["labels"]["nvidia.com/dynamo-namespace"] == "team-b-test-dynamographdeployment"


ALPHA_GRAPH = """
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: legacy, namespace: default}
spec:
  services:
    service1:
      componentType: frontend
      replicas: 1
      ingress: {enabled: true, host: someservice, ingressControllerClassName: nginx}
      extraPodSpec: {mainContainer: {image: "frontend:1.4.0"}}
"""


def test_example_6_preserved_alpha_ingress_travels_through_the_dcd_to_the_ingress() -> None:
    from dynamo_pulumi.loading.documents import load_graph

    result = render_graph(load_graph(yaml.safe_load(ALPHA_GRAPH)), Platform())
    dcd_doc = result.component_document("service1")
    assert "nvidia.com/dcd-spec" in dcd_doc["metadata"]["annotations"]
    ingress = find(result.objects, "Ingress", "legacy-service1")
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["rules"][0]["host"] == "someservice.local"
    assert ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]["name"] == "legacy-service1"
