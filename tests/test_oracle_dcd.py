"""The DCD controller's workloads, translated from the operator's Go tests
(``internal/controller/dynamocomponentdeployment_controller_test.go``).

The Go tests build their DCDs with ``betaDCD`` (a v1alpha1 DCD run through the real conversion);
here the same v1alpha1 documents go through our loader's conversion, then the whole pipeline.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from oracle_support import docs, env, main_of, of_kind, render_doc, render_yaml

from dynamo_pulumi.platform import Platform

LWS = Platform.model_validate({"orchestrators": {"lws": {"enabled": True}}})


def _frontend_dcd(metadata: str, name: str = "") -> str:
    """A v1beta1 frontend DCD with ``metadata`` (flow-style YAML lines) and optional ``spec.name``."""
    spec_name = f"  name: {name}\n" if name else ""
    return f"""
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:{metadata}
spec:
{spec_name}  type: frontend
  podTemplate: {{spec: {{containers: [{{name: main, image: "frontend:1.4.0"}}]}}}}
"""


def _pod_template(result: Any, deployment: str) -> dict[str, Any]:
    """The pod template of the rendered Deployment named ``deployment``."""
    return of_kind(result, "Deployment")[deployment]["spec"]["template"]


def _alpha_decode_dcd(annotations: dict[str, str] | None) -> str:
    return f"""
apiVersion: nvidia.com/v1alpha1
kind: DynamoComponentDeployment
metadata: {{name: test-deployment-strategy, namespace: default}}
spec:
  backendFramework: vllm
  serviceName: test-service
  dynamoNamespace: default
  componentType: decode
  replicas: 1
  annotations: {json.dumps(annotations or {})}
  extraPodSpec: {{mainContainer: {{image: "test-image:latest"}}}}
"""


def _strategy(text: str) -> dict[str, Any]:
    (deployment,) = of_kind(render_yaml(text), "Deployment").values()
    return deployment["spec"]["strategy"]


_ROLLING = "nvidia.com/deployment-strategy"
_SURGE = "nvidia.com/deployment-rolling-update-max-surge"
_UNAVAILABLE = "nvidia.com/deployment-rolling-update-max-unavailable"

# from dynamocomponentdeployment_controller_test.go: Test_generateDeployment_Strategy (one case per row)
STRATEGY_CASES = [
    ("no annotations - default RollingUpdate with default maxSurge and maxUnavailable", None,
     {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}),
    ("deployment-strategy annotation with Recreate - strategy is Recreate", {_ROLLING: "Recreate"},
     {"type": "Recreate"}),
    ("deployment-strategy Recreate with maxSurge/maxUnavailable - maxSurge/maxUnavailable are ignored",
     {_ROLLING: "Recreate", _SURGE: "50%", _UNAVAILABLE: "30%"}, {"type": "Recreate"}),
    ("deployment-strategy RollingUpdate with only maxSurge", {_ROLLING: "RollingUpdate", _SURGE: "50%"},
     {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "50%", "maxUnavailable": "25%"}}),
    ("deployment-strategy RollingUpdate with only maxUnavailable", {_ROLLING: "RollingUpdate", _UNAVAILABLE: "10%"},
     {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "10%"}}),
    ("deployment-strategy RollingUpdate with both maxSurge and maxUnavailable",
     {_ROLLING: "RollingUpdate", _SURGE: "40%", _UNAVAILABLE: "20%"},
     {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "40%", "maxUnavailable": "20%"}}),
    ("deployment-strategy RollingUpdate with integer maxSurge and maxUnavailable (not percentages)",
     {_ROLLING: "RollingUpdate", _SURGE: "1", _UNAVAILABLE: "0"},
     {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}),
]


@pytest.mark.parametrize(("case", "annotations", "want"), STRATEGY_CASES, ids=[c[0] for c in STRATEGY_CASES])
def test_deployment_strategy_comes_from_the_preserved_v1alpha1_annotations(case: str, annotations: Any,
                                                                          want: dict[str, Any]) -> None:
    assert _strategy(_alpha_decode_dcd(annotations)) == want


# from dynamocomponentdeployment_controller_test.go: TestGetResourceAnnotations_PodTemplateOverridesPreservedAlpha
def test_pod_template_strategy_annotations_override_the_preserved_alpha_ones() -> None:
    text = _alpha_decode_dcd({_ROLLING: "Recreate", "legacy-only": "kept"})
    text = text.replace('extraPodSpec: {mainContainer: {image: "test-image:latest"}}',
                        'extraPodSpec: {mainContainer: {image: "test-image:latest"}}\n'
                        f'  extraPodMetadata: {{annotations: {{{_ROLLING}: RollingUpdate, {_SURGE}: "50%"}}}}')
    (deployment,) = of_kind(render_yaml(text), "Deployment").values()
    assert deployment["spec"]["strategy"] == {
        "type": "RollingUpdate", "rollingUpdate": {"maxSurge": "50%", "maxUnavailable": "25%"}}
    assert deployment["spec"]["template"]["metadata"]["annotations"]["legacy-only"] == "kept"


def test_a_v1alpha1_graph_service_annotation_recreates_its_deployment() -> None:
    """Difference 1 of issue 12 at the DGD pathway: ``services.X.annotations`` reach the DCD as
    preserved alpha data (``applyDGDComponentAlphaCompatibilityToDCD``), and the strategy reads them."""
    text = """
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: g, namespace: default}
spec:
  services:
    Frontend:
      componentType: frontend
      annotations: {nvidia.com/deployment-strategy: Recreate}
      extraPodSpec: {mainContainer: {image: "frontend:1.4.0"}}
"""
    (deployment,) = of_kind(render_yaml(text), "Deployment").values()
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}


# from dynamocomponentdeployment_controller_test.go: TestDynamoComponentDeploymentReconciler_getKubeAnnotations_DropsOperatorOriginVersion
def test_workload_annotations_drop_the_origin_version_and_keep_the_discovery_backend() -> None:
    text = """
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata: {name: fe, namespace: default}
spec:
  type: frontend
  podTemplate:
    metadata:
      annotations: {nvidia.com/dynamo-operator-origin-version: 1.2.0, nvidia.com/dynamo-discovery-backend: kubernetes}
    spec: {containers: [{name: main, image: "frontend:1.4.0"}]}
"""
    (deployment,) = of_kind(render_yaml(text), "Deployment").values()
    annotations = deployment["metadata"]["annotations"]
    assert "nvidia.com/dynamo-operator-origin-version" not in annotations
    assert annotations["nvidia.com/dynamo-discovery-backend"] == "kubernetes"


_LWS_DCD = """
apiVersion: nvidia.com/v1alpha1
kind: DynamoComponentDeployment
metadata:
  name: test-lws-deploy
  namespace: default
  ownerReferences: [{apiVersion: nvidia.com/v1beta1, kind: DynamoGraphDeployment, name: PARENT, uid: u1}]
spec:
  backendFramework: vllm
  envs: [{name: TEST_ENV_FROM_DYNAMO_COMPONENT_DEPLOYMENT_SPEC, value: test_value_from_dynamo_component_deployment_spec}]
  componentType: worker
  subComponentType: test-sub-component
  serviceName: test-lws-deploy-service
  dynamoNamespace: default-test-lws-deploy
  multinode: {nodeCount: 2}
  resources:
    requests: {cpu: 300m, memory: 500Mi}
    limits: {gpu: "1", memory: 20Gi, cpu: "10"}
  extraPodMetadata:
    annotations: {nvidia.com/annotation1: annotation1}
    labels: {nvidia.com/label1: label1}
  extraPodSpec:
    terminationGracePeriodSeconds: 10
    containers: [{name: sidecar, image: "another-image:latest"}]
    mainContainer:
      image: test-image:latest
      command: [some, dynamo, command]
      args: [--tensor-parallel-size, "4", --pipeline-parallel-size, "1"]
      env: [{name: TEST_ENV_FROM_EXTRA_POD_SPEC, value: test_value_from_extra_pod_spec}]
"""


def _lws(parent: str) -> dict[str, Any]:
    (lws,) = of_kind(render_yaml(_LWS_DCD.replace("PARENT", parent), LWS), "LeaderWorkerSet").values()
    return lws


# from dynamocomponentdeployment_controller_test.go: TestDynamoComponentDeploymentReconciler_generateLeaderWorkerSet ("nominal case")
def test_leader_worker_set_of_a_dcd_owned_by_a_graph() -> None:
    lws = _lws("test-lws-deploy")
    assert lws["metadata"]["name"] == "test-lws-deploy-0"
    assert lws["metadata"]["labels"] == {
        "nvidia.com/label1": "label1",
        "nvidia.com/dynamo-namespace": "default-test-lws-deploy",
        "nvidia.com/dynamo-component": "test-lws-deploy-service",
        "nvidia.com/dynamo-sub-component-type": "test-sub-component",
    }
    assert lws["spec"]["leaderWorkerTemplate"]["size"] == 2
    leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    want = {
        "nvidia.com/metrics-enabled": "true", "role": "leader", "nvidia.com/label1": "label1",
        "nvidia.com/dynamo-namespace": "default-test-lws-deploy", "nvidia.com/dynamo-component": "test-lws-deploy-service",
        "nvidia.com/dynamo-component-type": "worker", "nvidia.com/dynamo-sub-component-type": "test-sub-component",
        "nvidia.com/dynamo-graph-deployment-name": "test-lws-deploy",
    }
    # Our platform runs Kubernetes discovery (the operator's default configuration); the Go test's
    # empty configuration has no discovery backend, hence no discovery labels there.
    labels = {k: v for k, v in leader["metadata"]["labels"].items() if "discovery" not in k}
    assert labels == want
    assert leader["metadata"]["annotations"] == {"nvidia.com/annotation1": "annotation1"}
    main = main_of(leader["spec"])
    values = env(main)
    assert values["DYN_NAMESPACE"] == "default-test-lws-deploy"
    assert values["DYN_PARENT_DGD_K8S_NAME"] == "test-lws-deploy"
    assert values["DYN_PARENT_DGD_K8S_NAMESPACE"] == "default"
    assert values["TEST_ENV_FROM_DYNAMO_COMPONENT_DEPLOYMENT_SPEC"] == "test_value_from_dynamo_component_deployment_spec"
    assert values["TEST_ENV_FROM_EXTRA_POD_SPEC"] == "test_value_from_extra_pod_spec"
    assert main["resources"] == {"requests": {"cpu": "300m", "memory": "500Mi"},
                                 "limits": {"memory": "20Gi", "cpu": "10", "nvidia.com/gpu": "1"}}
    assert sorted(c["image"] for c in leader["spec"]["containers"]) == ["another-image:latest", "test-image:latest"]
    assert leader["spec"]["terminationGracePeriodSeconds"] == 10


def test_the_parent_graph_of_a_standalone_dcd_is_its_dynamo_graph_deployment_owner() -> None:
    """Difference 3 of issue 12 (``GetParentGraphDeploymentName``): graph label, parent env and
    the computed Dynamo namespace all come from the owner reference."""
    leader = _lws("parent-graph")["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    assert leader["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"] == "parent-graph"
    values = env(main_of(leader["spec"]))
    assert values["DYN_PARENT_DGD_K8S_NAME"] == "parent-graph"
    assert values["DYN_NAMESPACE"] == "default-parent-graph"


def test_an_owned_v1beta1_dcd_labels_its_pods_with_the_owner_and_registers_under_its_namespace() -> None:
    text = _frontend_dcd("""
  name: llama-frontend
  namespace: prod
  ownerReferences: [{apiVersion: nvidia.com/v1beta1, kind: DynamoGraphDeployment, name: llama, uid: u1, controller: true}]""",
                         name="frontend")
    template = _pod_template(render_yaml(text), "llama-frontend")
    assert template["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"] == "llama"
    assert template["metadata"]["labels"]["nvidia.com/dynamo-namespace"] == "prod-llama"
    values = env(main_of(template["spec"]))
    assert (values["DYN_PARENT_DGD_K8S_NAME"], values["DYN_NAMESPACE"]) == ("llama", "prod-llama")
    assert template["spec"]["serviceAccountName"] == "llama-k8s-service-discovery"


def test_a_graph_label_without_an_owner_labels_the_pods_but_not_their_env() -> None:
    """``generatePodTemplateSpec`` reads the graph label for the pod label; the env
    (``GenerateBasePodSpecForController``) reads only the owner, else the DCD's own name."""
    text = _frontend_dcd(" {name: fe, namespace: prod, labels: {nvidia.com/dynamo-graph-deployment-name: llama}}")
    template = _pod_template(render_yaml(text), "fe")
    assert template["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"] == "llama"
    assert template["metadata"]["labels"]["nvidia.com/dynamo-namespace"] == "prod-llama"
    assert env(main_of(template["spec"]))["DYN_PARENT_DGD_K8S_NAME"] == "fe"


# from dynamocomponentdeployment_controller_test.go: TestDynamoComponentDeploymentReconciler_dcdIngressSpecDefaultsFromParentDGD
def test_a_frontend_dcd_of_a_graph_gets_the_default_ingress_for_its_parent() -> None:
    text = _frontend_dcd(
        " {name: test-dgd-frontend, namespace: default, labels: {nvidia.com/dynamo-graph-deployment-name: test-dgd}}",
        name="frontend")
    platform = Platform.model_validate({"ingress": {"controllerClassName": "nginx", "hostSuffix": "example.com"}})
    (ingress,) = of_kind(render_doc(docs(text)[0], platform), "Ingress").values()
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["rules"][0]["host"] == "test-dgd.example.com"


# from dynamocomponentdeployment_controller_test.go: TestDynamoComponentDeploymentReconciler_BetaPrefillWorkloadComponentType
def test_a_v1beta1_prefill_dcd_keeps_prefill_as_its_workload_type() -> None:
    text = """
apiVersion: nvidia.com/v1beta1
kind: DynamoComponentDeployment
metadata:
  name: qwen-prefill-db6b6891
  namespace: default
  labels: {nvidia.com/dynamo-graph-deployment-name: qwen, nvidia.com/dynamo-worker-hash: db6b6891,
           nvidia.com/dynamo-component-type: prefill}
spec:
  backendFramework: vllm
  name: prefill
  type: prefill
  podTemplate: {spec: {containers: [{name: main, image: "vllm:1.4.0"}]}}
"""
    result = render_yaml(text)
    template = _pod_template(result, "qwen-prefill-db6b6891")
    assert template["metadata"]["labels"]["nvidia.com/dynamo-component-type"] == "prefill"
    assert env(main_of(template["spec"]))["DYN_COMPONENT"] == "prefill"
    services = of_kind(result, "Service").values()
    assert {s["spec"]["selector"]["nvidia.com/dynamo-component-type"] for s in services} == {"prefill"}


def _alpha_frontend_dcd(ingress: dict[str, Any]) -> str:
    return json.dumps({"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment",
                       "metadata": {"name": "service1", "namespace": "default"},
                       "spec": {"serviceName": "service1", "dynamoNamespace": "default", "componentType": "frontend",
                                "ingress": ingress,
                                "extraPodSpec": {"mainContainer": {"image": "frontend:1.4.0"}}}})


# from dynamocomponentdeployment_controller_test.go: TestDynamoComponentDeploymentReconciler_generateIngress ("generate ingress")
def test_a_preserved_alpha_ingress_spec_renders_the_frontend_ingress() -> None:
    text = _alpha_frontend_dcd({"enabled": True, "host": "someservice", "ingressControllerClassName": "nginx",
                                "useVirtualService": False})
    (ingress,) = of_kind(render_yaml(text), "Ingress").values()
    assert ingress["metadata"]["name"] == "service1"
    assert ingress["metadata"]["namespace"] == "default"
    assert ingress["spec"] == {"ingressClassName": "nginx", "rules": [{"host": "someservice.local", "http": {"paths": [{
        "path": "/", "pathType": "Prefix",
        "backend": {"service": {"name": "service1", "port": {"number": 8000}}}}]}}]}


# from dynamocomponentdeployment_controller_test.go: TestDynamoComponentDeploymentReconciler_generateIngress ("generate ingress, disabled")
def test_a_disabled_alpha_ingress_renders_no_ingress() -> None:
    assert of_kind(render_yaml(_alpha_frontend_dcd({"enabled": False})), "Ingress") == {}
