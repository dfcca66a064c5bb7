"""DGD -> DCD generation on the component pathway, translated from the operator's Go tests
(``internal/dynamo/graph_test.go``, ``GenerateDynamoComponentsDeployments``).

The Go inputs are v1alpha1 graphs converted by ``betaDGD``, which also writes each service's
``labels``/``annotations`` into its pod template; here they go through the real conversion (our
loader), which keeps them as preserved alpha data, and the expectations are read where the
operator really shows them: on the rendered workloads.
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_support import COMPONENT, alpha_graph, beta_graph, env, main_of, of_kind, render_yaml

from dynamo_pulumi.floor.naming import dcd_name
from dynamo_pulumi.render import RenderResult
from dynamo_pulumi.render.dcd_identity import component_name_of


def _dcds(result: RenderResult) -> dict[str, dict[str, Any]]:
    return {component_name_of(d): d for d in result.components}


def _pod_template(result: RenderResult, component: str) -> dict[str, Any]:
    dcd = _dcds(result)[component]
    return of_kind(result, "Deployment")[dcd["metadata"]["name"]]["spec"]["template"]


# from graph_test.go: Test_GetDynamoComponentDeploymentsGlobalNamespace
def test_generated_dcds_carry_the_global_or_graph_dynamo_namespace() -> None:
    text = alpha_graph({"service1": {"componentType": "frontend", "globalDynamoNamespace": True, "replicas": 3},
                   "service2": {"componentType": "worker", "replicas": 3}},
                  name="test-dynamographdeployment", backendFramework="sglang")
    dcds = _dcds(render_yaml(text, COMPONENT))
    assert len(dcds) == 2
    assert dcds["service1"]["metadata"]["labels"]["nvidia.com/dynamo-namespace"] == "dynamo"
    assert dcds["service2"]["metadata"]["labels"]["nvidia.com/dynamo-namespace"] == "default-test-dynamographdeployment"


_KV_POLICY = {"labelKey": "topology.kubernetes.io/zone", "domain": "zone", "enforcement": "required"}


# from graph_test.go: TestGenerateDynamoComponentsDeployments_AddsTopologyLabelAnnotationToWorkers
def test_the_kv_transfer_label_key_marks_worker_dcds_and_their_workloads_only() -> None:
    text = beta_graph([{"name": "worker", "type": "worker"}, {"name": "frontend", "type": "frontend"}],
                 backendFramework="vllm", experimental={"kvTransferPolicy": _KV_POLICY})
    result = render_yaml(text, COMPONENT)
    dcds = _dcds(result)
    key = "nvidia.com/topology-label-key"
    assert dcds["worker"]["metadata"]["annotations"][key] == _KV_POLICY["labelKey"]
    assert _pod_template(result, "worker")["metadata"]["annotations"][key] == _KV_POLICY["labelKey"]
    assert key not in (dcds["frontend"]["metadata"].get("annotations") or {})
    assert key not in (_pod_template(result, "frontend")["metadata"].get("annotations") or {})


# from graph_test.go: TestGenerateDynamoComponentsDeployments_SkipsTopologyLabelAnnotationWithoutLabelKey
def test_a_kv_transfer_policy_without_label_key_marks_nothing() -> None:
    policy = {k: v for k, v in _KV_POLICY.items() if k != "labelKey"}
    result = render_yaml(beta_graph([{"name": "worker", "type": "worker"}], backendFramework="vllm",
                               experimental={"kvTransferPolicy": policy}), COMPONENT)
    assert "nvidia.com/topology-label-key" not in (_dcds(result)["worker"]["metadata"].get("annotations") or {})
    assert "nvidia.com/topology-label-key" not in (_pod_template(result, "worker")["metadata"].get("annotations") or {})


# from graph_test.go: TestGenerateDynamoComponentsDeploymentsAddsWorkerClassForEPP
def test_workers_of_a_graph_with_an_epp_are_labelled_worker_class() -> None:
    text = beta_graph([{"name": "epp", "type": "epp"}, {"name": "prefill", "type": "prefill"}], name="my-dgd", namespace="ns")
    result = render_yaml(text, COMPONENT)
    prefill = _dcds(result)["prefill"]
    assert prefill["metadata"]["labels"]["nvidia.com/dynamo-component-class"] == "worker"
    assert _pod_template(result, "prefill")["metadata"]["labels"]["nvidia.com/dynamo-component-class"] == "worker"


# from graph_test.go: TestGenerateDynamoComponentsDeployments_InferBackendFrameworkForGeneratedDCDs
def test_generated_dcds_get_the_backend_framework_detected_from_the_worker_command() -> None:
    text = alpha_graph({"frontend": {"componentType": "frontend", "replicas": 1},
                   "decode": {"componentType": "worker", "subComponentType": "decode", "replicas": 1,
                              "extraPodSpec": {"mainContainer": {
                                  "image": "vllm:1.4.0", "command": ["python3"],
                                  "args": ["-m", "dynamo.vllm", "--model", "Qwen/Qwen3-0.6B"],
                                  "env": [{"name": "MY_NEW_ENV", "value": "enabled"}]}}}},
                  name="my-dgd", namespace="ns")
    dcds = _dcds(render_yaml(text, COMPONENT))
    assert dcds["decode"]["spec"]["backendFramework"] == "vllm"
    assert dcds["frontend"]["spec"]["backendFramework"] == "vllm"


# from graph_test.go: TestGetDCDResourceName
@pytest.mark.parametrize(("component", "ctype", "worker_hash", "want"), [
    ("prefill", "prefill", "abc12345", "my-dgd-prefill-abc12345"),
    ("decode", "decode", "abc12345", "my-dgd-decode-abc12345"),
    ("worker", "worker", "abc12345", "my-dgd-worker-abc12345"),
    ("frontend", "frontend", "abc12345", "my-dgd-frontend"),
    ("prefill", "prefill", "", "my-dgd-prefill"),
])
def test_worker_dcd_names_carry_the_worker_hash(component: str, ctype: str, worker_hash: str, want: str) -> None:
    assert dcd_name("my-dgd", component, ctype, worker_hash) == want


# from graph_test.go: TestGenerateDynamoComponentsDeployments_SpecMetadataPropagation
def test_graph_spec_metadata_reaches_the_pods_under_the_services_own() -> None:
    """Through the real conversion the service's ``labels`` stay preserved alpha data while the
    DGD stage merges ``spec.labels`` into the pod template (``propagateDGDSpecMetadata``), and
    ``GetDCDKubeLabels`` puts the pod-template layer last: for a key both set, the pods carry the
    graph's value (the Go expectation ``svc`` rests on ``betaDGD`` writing service labels into the
    pod template). Keys only one side sets arrive from both."""
    text = alpha_graph({"frontend": {"componentType": "frontend", "replicas": 1, "annotations": {"shared": "svc"},
                                "labels": {"shared-label": "svc", "svc-only": "val"}}},
                  name="test-dgd", namespace="ns",
                  annotations={"team/cost-center": "abc", "shared": "dgd"},
                  labels={"env": "prod", "shared-label": "dgd"})
    result = render_yaml(text, COMPONENT)
    template = _pod_template(result, "frontend")
    annotations, labels = template["metadata"]["annotations"], template["metadata"]["labels"]
    assert annotations["team/cost-center"] == "abc"
    assert annotations["shared"] == "dgd"
    assert (labels["svc-only"], labels["env"], labels["shared-label"]) == ("val", "prod", "dgd")
    dcd = _dcds(result)["frontend"]
    assert dcd["metadata"]["labels"]["nvidia.com/dynamo-component"] == "frontend"
    assert dcd["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"] == "test-dgd"


# from graph_test.go: TestGenerateDynamoComponentsDeployments_PropagatesPreservedAlphaServiceAnnotations
def test_preserved_alpha_service_data_reaches_the_frontend_workloads() -> None:
    text = alpha_graph({"frontend": {"serviceName": "frontend", "dynamoNamespace": "custom-ns", "componentType": "frontend",
                                "subComponentType": "legacy-sub", "annotations": {"legacy-annotation": "kept"},
                                "labels": {"legacy-label": "kept"},
                                "ingress": {"enabled": True, "host": "legacy.example",
                                            "ingressControllerClassName": "nginx"}}})
    result = render_yaml(text, COMPONENT)
    deployment = of_kind(result, "Deployment")["test-dgd-frontend"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert labels["nvidia.com/dynamo-namespace"] == "custom-ns"
    assert labels["nvidia.com/dynamo-sub-component-type"] == "legacy-sub"
    assert labels["legacy-label"] == "kept"
    assert deployment["metadata"]["annotations"]["legacy-annotation"] == "kept"
    (ingress,) = of_kind(result, "Ingress").values()
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["rules"][0]["host"].startswith("legacy.example")


SPEC_METADATA = [
    ("nil metadata is a no-op", None, None, {"existing": "value"}, None, {"existing": "value"}, {}),
    ("annotations and labels propagate to empty component", {"team/cost-center": "abc"}, {"env": "prod"},
     None, None, {"team/cost-center": "abc"}, {"env": "prod"}),
    ("service-level annotations take precedence", {"shared": "from-dgd", "dgd-only": "val"}, None,
     {"shared": "from-service"}, None, {"shared": "from-service", "dgd-only": "val"}, {}),
    ("service-level labels take precedence", None, {"shared": "from-dgd", "dgd-only": "val"},
     None, {"shared": "from-service"}, {}, {"shared": "from-service", "dgd-only": "val"}),
]


# from graph_test.go: TestPropagateDGDSpecMetadata (one case per row; the component's own metadata
# is its pod-template metadata, as v1beta1 writes it)
@pytest.mark.parametrize(("case", "dgd_annotations", "dgd_labels", "own_annotations", "own_labels",
                          "want_annotations", "want_labels"), SPEC_METADATA, ids=[c[0] for c in SPEC_METADATA])
def test_graph_spec_metadata_merges_under_the_component_pod_template_metadata(
        case: str, dgd_annotations: Any, dgd_labels: Any, own_annotations: Any, own_labels: Any,
        want_annotations: dict[str, str], want_labels: dict[str, str]) -> None:
    meta: dict[str, Any] = {}
    if own_annotations:
        meta["annotations"] = own_annotations
    if own_labels:
        meta["labels"] = own_labels
    component = {"name": "frontend", "type": "frontend",
                 "podTemplate": {"metadata": meta, "spec": {"containers": [{"name": "main", "image": "fe:1.4.0"}]}}}
    spec: dict[str, Any] = {}
    if dgd_annotations:
        spec["annotations"] = dgd_annotations
    if dgd_labels:
        spec["labels"] = dgd_labels
    dcd = _dcds(render_yaml(beta_graph([component], **spec), COMPONENT))["frontend"]
    template_meta = dcd["spec"]["podTemplate"].get("metadata") or {}
    # the defaulting webhook's origin-version annotation propagates too (TestPropagateDGDAnnotations)
    user_annotations = {k: v for k, v in (template_meta.get("annotations") or {}).items()
                        if k != "nvidia.com/dynamo-operator-origin-version"}
    assert user_annotations == want_annotations
    user_labels = {k: v for k, v in (template_meta.get("labels") or {}).items() if not k.startswith("nvidia.com/")}
    assert user_labels == want_labels


# from graph_test.go: TestGenerateComponentContext (the pod env of a converted component ignores a
# deprecated dynamoNamespace and is computed from the Kubernetes namespace and the graph name)
def test_the_pod_env_dynamo_namespace_is_computed_from_namespace_and_graph() -> None:
    text = alpha_graph({"Frontend": {"componentType": "frontend", "dynamoNamespace": "ignored"}},
                  name="my-graph", namespace="prod")
    template = _pod_template(render_yaml(text, COMPONENT), "Frontend")
    assert env(main_of(template["spec"]))["DYN_NAMESPACE"] == "prod-my-graph"
