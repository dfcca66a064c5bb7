"""The Grove PodCliqueSet's metadata and shape, translated from the operator's Go tests
(``internal/dynamo/graph_test.go``, ``GenerateGrovePodCliqueSet`` and ``generateLabels``).

The Go tests build v1alpha1 graphs with ``betaDGD``, which also copies each service's
``labels``/``annotations`` into its pod template (``applyAlphaMetadataToBetaComponent``); the real
conversion keeps them as preserved alpha data instead. These tests convert the way the operator's
webhook does (our loader), and the expectations hold through the preserved-alpha layer.
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_support import GROVE, alpha_graph, cliques, env, main_of, of_kind, pcs, render_yaml

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.platform import Platform


def _alpha_graph(services: dict[str, Any], metadata: dict[str, Any] | None = None, **spec: Any) -> str:
    return alpha_graph(services, namespace="ns", metadata=metadata, **spec)


# from graph_test.go: TestGenerateLabelsAndAnnotations_UsePreservedAlphaDGDServiceMetadata
def test_clique_metadata_reads_the_preserved_v1alpha1_service_metadata() -> None:
    text = _alpha_graph(
        {"worker": {"componentType": "worker", "subComponentType": "legacy-sub",
                    "annotations": {"legacy-annotation": "kept"}, "labels": {"legacy-label": "kept"},
                    "extraPodMetadata": {"annotations": {"pod-template-annotation": "from-pod-template"}},
                    "extraPodSpec": {"mainContainer": {"image": "worker:1.4.0"}}}},
        annotations={"dgd-annotation": "from-dgd", "legacy-annotation": "from-dgd",
                     "pod-template-annotation": "from-dgd"},
    )
    clique = cliques(render_yaml(text, GROVE))["worker"]
    assert clique["labels"]["legacy-label"] == "kept"
    assert clique["labels"]["nvidia.com/dynamo-sub-component-type"] == "legacy-sub"
    assert clique["annotations"]["dgd-annotation"] == "from-dgd"
    assert clique["annotations"]["legacy-annotation"] == "kept"
    assert clique["annotations"]["pod-template-annotation"] == "from-pod-template"


def test_a_v1alpha1_service_label_wins_over_the_graph_label_on_the_clique_and_its_service() -> None:
    """Difference 2 of issue 12 (``generateLabels``): ``spec.labels``, then the preserved service
    labels, then the raw pod-template labels. The Grove Service (``GetDGDComponentResourceLabels``)
    layers them the same way, so both show the service's value."""
    text = _alpha_graph({"Frontend": {"componentType": "frontend", "labels": {"team": "service", "svc-only": "v"}}},
                        labels={"team": "graph", "env": "prod"})
    result = render_yaml(text, GROVE)
    labels = cliques(result)["frontend"]["labels"]
    assert (labels["team"], labels["svc-only"], labels["env"]) == ("service", "v", "prod")
    service = of_kind(result, "Service")["test-dgd-frontend"]
    assert (service["metadata"]["labels"]["team"], service["metadata"]["labels"]["env"]) == ("service", "prod")


def test_the_raw_pod_template_label_still_wins_over_a_v1alpha1_service_label() -> None:
    text = _alpha_graph({"Frontend": {"componentType": "frontend", "labels": {"team": "service"},
                                      "extraPodMetadata": {"labels": {"team": "pod"}},
                                      "extraPodSpec": {"mainContainer": {"image": "frontend:1.4.0"}}}},
                        labels={"team": "graph"})
    assert cliques(render_yaml(text, GROVE))["frontend"]["labels"]["team"] == "pod"


# from graph_test.go: TestGenerateGrovePodCliqueSet_SpecMetadataPropagation
def test_spec_metadata_reaches_the_pod_clique_set_and_service_annotations_win_on_cliques() -> None:
    text = _alpha_graph({"worker": {"componentType": "worker", "replicas": 1,
                                    "annotations": {"team/cost-center": "svc-override"}}},
                        annotations={"team/cost-center": "abc"}, labels={"env": "prod"})
    result = render_yaml(text, GROVE)
    pod_clique_set = pcs(result)
    assert pod_clique_set["metadata"]["annotations"]["team/cost-center"] == "abc"
    assert pod_clique_set["metadata"]["labels"]["env"] == "prod"
    (clique,) = pod_clique_set["spec"]["template"]["cliques"]
    assert clique["annotations"]["team/cost-center"] == "svc-override"


# from graph_test.go: TestGenerateGrovePodCliqueSet_GMSPodsDoNotCarryDiscoveryLabels
def test_gms_weight_server_cliques_carry_no_discovery_labels() -> None:
    text = _alpha_graph({"decode": {
        "componentType": "decode", "replicas": 1, "resources": {"limits": {"gpu": "1"}},
        "gpuMemoryService": {"enabled": True, "mode": "interPod"},
        "failover": {"enabled": True, "mode": "interPod", "numShadows": 1},
        "extraPodSpec": {"mainContainer": {"image": "vllm:1.4.0", "command": ["python3"],
                                           "args": ["-m", "dynamo.vllm"]}},
    }}, backendFramework="vllm")
    platform = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}, "dra": {"enabled": True},
                                        "discovery": {"backend": "kubernetes"}})
    found = cliques(render_yaml(text, platform))
    gms = [c for name, c in found.items() if "gms" in name]
    engines = [c for name, c in found.items() if "gms" not in name]
    assert gms and engines
    for clique in gms:
        assert "nvidia.com/dynamo-discovery-backend" not in clique["labels"]
        assert "nvidia.com/dynamo-discovery-enabled" not in clique["labels"]
    for clique in engines:
        assert clique["labels"]["nvidia.com/dynamo-discovery-backend"] == "kubernetes"
        assert clique["labels"]["nvidia.com/dynamo-discovery-enabled"] == "true"


# from graph_test.go: Test_GeneratePodCliqueSetGlobalDynamoNamespace
def test_a_global_dynamo_namespace_component_registers_in_the_global_namespace() -> None:
    text = _alpha_graph({"Frontend": {"componentType": "frontend", "globalDynamoNamespace": True, "replicas": 1},
                         "Planner": {"componentType": "planner", "replicas": 1}})
    text = text.replace('"namespace": "ns"', '"namespace": "k8s-namespace"').replace('"test-dgd"', '"test-dynamo-graph"')
    found = cliques(render_yaml(text, GROVE))
    assert set(found) == {"frontend", "planner"}
    for name, want in (("frontend", "dynamo"), ("planner", "k8s-namespace-test-dynamo-graph")):
        assert found[name]["labels"]["nvidia.com/dynamo-namespace"] == want
        assert env(main_of(found[name]["spec"]["podSpec"]))["DYN_NAMESPACE"] == want


# from graph_test.go: TestGenerateGrovePodCliqueSet_PriorityClassName
def test_the_graph_priority_class_names_the_pod_clique_set_template() -> None:
    text = _alpha_graph({"worker": {"componentType": "worker", "replicas": 1}}, priorityClassName="high-priority")
    assert pcs(render_yaml(text, GROVE))["spec"]["template"]["priorityClassName"] == "high-priority"


UPDATE_STRATEGIES = [
    ("default leaves Grove strategy unset", None, None, ""),
    ("RollingRecreate annotation maps to Grove strategy", "RollingRecreate", "RollingRecreate", ""),
    ("OnDelete annotation maps to Grove strategy", "OnDelete", "OnDelete", ""),
    ("lowercase annotation is rejected", "ondelete", None, "unsupported Grove update strategy annotation"),
    ("annotation with whitespace is rejected", " OnDelete ", None, "unsupported Grove update strategy annotation"),
    ("unknown annotation is rejected", "BlueGreen", None, "unsupported Grove update strategy annotation"),
]


# from graph_test.go: TestGenerateGrovePodCliqueSet_UpdateStrategy (one case per row)
@pytest.mark.parametrize(("case", "annotation", "want", "error"), UPDATE_STRATEGIES, ids=[c[0] for c in UPDATE_STRATEGIES])
def test_the_grove_update_strategy_annotation_sets_the_pod_clique_set_strategy(
        case: str, annotation: str | None, want: str | None, error: str) -> None:
    metadata = {"annotations": {"nvidia.com/grove-update-strategy": annotation}} if annotation is not None else None
    text = _alpha_graph({"worker": {"componentType": "worker", "replicas": 1}}, metadata)
    if error:
        with pytest.raises(RenderError, match=error):
            render_yaml(text, GROVE)
        return
    spec = pcs(render_yaml(text, GROVE))["spec"]
    assert spec.get("updateStrategy") == ({"type": want} if want else None)


PROPAGATED = [
    ("DGD annotation propagates to empty service annotations",
     {"nvidia.com/vllm-distributed-executor-backend": "ray"}, None,
     {"nvidia.com/vllm-distributed-executor-backend": "ray"}),
    ("origin version also propagates", {"nvidia.com/dynamo-operator-origin-version": "1.0.0"}, None,
     {"nvidia.com/dynamo-operator-origin-version": "1.0.0"}),
    ("unrelated DGD annotations are not propagated", {"some-other-annotation": "value"}, None, {}),
]


# from graph_test.go: TestPropagateDGDAnnotations (one case per row; read on the rendered clique)
@pytest.mark.parametrize(("case", "dgd", "service", "want"), PROPAGATED, ids=[c[0] for c in PROPAGATED])
def test_dgd_metadata_annotations_the_runtime_reads_propagate_to_the_cliques(
        case: str, dgd: dict[str, str], service: dict[str, str] | None, want: dict[str, str]) -> None:
    body: dict[str, Any] = {"componentType": "frontend"}
    if service:
        body["annotations"] = service
    text = _alpha_graph({"Frontend": body}, {"annotations": dgd})
    annotations = cliques(render_yaml(text, GROVE))["frontend"]["annotations"]
    for key, value in want.items():
        assert annotations[key] == value
    if not want:
        assert not set(dgd) & set(annotations)


# from graph_test.go: TestPropagateDGDAnnotations ("service-level annotation takes precedence over DGD")
def test_a_pod_template_annotation_is_not_overwritten_by_the_dgd_metadata_annotation() -> None:
    text = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: test-dgd, namespace: ns, annotations: {nvidia.com/vllm-distributed-executor-backend: ray}}
spec:
  components:
  - name: frontend
    type: frontend
    podTemplate:
      metadata: {annotations: {nvidia.com/vllm-distributed-executor-backend: mp}}
      spec: {containers: [{name: main, image: "frontend:1.4.0"}]}
"""
    annotations = cliques(render_yaml(text, GROVE))["frontend"]["annotations"]
    assert annotations["nvidia.com/vllm-distributed-executor-backend"] == "mp"


def test_a_v1alpha1_service_annotation_does_not_stop_the_dgd_metadata_annotation_propagating() -> None:
    """The Go case above builds its component with ``betaComponent``, which writes the service's
    annotations into the pod template. The real conversion keeps them as preserved alpha data, so
    ``propagateDGDAnnotations`` still writes the DGD's value into the pod template, and the pod
    template layer wins over the preserved one in ``generateAnnotations``: the DGD's ``ray``."""
    text = _alpha_graph({"Frontend": {"componentType": "frontend",
                                      "annotations": {"nvidia.com/vllm-distributed-executor-backend": "mp"}}},
                        {"annotations": {"nvidia.com/vllm-distributed-executor-backend": "ray"}})
    annotations = cliques(render_yaml(text, GROVE))["frontend"]["annotations"]
    assert annotations["nvidia.com/vllm-distributed-executor-backend"] == "ray"
