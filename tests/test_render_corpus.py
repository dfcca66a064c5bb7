"""Every published corpus graph renders on the component pathway (Grove off, LWS on) into objects
the API server would accept and that fit together.

Published graphs often carry placeholder image tags (``my-tag``, ``${VERSION}``); admission then
requires ``runtimeVersionOverride``, so every component without one is pinned to 1.4.0 - what a
user has to add to apply the file. Graphs admission still rejects are listed in
``EXPECTED_REFUSALS`` (file -> the rule that refuses it) and graphs the renderer refuses in
``EXPECTED_RENDER_ERRORS``, each with the reason, so a new refusal (or a listed file that is now
admitted) fails the run instead of turning into a skip.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.errors import DynamoPulumiError, GraphValidationError, RenderError
from dynamo_pulumi.loading.documents import load_documents
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph
from dynamo_pulumi.render.objects.rbac import is_namespace_shared
from dynamo_pulumi.validation import check

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
FILES = sorted(p.name for p in CORPUS.glob("*.yaml")) if CORPUS.is_dir() else []
KUBERNETES_VERSION = "1.34"
BUILT_IN_API_VERSIONS = (
    "v1", "apps/v1", "rbac.authorization.k8s.io/v1", "networking.k8s.io/v1", "resource.k8s.io/v1"
)
PINNED_RUNTIME_VERSION = "1.4.0"
PLATFORM = Platform.model_validate(
    {
        "discovery": {"backend": "kubernetes"},
        "orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": True}},
    }
)
#: file -> why the operator's renderer (or ours, for an unimplemented experimental feature) refuses.
EXPECTED_RENDER_ERRORS = {
    # The operator's checkMainContainer: an LWS pod's main container needs args; this Grove sample has none.
    "deploy-operator-testdata-dgd-grove-input.yaml": "Args cannot be empty for LWS pod",
    # Intra-pod failover is vLLM-only in the operator (ERRATA 2.34).
    "trtllm-agg_failover_eagle.yaml": "failover is currently supported only for vLLM",
    # v1alpha1 componentType "main" survives conversion as written; the DGD controller then creates
    # v1beta1 DCDs with spec.type "main", which the API server refuses (CRD enum). The Grove pathway,
    # which creates no DCDs, renders it (tests/test_grove_corpus.py).
    "recipes-gpt-oss-120b-trtllm-disagg-deploy.yaml": 'spec.type: Unsupported value: "main"',
}


#: file -> the admission rule that refuses it on this platform (Grove off, LWS on, checkpoints off).
EXPECTED_REFUSALS = {
    # A v1alpha1 scheduling-profile plugin without weight, which the webhook's round trip writes as
    # null (recorded from the operator: tests/fixtures/operator_recordings/corpus-sglang-agg-epp.yaml).
    "sglang-agg_epp.yaml": "plugins[1].weight in body must be of type integer",
    # Inter-pod GMS needs the Grove pathway.
    "deploy-operator-samples-dgd-gms-failover.yaml": 'gpuMemoryService.mode: Forbidden: requires the Grove pathway',
    "vllm-gms-failover.yaml": 'gpuMemoryService.mode: Forbidden: requires the Grove pathway',
    # Samples without a main container image.
    "deploy-operator-samples-v1alpha1_dynamocomponentdeployment.yaml":
        "spec.podTemplate.spec.containers: Required value: is required",
    "docs-autoscaling-scalingadapter.yaml": "spec.components[0].podTemplate.spec.containers: Required value",
    "examples-power-aware-budget-dgd.yaml": "podTemplate.spec.containers[0].image: Required value",
    # A sample graph without services.
    "deploy-operator-samples-v1alpha1_dynamographdeployment.yaml":
        "spec.components: Required value: must have at least one component",
    # Multinode on a frontend.
    "docs-lws-multinode.yaml": "multinode: Forbidden: multinode is supported only for worker, prefill, or decode",
    # An unexpanded ``${...}`` placeholder where the schema wants an object.
    "recipes-qwen3.6-35b-dynamo-fd-ec.yaml": "extraPodSpec.nodeSelector in body must be of type object",
    # Checkpoints are off in the operator configuration this test uses.
    "trtllm-v1beta1-snapshot-restore.yaml": "checkpoint functionality is disabled in the operator configuration",
    "vllm-v1beta1-agg_snapshot_tp8.yaml": "checkpoint functionality is disabled in the operator configuration",
}


def test_every_listed_refusal_names_a_corpus_file() -> None:
    """The tables pin files that exist: a renamed corpus file cannot leave a stale entry."""
    if not FILES:
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    assert set(EXPECTED_REFUSALS) | set(EXPECTED_RENDER_ERRORS) <= set(FILES)


def _pinned(component: Any) -> Any:
    if component.runtime_version_override:
        return component
    return component.model_copy(update={"runtime_version_override": PINNED_RUNTIME_VERSION})


def _pin(graph: Any) -> Any:
    if isinstance(graph, DynamoGraphDeployment):
        spec = graph.spec.model_copy(update={"components": [_pinned(c) for c in graph.components]})
    else:
        spec = _pinned(graph.spec)
    return graph.model_copy(update={"spec": spec})


def load_pinned(name: str) -> list[Any]:
    """Every graph of a corpus file (v1alpha1 converted), with a runtime version where a
    component lacks one."""
    return [_pin(entry.object) for entry in load_documents(CORPUS / name).graphs]


def render_corpus_graph(name: str) -> list[dict[str, Any]]:
    """Every graph of the file rendered, in file order (a file may hold several graphs)."""
    try:
        graphs = load_pinned(name)
        if not graphs:
            pytest.skip("no DynamoGraphDeployment or DynamoComponentDeployment in the file")
        for graph in graphs:
            check(graph, PLATFORM)
    except (GraphValidationError, DynamoPulumiError) as exc:
        if isinstance(exc, RenderError):
            raise
        expected_refusal = EXPECTED_REFUSALS.get(name)
        assert expected_refusal is not None, f"unexpected refusal before rendering: {exc}"
        assert expected_refusal in str(exc), f"refused for another reason than listed: {exc}"
        pytest.skip(f"refused before rendering, as listed: {expected_refusal}")
    assert name not in EXPECTED_REFUSALS, "listed as refused but admitted; update EXPECTED_REFUSALS"
    try:
        results = [render_graph(graph, PLATFORM, "corpus") for graph in graphs]
    except RenderError as exc:
        expected = EXPECTED_RENDER_ERRORS.get(name)
        assert expected is not None, f"unexpected render error: {exc}"
        assert expected in str(exc)
        pytest.skip(f"renderer refuses, as listed: {exc}")
    assert name not in EXPECTED_RENDER_ERRORS, "listed as refused but rendered; update the list"
    return [doc for result in results for doc in (*result.components, *result.objects)]


#: file -> the only schema problem its published placeholders cause (admission does not catch it).
#: (Empty now that admission rejects the placeholder ``nodeSelector: ${HW_NODE_SELECTOR}``.)
EXPECTED_INVALID_OBJECTS: dict[str, str] = {}
CRDS = CORPUS.parent / "crds"
CRD_FILES = {
    ("nvidia.com/v1beta1", "DynamoComponentDeployment"): "nvidia.com_dynamocomponentdeployments.yaml",
    ("nvidia.com/v1alpha1", "DynamoGraphDeploymentScalingAdapter"): "nvidia.com_dynamographdeploymentscalingadapters.yaml",
}


@functools.cache
def crd_validator(api_version: str, kind: str) -> jsonschema.Draft7Validator:
    """A validator for the CRD's ``openAPIV3Schema`` of that version."""
    crd = yaml.safe_load((CRDS / CRD_FILES[(api_version, kind)]).read_text())
    version = api_version.split("/")[1]
    schema = next(v for v in crd["spec"]["versions"] if v["name"] == version)["schema"]["openAPIV3Schema"]
    return jsonschema.Draft7Validator(schema)


def pod_templates(objects: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(where, template) for every pod template of the built-in and LWS workloads."""
    found = []
    for obj in objects:
        where = f"{obj['kind']}/{obj['metadata']['name']}"
        if obj["kind"] == "Deployment":
            found.append((where, obj["spec"]["template"]))
        elif obj["kind"] == "LeaderWorkerSet":
            lwt = obj["spec"]["leaderWorkerTemplate"]
            found += [(f"{where} leader", lwt["leaderTemplate"]), (f"{where} worker", lwt["workerTemplate"])]
    return found


def selects(selector: dict[str, Any], labels: dict[str, Any]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


_CACHE: dict[str, list[dict[str, Any]] | str] = {}


@pytest.fixture(params=FILES or ["<no corpus>"])
def corpus_file(request: pytest.FixtureRequest) -> str:
    if not FILES:
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    return request.param


@pytest.fixture
def rendered(corpus_file: str) -> list[dict[str, Any]]:
    """The render of one corpus file, computed once per file (skips are remembered too)."""
    if corpus_file not in _CACHE:
        try:
            _CACHE[corpus_file] = render_corpus_graph(corpus_file)
        except pytest.skip.Exception as exc:
            _CACHE[corpus_file] = str(exc)
    cached = _CACHE[corpus_file]
    if isinstance(cached, str):
        pytest.skip(cached)
    return cached


def test_every_built_in_object_is_valid_kubernetes_1_34_strict(
    corpus_file: str, rendered: list[dict[str, Any]]
) -> None:
    problems = []
    for obj in rendered:
        if obj["apiVersion"] in BUILT_IN_API_VERSIONS:
            try:
                kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
            except kubernetes_validate.ValidationError as exc:
                problems.append(f"{obj['kind']}/{obj['metadata']['name']}: {exc.message} at {list(exc.path)}")
    assert_only_expected(corpus_file, problems)


def assert_only_expected(corpus_file: str, problems: list[str]) -> None:
    expected = EXPECTED_INVALID_OBJECTS.get(corpus_file)
    if expected is not None:
        assert problems and all(expected in p for p in problems), problems
    else:
        assert problems == []


def test_every_dynamo_resource_matches_its_crd_schema(corpus_file: str, rendered: list[dict[str, Any]]) -> None:
    problems = []
    for obj in rendered:
        key = (obj["apiVersion"], obj["kind"])
        if key in CRD_FILES:
            for error in crd_validator(*key).iter_errors(obj):
                problems.append(f"{obj['kind']}/{obj['metadata']['name']}: {error.message} at {list(error.path)}")
    assert_only_expected(corpus_file, problems)


def test_every_deployment_selector_matches_its_pod_labels(rendered: list[dict[str, Any]]) -> None:
    for obj in rendered:
        if obj["kind"] == "Deployment":
            labels = obj["spec"]["template"]["metadata"]["labels"]
            assert selects(obj["spec"]["selector"]["matchLabels"], labels), obj["metadata"]["name"]


def test_every_service_and_inference_pool_selects_some_rendered_pod(rendered: list[dict[str, Any]]) -> None:
    labels = [t["metadata"].get("labels") or {} for _, t in pod_templates(rendered)]
    for obj in rendered:
        if obj["kind"] == "Service":
            selector = obj["spec"]["selector"]
        elif obj["kind"] == "InferencePool":
            selector = obj["spec"]["selector"]["matchLabels"]
        else:
            continue
        assert any(selects(selector, pod) for pod in labels), f"{obj['kind']}/{obj['metadata']['name']} selects no pod"


def test_every_volume_mount_has_its_volume(rendered: list[dict[str, Any]]) -> None:
    for where, template in pod_templates(rendered):
        spec = template["spec"]
        volumes = {v["name"] for v in spec.get("volumes") or []}
        for container in (spec.get("initContainers") or []) + spec["containers"]:
            for mount in container.get("volumeMounts") or []:
                assert mount["name"] in volumes, f"{where} {container['name']}: no volume {mount['name']}"


def test_no_two_objects_of_one_kind_share_a_name(rendered: list[dict[str, Any]]) -> None:
    """Only the per-namespace planner/EPP RBAC may repeat (several graphs of one file render it),
    and then identically, so the graphs can co-own it."""
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    clashes = []
    for obj in rendered:
        key = (obj["apiVersion"], obj["kind"], obj["metadata"]["name"])
        if key in seen and not (is_namespace_shared(obj) and seen[key] == obj):
            clashes.append(key)
        seen.setdefault(key, obj)
    assert clashes == []


def test_every_object_lives_in_the_target_namespace(rendered: list[dict[str, Any]]) -> None:
    assert {o["metadata"].get("namespace") for o in rendered} == {"corpus"}


def test_corpus_render_is_deterministic() -> None:
    if not FILES:
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    name = "vllm-disagg.yaml" if "vllm-disagg.yaml" in FILES else FILES[0]
    first = yaml.safe_dump_all(render_corpus_graph(name))
    assert yaml.safe_dump_all(render_corpus_graph(name)) == first


@pytest.mark.parametrize("name", ["vllm-v1beta1-agg_gms.yaml", "vllm-v1beta1-agg_failover.yaml"])
def test_intra_pod_gms_corpus_graphs_render_their_claim_template_on_the_component_pathway(name: str) -> None:
    if name not in FILES:
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    objects = render_corpus_graph(name)
    templates = [o for o in objects if o["kind"] == "ResourceClaimTemplate"]
    assert templates
    claimed = {
        c["resourceClaimTemplateName"]
        for _, template in pod_templates(objects)
        for c in template["spec"].get("resourceClaims") or []
    }
    assert claimed <= {t["metadata"]["name"] for t in templates}
    for template in templates:
        kubernetes_validate.validate(template, KUBERNETES_VERSION, strict=True)
