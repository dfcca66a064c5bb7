"""The alpha view of a DCD in its workload metadata (``GetDCDKubeLabels``/``Annotations``,
``GetDCDDynamoNamespace``): a converted v1alpha1 component's labels, annotations and
``dynamoNamespace`` travel on its DCD in ``nvidia.com/dcd-spec`` and are rendered from there."""

from __future__ import annotations

import json
from typing import Any

import yaml

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import dcd_identity, render_graph
from dynamo_pulumi.render.pod import metadata

ALPHA = """
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: legacy, namespace: ns}
spec:
  services:
    Frontend:
      componentType: frontend
      dynamoNamespace: custom-ns
      labels: {team: alpha}
      annotations: {alpha.example/note: kept}
      extraPodSpec: {mainContainer: {image: "frontend:1.4.0"}}
"""


def _objects(result: Any, kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in result.objects if o["kind"] == kind}


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value") for e in container.get("env") or []}


def test_alpha_component_labels_annotations_and_dynamo_namespace_reach_the_workloads() -> None:
    result = render_graph(load_graph(yaml.safe_load(ALPHA)), Platform())
    deployment = _objects(result, "Deployment")["legacy-frontend"]
    assert deployment["metadata"]["labels"]["team"] == "alpha"
    assert deployment["metadata"]["annotations"]["alpha.example/note"] == "kept"
    template = deployment["spec"]["template"]
    assert template["metadata"]["labels"]["team"] == "alpha"
    assert template["metadata"]["labels"]["nvidia.com/dynamo-namespace"] == "custom-ns"
    assert template["metadata"]["annotations"]["alpha.example/note"] == "kept"
    # the pod env is built from the computed namespace (generateComponentContext)
    assert _env(template["spec"]["containers"][0])["DYN_NAMESPACE"] == "ns-legacy"
    service = _objects(result, "Service")["legacy-frontend"]
    assert service["metadata"]["labels"]["team"] == "alpha"
    assert service["spec"]["selector"]["nvidia.com/dynamo-namespace"] == "custom-ns"


def _dcd(preserved: dict[str, Any] | None = None, labels: dict[str, str] | None = None,
         template_meta: dict[str, Any] | None = None) -> DynamoComponentDeployment:
    meta: dict[str, Any] = {"name": "g-worker", "namespace": "ns", "labels": labels or {}}
    if preserved is not None:
        meta["annotations"] = {"nvidia.com/dcd-spec": json.dumps({"version": 1, "spec": preserved})}
    template: dict[str, Any] = {"spec": {"containers": [{"name": "main", "image": "w:1.4.0"}]}}
    if template_meta:
        template["metadata"] = template_meta
    return DynamoComponentDeployment.model_validate({
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": meta,
        "spec": {"name": "worker", "type": "frontend", "podTemplate": template},
    })


def test_pod_template_metadata_wins_over_preserved_alpha_metadata() -> None:
    dcd = _dcd({"labels": {"a": "alpha", "b": "alpha"}, "annotations": {"x": "alpha", "y": "alpha"}},
               labels={"own": "dcd", "a": "dcd"},
               template_meta={"labels": {"b": "template"}, "annotations": {"y": "template"}})
    labels = metadata.dcd_kube_labels(dcd, "ns-g")
    assert {k: labels[k] for k in ("own", "a", "b")} == {"own": "dcd", "a": "alpha", "b": "template"}
    assert metadata.dcd_kube_annotations(dcd) == {"x": "alpha", "y": "template"}


def test_dcd_dynamo_namespace_prefers_alpha_then_label_then_computed() -> None:
    label = {"nvidia.com/dynamo-namespace": "from-label"}
    assert dcd_identity.dcd_dynamo_namespace(_dcd({"dynamoNamespace": "from-alpha"}, labels=label), "c") == "from-alpha"
    assert dcd_identity.dcd_dynamo_namespace(_dcd({"labels": {"k": "v"}}, labels=label), "c") == "from-label"
    assert dcd_identity.dcd_dynamo_namespace(_dcd(), "computed") == "computed"
    assert metadata.dcd_kube_labels(_dcd({"dynamoNamespace": "from-alpha"}), "c")[
        "nvidia.com/dynamo-namespace"] == "from-alpha"


def test_preserved_alpha_sub_component_type_is_labelled() -> None:
    dcd = _dcd({"subComponentType": "custom"})
    assert metadata.dcd_kube_labels(dcd, "c")["nvidia.com/dynamo-sub-component-type"] == "custom"


def test_standalone_dcd_namespace_label_names_the_pods_but_not_the_env() -> None:
    dcd = _dcd(labels={"nvidia.com/dynamo-namespace": "picked"})
    result = render_graph(dcd, Platform())
    template = _objects(result, "Deployment")["g-worker"]["spec"]["template"]
    assert template["metadata"]["labels"]["nvidia.com/dynamo-namespace"] == "picked"
    assert _env(template["spec"]["containers"][0])["DYN_NAMESPACE"] == "ns-g-worker"
