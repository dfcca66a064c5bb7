"""Every corpus graph, registered under Pulumi mocks: the tree matches the rendered plan exactly
(types, names, parents), a provider reaches every object, options follow the rules, and a graph
that fails admission or rendering registers nothing."""

from __future__ import annotations

from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
import pytest

from dynamo_pulumi.diff.diffing import type_token
from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.mocks import Recording, run_program
from dynamo_pulumi.planning.options import ignore_changes, replace_on_changes
from dynamo_pulumi.planning.plan import GraphPlan, plan_graph
from dynamo_pulumi.resources import DCD_TYPE, DGD_TYPE, DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.resources.children import server_assigned

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
FILES = sorted(p.name for p in CORPUS.glob("*.yaml")) if CORPUS.is_dir() else []
PLATFORMS = {
    "orchestrated": {"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}},
    "lws-only": {"orchestrators": {"lws": {"enabled": True}}},
}
NS = "corpus"


def _plan_or_error(path: Path, platform: dict) -> GraphPlan | DynamoPulumiError:
    try:
        return plan_graph(path, platform, NS)
    except DynamoPulumiError as exc:
        return exc


def _program(path: Path, platform: dict):
    """Register the file with the class its kind calls for, through a named provider."""
    standalone = "kind: DynamoComponentDeployment" in path.read_text()
    cls = DynamoComponentDeployment if standalone else DynamoGraphDeployment

    def program():
        provider = k8s.Provider("cluster")
        return cls("graph", str(path), namespace=NS, platform=platform, opts=pulumi.ResourceOptions(provider=provider))
    return program


@pytest.fixture(params=FILES or ["<no corpus>"])
def corpus_file(request) -> Path:
    if not FILES:
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    return CORPUS / request.param


@pytest.mark.parametrize("platform_name", sorted(PLATFORMS))
def test_corpus_graph_registers_exactly_its_plan(corpus_file, platform_name):
    platform = PLATFORMS[platform_name]
    planned = _plan_or_error(corpus_file, platform)
    recording = Recording()
    if isinstance(planned, DynamoPulumiError):
        with pytest.raises(DynamoPulumiError):
            run_program(_program(corpus_file, platform), recording=recording)
        assert [r for r in recording.resources if r.type != "pulumi:providers:kubernetes"] == []
        return
    run_program(_program(corpus_file, platform), recording=recording)
    _check_tree(recording, planned)


def _check_tree(rec: Recording, plan: GraphPlan) -> None:
    if plan.kind == "DynamoComponentDeployment":
        assert rec.by_type(DGD_TYPE) == []
        (top,) = rec.by_type(DCD_TYPE)
        dcds = {c.pulumi_name: top for c in plan.components}
    else:
        (top,) = rec.by_type(DGD_TYPE)
        dcds = {r.name: r for r in rec.by_type(DCD_TYPE)}
        assert set(dcds) == {c.pulumi_name for c in plan.components}
        assert all(r.parent_urn == top.urn for r in dcds.values())
    dgd = top

    objects = [r for r in rec.resources if r.type.startswith("kubernetes:") and r.custom
               and not r.type.startswith("pulumi:providers")]
    expected = {}
    for planned in plan.graph_objects:
        expected[(type_token(planned.api_version, planned.resource_kind), planned.pulumi_name)] = (planned, dgd.urn, None)
    for component in plan.components:
        for planned in component.objects:
            key = (type_token(planned.api_version, planned.resource_kind), planned.pulumi_name)
            expected[key] = (planned, dcds[component.pulumi_name].urn, component)
    assert {(r.type, r.name) for r in objects} == set(expected)
    assert len(objects) == len(expected), "two objects share a Pulumi type and name"
    for reg in objects:
        planned, parent_urn, component = expected[(reg.type, reg.name)]
        assert reg.parent_urn == parent_urn
        assert reg.object_name == planned.name
        assert "::cluster::" in reg.provider, f"{reg.name} does not use the given provider"
        assert list(reg.ignore_changes) == [*ignore_changes(planned, plan, component), *server_assigned(planned)]
        assert list(reg.replace_on_changes) == replace_on_changes(planned.api_version, planned.kind)


def test_corpus_has_graphs_that_render_on_every_pathway():
    """Guard: the loop above must exercise Deployments, LeaderWorkerSets and PodCliqueSets."""
    if not FILES:
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    kinds: set[str] = set()
    for platform in PLATFORMS.values():
        for name in FILES:
            planned = _plan_or_error(CORPUS / name, platform)
            if isinstance(planned, GraphPlan):
                kinds |= {o.kind for o in planned.all_objects()}
    assert {"Deployment", "LeaderWorkerSet", "PodCliqueSet", "Service"} <= kinds


def test_v1alpha1_graph_file_is_converted_and_registered():
    path = CORPUS / "sglang-agg.yaml"
    if not path.is_file():
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    assert "nvidia.com/v1alpha1" in path.read_text()
    rec, dgd = run_program(lambda: DynamoGraphDeployment("alpha", str(path), namespace=NS))
    assert dgd.plan.graph.api_version == "nvidia.com/v1beta1"
    assert len(rec.by_type(DCD_TYPE)) == len(dgd.plan.components) >= 2
    assert rec.by_type("kubernetes:apps/v1:Deployment")


def test_epp_graph_puts_inference_pool_and_configs_at_graph_level(tmp_path):
    import yaml

    source = CORPUS / "vllm-gaie-v1beta1-agg.yaml"
    if not source.is_file():
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    doc = yaml.safe_load(source.read_text())
    for component in doc["spec"]["components"]:  # its images carry placeholder tags
        component["runtimeVersionOverride"] = "1.3.0"
    path = tmp_path / "epp.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    rec, _ = run_program(lambda: DynamoGraphDeployment("qwen", str(path), namespace=NS))
    (dgd,) = rec.by_type(DGD_TYPE)
    (pool,) = rec.by_type("kubernetes:inference.networking.k8s.io/v1:InferencePool")
    assert pool.parent_urn == dgd.urn and pool.custom
    config_maps = rec.by_type("kubernetes:core/v1:ConfigMap")
    assert config_maps and all(c.parent_urn == dgd.urn for c in config_maps)
    epp = next(r for r in rec.by_type(DCD_TYPE) if r.name.endswith("-epp"))
    assert {r.type for r in rec.children_of(epp.urn)} == {"kubernetes:apps/v1:Deployment", "kubernetes:core/v1:Service"}
