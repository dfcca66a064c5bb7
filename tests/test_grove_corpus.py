"""Every valid graph of the shared corpus renders on the Grove pathway, and what is rendered is
acceptable to the API server: the PodCliqueSet against the Grove CRD's openAPIV3Schema, claim
templates against Kubernetes 1.34, with consistent clique references and name lengths.

Validity is the project's own admission (Grove and LWS enabled, the docs' cluster topology
declared). Many corpus samples use placeholder images without a version tag, which admission
rejects until ``runtimeVersionOverride`` is set; that rule only gates admission and the worker
hash (ERRATA 2.31), so those graphs are rendered too. Graphs with any other admission error are
not rendered by the operator either and are left out.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.defaulting.webhooks import default_graph
from dynamo_pulumi.errors import GraphValidationError, RenderError
from dynamo_pulumi.loading.documents import load_documents, validate_loaded
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove import render_grove
from dynamo_pulumi.render.name_checks import NameSources, check_rendered_names

CONFORMANCE = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance"
CORPUS = CONFORMANCE / "corpus"
PCS_CRD = CONFORMANCE / "crds" / "grove.io_podcliquesets.yaml"
DGD_CRD = CONFORMANCE / "crds" / "nvidia.com_dynamographdeployments.yaml"
PLATFORM = Platform.model_validate({
    "orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}},
    "cluster": {"clusterTopologies": {"my-cluster-topology": ["region", "zone", "block", "rack", "host"]}},
})
#: Graphs the snapshot operator refuses to render (reason expected in the RenderError).
EXPECTED_RENDER_ERRORS = {
    "trtllm-agg_failover_eagle.yaml": "supported only for vLLM",  # intra-pod failover is vLLM-only
}
NAMESPACE = "corpus"
#: Grove's ``MaxCombinedGroveResourceNameLength`` and the DNS-label limit of a pod hostname.
MAX_COMBINED = 45
MAX_HOSTNAME = 63


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.glob("*.yaml"))


def _blocking_errors(errors: list[Any]) -> list[Any]:
    """Admission errors other than the placeholder-image ``runtimeVersionOverride`` requirement."""
    return [e for e in errors if not str(e.path).endswith("runtimeVersionOverride")]


#: file -> why its graphs are left out on this platform (a new one fails
#: ``test_every_left_out_graph_is_listed_with_its_reason``).
EXPECTED_LEFT_OUT = {
    # Standalone DCDs: the Grove pathway renders DynamoGraphDeployments only.
    "deploy-operator-samples-v1alpha1_dynamocomponentdeployment.yaml": "a DynamoComponentDeployment",
    "deploy-operator-testdata-dcd-deployment-input.yaml": "a DynamoComponentDeployment",
    "deploy-operator-testdata-dcd-lws-input.yaml": "a DynamoComponentDeployment",
    "deploy-operator-samples-v1alpha1_dynamographdeployment.yaml": "must have at least one component",
    "docs-autoscaling-scalingadapter.yaml": "spec.components[0].podTemplate.spec.containers: Required value",
    "docs-lws-multinode.yaml": "multinode is supported only for worker, prefill, or decode components",
    "examples-power-aware-budget-dgd.yaml": "podTemplate.spec.containers[0].image: Required value",
    "recipes-qwen3.6-35b-dynamo-fd-ec.yaml": "extraPodSpec.nodeSelector in body must be of type object",
    "sglang-agg_epp.yaml": "plugins[1].weight in body must be of type integer",
    "trtllm-v1beta1-snapshot-restore.yaml": "checkpoint functionality is disabled in the operator configuration",
    "vllm-v1beta1-agg_snapshot_tp8.yaml": "checkpoint functionality is disabled in the operator configuration",
}


@cache
def _admitted(path: Path) -> tuple[tuple[DynamoGraphDeployment, ...], tuple[str, ...]]:
    """The file's graphs that pass admission (defaulted), and why each other one is left out."""
    graphs, left_out = [], []
    try:
        documents = load_documents(path)
    except GraphValidationError as exc:  # rejected at load (e.g. an unexpanded ``${VAR}`` in a typed field)
        return (), (str(exc),)
    for loaded in documents.graphs:
        if not isinstance(loaded.object, DynamoGraphDeployment):
            left_out.append(f"a {loaded.object.kind}")
            continue
        blocking = _blocking_errors(validate_loaded(loaded, PLATFORM, NAMESPACE).errors)
        if blocking:
            left_out.append("; ".join(map(str, blocking)))
            continue
        if not _passes_crd_schema(loaded):
            left_out.append("the DGD CRD schema refuses it")
            continue
        graphs.append(default_graph(loaded.object, PLATFORM))
    return tuple(graphs), tuple(left_out)


def _valid_graphs(path: Path) -> tuple[DynamoGraphDeployment, ...]:
    return _admitted(path)[0]


def _passes_crd_schema(loaded: Any) -> bool:
    """The API server's schema check of the version the user wrote (pod templates are not typed
    by our models, so e.g. an unexpanded ``${VAR}`` where an object belongs is caught here)."""
    if not DGD_CRD.is_file():
        return True
    if loaded.is_alpha and loaded.alpha_object is not None:
        document, version = loaded.alpha_object.to_wire(), "v1alpha1"
    else:
        document, version = loaded.object.to_wire(), "v1beta1"
    return next(_validator(DGD_CRD, version).iter_errors(document), None) is None


@cache
def _rendered(path: Path) -> tuple[list[dict[str, Any]], ...]:
    if path.name in EXPECTED_RENDER_ERRORS:
        return ()
    return tuple(render_grove(g, PLATFORM, NAMESPACE) for g in _valid_graphs(path))


@cache
def _validator(crd_path: Path, version_name: str) -> jsonschema.protocols.Validator:
    crd = yaml.safe_load(crd_path.read_text())
    version = next(v for v in crd["spec"]["versions"] if v["name"] == version_name)
    return jsonschema.Draft7Validator(version["schema"]["openAPIV3Schema"])


def _pcs_validator() -> jsonschema.protocols.Validator:
    return _validator(PCS_CRD, "v1alpha1")


def _objects(path: Path, kind: str) -> list[dict[str, Any]]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present")
    rendered = _rendered(path)
    if not rendered:
        pytest.skip(f"{path.name}: no graph passes admission")
    return [o for objects in rendered for o in objects if o["kind"] == kind]


FILES = _corpus_files()
IDS = [str(p.relative_to(CORPUS)) for p in FILES]
if not FILES:
    FILES, IDS = [CORPUS / "absent.yaml"], ["absent"]


def test_corpus_has_valid_graphs_to_render() -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present")
    assert sum(len(_valid_graphs(p)) for p in _corpus_files()) >= 50


@pytest.mark.parametrize("name", sorted(EXPECTED_RENDER_ERRORS))
def test_corpus_graphs_the_operator_cannot_render_fail_with_a_clear_reason(name: str) -> None:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"{name} is not present")
    (dgd,) = _valid_graphs(path)
    with pytest.raises(RenderError, match=EXPECTED_RENDER_ERRORS[name]):
        render_grove(dgd, PLATFORM, NAMESPACE)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_valid_corpus_graph_renders_one_pcs_per_graph(path: Path) -> None:
    pcs = _objects(path, "PodCliqueSet")
    assert len(pcs) == len(_valid_graphs(path))


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_rendered_pcs_validates_against_the_grove_crd_schema(path: Path) -> None:
    if not PCS_CRD.is_file():
        pytest.skip("Grove PodCliqueSet CRD is not present")
    for pcs in _objects(path, "PodCliqueSet"):
        errors = sorted(_pcs_validator().iter_errors(pcs), key=lambda e: list(e.absolute_path))
        assert [f"{list(e.absolute_path)}: {e.message}" for e in errors] == []


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_rendered_name_and_label_passes_the_post_render_name_check(path: Path) -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present")
    if path.name in EXPECTED_RENDER_ERRORS or not _valid_graphs(path):
        pytest.skip(f"{path.name}: pinned in EXPECTED_RENDER_ERRORS / EXPECTED_LEFT_OUT, nothing rendered")
    for graph, objects in zip(_valid_graphs(path), _rendered(path), strict=True):
        check_rendered_names(objects, NameSources("DynamoGraphDeployment", graph.name))


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_left_out_graph_is_listed_with_its_reason(path: Path) -> None:
    """A graph admission newly refuses (or a listed one it now admits) fails here, not as a skip."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present")
    reasons = _admitted(path)[1]
    expected = EXPECTED_LEFT_OUT.get(path.name)
    if expected is None:
        assert reasons == ()
    else:
        assert reasons and all(expected in r for r in reasons), reasons


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_rendered_claim_templates_validate_for_kubernetes_1_34(path: Path) -> None:
    for rct in _objects(path, "ResourceClaimTemplate"):
        kubernetes_validate.validate(rct, "1.34.0", strict=True)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_scaling_groups_startup_order_and_sharing_reference_existing_names(path: Path) -> None:
    for pcs in _objects(path, "PodCliqueSet"):
        template = pcs["spec"]["template"]
        cliques = {c["name"] for c in template["cliques"]}
        claims = {t["name"] for t in template.get("resourceClaimTemplates") or []}
        for group in template.get("podCliqueScalingGroups") or []:
            assert set(group["cliqueNames"]) <= cliques
            for share in group.get("resourceSharing") or []:
                assert share["name"] in claims
                assert set(share["filter"]["childCliqueNames"]) <= set(group["cliqueNames"])
        for clique in template["cliques"]:
            assert set(clique["spec"].get("startsAfter") or []) <= cliques - {clique["name"]}


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_grove_resource_and_pod_names_stay_within_kubernetes_limits(path: Path) -> None:
    for pcs in _objects(path, "PodCliqueSet"):
        name = pcs["metadata"]["name"]
        template = pcs["spec"]["template"]
        member_of = {c: g["name"] for g in template.get("podCliqueScalingGroups") or [] for c in g["cliqueNames"]}
        for clique in template["cliques"]:
            group = member_of.get(clique["name"], "")
            assert len(name) + len(group) + len(clique["name"]) <= MAX_COMBINED
            pclq = f"{group}-0-{clique['name']}" if group else f"{name}-0-{clique['name']}"
            last_pod = f"{pclq}-{max(clique['spec']['replicas'] - 1, 0)}"
            assert len(last_pod) <= MAX_HOSTNAME


def test_crd_schema_check_rejects_a_malformed_pcs() -> None:
    if not PCS_CRD.is_file():
        pytest.skip("Grove PodCliqueSet CRD is not present")
    bad = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "x"},
           "spec": {"replicas": 1, "template": {"cliqueStartupType": "Bogus", "cliques": []}}}
    assert any("Bogus" in e.message for e in _pcs_validator().iter_errors(bad))


def test_alpha_component_type_main_renders_on_the_grove_pathway_with_the_type_as_written() -> None:
    """v1alpha1 ``componentType: main`` survives conversion; Grove creates no DCDs, so the cliques
    render with the default component's behaviour and carry the type as written."""
    path = CORPUS / "recipes-gpt-oss-120b-trtllm-disagg-deploy.yaml"
    if not path.is_file():
        pytest.skip(f"{path.name} is not present")
    (pcs,) = _objects(path, "PodCliqueSet")
    types = {c["labels"]["nvidia.com/dynamo-component-type"] for c in pcs["spec"]["template"]["cliques"]}
    assert types == {"frontend", "main"}
    assert list(_pcs_validator().iter_errors(pcs)) == []


def test_every_pinned_file_is_in_the_corpus() -> None:
    """No stale entry: each pinned file exists."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present")
    names = {p.name for p in _corpus_files()}
    assert set(EXPECTED_LEFT_OUT) | set(EXPECTED_RENDER_ERRORS) <= names
