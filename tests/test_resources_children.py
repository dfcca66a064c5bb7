"""Which Pulumi class each rendered kind becomes, and how a spec may be given."""

from __future__ import annotations

import pulumi_kubernetes as k8s
import pytest
from resources_fixtures import GRAPH, graph_doc

from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DGD_TYPE, DynamoGraphDeployment
from dynamo_pulumi.resources.children import typed_class


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        ("apps/v1", "Deployment", k8s.apps.v1.Deployment),
        ("v1", "Service", k8s.core.v1.Service),
        ("v1", "ConfigMap", k8s.core.v1.ConfigMap),
        ("rbac.authorization.k8s.io/v1", "RoleBinding", k8s.rbac.v1.RoleBinding),
        ("networking.k8s.io/v1", "Ingress", k8s.networking.v1.Ingress),
    ],
)
def test_built_in_kinds_use_the_typed_classes(api_version, kind, expected):
    assert typed_class(api_version, kind) is expected


def test_a_kind_newer_than_the_installed_sdk_is_a_custom_resource_of_the_same_type_token():
    """``resource.k8s.io/v1`` (DRA, Kubernetes 1.34) has a typed class only from pulumi-kubernetes
    4.26; the end-to-end tier pins 4.25.0 beside the provider binary the proxy serves. Either way
    the engine sees the same type token, so the URN and the provider's handling are the same."""
    cls = typed_class("resource.k8s.io/v1", "ResourceClaimTemplate")
    v1 = getattr(getattr(k8s, "resource", None), "v1", None)
    assert cls is getattr(v1, "ResourceClaimTemplate", None)
    recording, _ = run_program(lambda: k8s.apiextensions.CustomResource(
        "rct", api_version="resource.k8s.io/v1", kind="ResourceClaimTemplate", spec={}))
    assert {r.type for r in recording.resources} >= {"kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"}


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("grove.io/v1alpha1", "PodCliqueSet"),
        ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
        ("inference.networking.k8s.io/v1", "InferencePool"),
        ("networking.istio.io/v1beta1", "VirtualService"),
        ("networking.istio.io/v1beta1", "DestinationRule"),
        ("nvidia.com/v1beta1", "DynamoGraphDeploymentScalingAdapter"),
        ("apps/v1", "NoSuchKind"),
    ],
)
def test_other_kinds_are_custom_resources(api_version, kind):
    assert typed_class(api_version, kind) is None


def _names(rec):
    return sorted(r.object_name for r in rec.resources if r.custom)


@pytest.mark.parametrize(
    "spec_form",
    ["dict", "model", "bare-spec", "path"],
)
def test_spec_can_be_a_dict_a_model_a_bare_spec_or_a_file(spec_form, tmp_path):
    import yaml

    doc = graph_doc()
    baseline, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, graph_doc()))
    if spec_form == "model":
        spec = load_graph(doc)
    elif spec_form == "bare-spec":
        spec = doc["spec"]
    elif spec_form == "path":
        spec = tmp_path / "graph.yaml"
        spec.write_text(yaml.safe_dump(doc, sort_keys=False))
    else:
        spec = doc
    rec, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, spec, namespace="team-a"))
    assert rec.by_type(DGD_TYPE)[0].name == GRAPH
    assert _names(rec) == _names(baseline)


def test_reordering_keys_in_the_yaml_does_not_rename_workers(tmp_path):
    import yaml

    ordered, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, graph_doc()))
    path = tmp_path / "sorted.yaml"
    path.write_text(yaml.safe_dump(graph_doc(), sort_keys=True))
    resorted, _ = run_program(lambda: DynamoGraphDeployment(GRAPH, path))
    assert _names(resorted) == _names(ordered)


def _renamed(name: str) -> dict:
    doc = graph_doc()
    doc["metadata"]["name"] = name
    return doc


def test_two_graphs_in_one_namespace_co_own_the_shared_planner_rbac_through_patches():
    def program():
        DynamoGraphDeployment("first", _renamed("first"), namespace="team")
        DynamoGraphDeployment("second", _renamed("second"), namespace="team")

    rec, _ = run_program(program)
    patches = rec.by_type("kubernetes:core/v1:ServiceAccountPatch")
    assert sorted(r.name for r in patches) == [
        "first:team/planner-serviceaccount",
        "second:team/planner-serviceaccount",
    ]
    assert {r.object_name for r in patches} == {"planner-serviceaccount"}
    # Co-ownership under server-side apply holds only while both graphs apply the same values:
    # anything graph-specific in the object (a `pulumi.com/patchFieldManager` annotation naming the
    # graph, as before) is a field conflict on the real API server (tests/e2e/test_engine_diff.py).
    for token in ("kubernetes:core/v1:ServiceAccountPatch", "kubernetes:rbac.authorization.k8s.io/v1:RoleBindingPatch"):
        first, second = (r.inputs for r in rec.by_type(token))
        assert first == second, token
        assert not any(key.startswith("pulumi.com/") for key in (first["metadata"].get("annotations") or {}))
    assert rec.by_type("kubernetes:core/v1:ServiceAccount") != []  # the graphs' own discovery SAs
    assert all(r.name.endswith("k8s-service-discovery") for r in rec.by_type("kubernetes:core/v1:ServiceAccount"))
