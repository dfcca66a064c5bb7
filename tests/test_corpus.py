"""Every published graph in the conformance corpus loads, round-trips, and validates exactly as
expected: valid ones without errors, the others with the listed errors (and why).

The corpus lives beside the repository (``../shared/conformance/corpus``); these tests skip when
it is absent. Validation runs against a platform with Grove, LWS and checkpointing enabled, as
the published examples assume.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pytest

from dynamo_pulumi.api.v1beta1 import API_VERSION, KINDS, ComponentType
from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.loading.documents import LoadedObject, load_documents, parse_yaml, validate_loaded
from dynamo_pulumi.platform import Platform, load_platform

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
CORPUS_MISSING = "../shared/conformance/corpus is not present"
FILES = sorted(p.name for p in CORPUS.glob("*.yaml")) if CORPUS.is_dir() else []
#: What the per-file tests run over: every corpus file, or, without the corpus, one visibly
#: skipped case (an empty parametrization would collect nothing and pass silently).
CASES: list[Any] = FILES or [pytest.param("<no corpus>", marks=pytest.mark.skip(reason=CORPUS_MISSING))]
OVERRIDE_MESSAGE = (
    "Required value: is required when the specified main container image has no parseable semantic-version tag"
)


def override_required(*components: int | str) -> list[str]:
    """The runtime-version error for each component: by index (v1beta1) or service key (v1alpha1)."""
    out = []
    for comp in components:
        base = f"spec.components[{comp}]" if isinstance(comp, int) else f"spec.services[{comp}]"
        out.append(f"{base}.runtimeVersionOverride: {OVERRIDE_MESSAGE}")
    return out


#: (file, object name) -> (why the published manifest is not admissible as is, exact errors).
EXPECTED_ERRORS: dict[tuple[str, str], tuple[str, list[str]]] = {
    ('components-profiler-templates-dgd-vllm-disagg.yaml', 'vllm-disagg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1, 2),
    ),
    ('deploy-operator-samples-v1alpha1_dynamocomponentdeployment.yaml', 'dynamocomponentdeployment-sample'): (
        'kubebuilder sample with an empty spec: no main container image',
        [
            'spec.extraPodSpec.mainContainer.image: Required value: is required',
        ],
    ),
    ('deploy-operator-samples-v1alpha1_dynamographdeployment.yaml', 'dynamographdeployment-sample'): (
        'kubebuilder sample with an empty spec: no components',
        [
            'spec.components: Required value: must have at least one component',
        ],
    ),
    ('deploy-utils-tests-fixtures-v1alpha1-disagg_planner.yaml', 'vllm-disagg-planner'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required('Frontend', 'Planner', 'VllmDecodeWorker', 'VllmPrefillWorker'),
    ),
    ('docs-autoscaling-scalingadapter.yaml', 'sglang-agg'): (
        'docs snippet: "podTemplate omitted for brevity", so no main container',
        [
            'spec.components[0].podTemplate.spec.containers: Required value: is required',
            'spec.components[1].podTemplate.spec.containers: Required value: is required',
        ],
    ),
    ('docs-lws-multinode.yaml', 'qwen3-multinode'): (
        'docs snippet: the multinode service has no componentType (multinode needs a worker type) and no image',
        [
            'spec.components[0].multinode: Forbidden: multinode is supported only for worker, prefill, or decode components',
            'spec.services[backend].extraPodSpec.mainContainer.image: Required value: is required',
        ],
    ),
    ('docs-topology-aware-scheduling-ex1.yaml', 'my-llm'): (
        'image "my-image" has no tag, and ClusterTopologyBinding "my-cluster-topology" is not among the platform facts',
        [
            *override_required('Frontend'),
            *override_required('VllmWorker'),
            'spec.topologyConstraint.clusterTopologyName: Invalid value: "my-cluster-topology": references a ClusterTopologyBinding resource that was not found',
        ],
    ),
    ('docs-topology-aware-scheduling-ex2.yaml', 'my-llm'): (
        'image "my-image" has no tag, and ClusterTopologyBinding "my-cluster-topology" is not among the platform facts',
        [
            *override_required('Frontend'),
            *override_required('VllmWorker'),
            'spec.topologyConstraint.clusterTopologyName: Invalid value: "my-cluster-topology": references a ClusterTopologyBinding resource that was not found',
        ],
    ),
    ('docs-topology-aware-scheduling-ex3.yaml', 'my-llm'): (
        'image "my-image" has no tag, and ClusterTopologyBinding "my-cluster-topology" is not among the platform facts',
        [
            *override_required('Frontend'),
            *override_required('VllmWorker'),
            'spec.topologyConstraint.clusterTopologyName: Invalid value: "my-cluster-topology": references a ClusterTopologyBinding resource that was not found',
        ],
    ),
    ('examples-custom_backend-hello_world.yaml', 'hello-world'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('examples-deployments-GKE-sglang-disagg.yaml', 'sglang-disagg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1, 2),
    ),
    ('examples-diffusers-agg.yaml', 'fastvideo-agg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('examples-global_planner-global-planner-gpu-budget.yaml', 'gp-ctrl'): (
        'unexpanded ${...} placeholder in the image',
        override_required(0),
    ),
    ('examples-global_planner-global-planner-gpu-budget.yaml', 'model-a'): (
        'unexpanded ${...} placeholder in the image',
        override_required(0, 1, 2, 3),
    ),
    ('examples-global_planner-global-planner-gpu-budget.yaml', 'model-b'): (
        'unexpanded ${...} placeholder in the image',
        override_required(0, 1, 2, 3),
    ),
    ('examples-power-aware-budget-dgd.yaml', 'power-aware-example'): (
        'no images, and a GPU power-limit annotation without a GPU-product nodeSelector',
        [
            'spec.components[0].podTemplate.spec.containers[0].image: Required value: is required',
            'spec.components[1].podTemplate.spec.nodeSelector[nvidia.com/gpu.product]: Required value: is required when annotation "dynamo.nvidia.com/gpu-power-limit" is set, so the requested power limit can be validated against the selected GPU product',
            'spec.components[1].podTemplate.spec.containers[0].image: Required value: is required',
            'spec.components[2].podTemplate.spec.nodeSelector[nvidia.com/gpu.product]: Required value: is required when annotation "dynamo.nvidia.com/gpu-power-limit" is set, so the requested power limit can be validated against the selected GPU product',
            'spec.components[2].podTemplate.spec.containers[0].image: Required value: is required',
        ],
    ),
    ('mocker-agg.yaml', 'mocker-agg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('mocker-disagg.yaml', 'mocker-disagg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1, 2),
    ),
    ('recipes-deepseek-r1-trtllm-disagg-wide_ep-gb200-deploy.yaml', 'trtllm-disagg-multinode'): (
        'tag "0.8.1.post2" is not a semantic version',
        override_required('Frontend', 'decode', 'prefill'),
    ),
    ('recipes-llama-3-70b-vllm-disagg-multi-node-deploy.yaml', 'llama3-70b-disagg-mn'): (
        'unexpanded ${...} placeholder in the image',
        override_required('Frontend', 'VllmDecodeWorker', 'VllmPrefillWorker'),
    ),
    ('sglang-disagg-multinode.yaml', 'sglang-disagg-multinode'): (
        'unexpanded ${...} placeholder in the image',
        override_required('Frontend', 'decode', 'prefill'),
    ),
    ('sglang-disagg.yaml', 'sglang-disagg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1, 2),
    ),
    ('trtllm-agg.yaml', 'trtllm-agg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('trtllm-agg_failover_eagle.yaml', 'trtllm-agg-failover-eagle'): (
        'image "REPLACE_WITH_TRTLLM_RUNTIME_TAG" is a placeholder without a tag',
        override_required('Frontend', 'TRTLLMWorker'),
    ),
    ('trtllm-disagg-multinode.yaml', 'trtllm-disagg-tp8'): (
        'unexpanded ${...} placeholder in the image',
        override_required('Frontend', 'decode', 'prefill'),
    ),
    ('trtllm-disagg_planner-main.yaml', 'trtllm-disagg-planner'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1, 2, 3),
    ),
    ('vllm-agg.yaml', 'vllm-agg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required('Frontend', 'worker'),
    ),
    ('vllm-agg_router.yaml', 'vllm-agg-router'): (
        'unexpanded ${...} placeholder in the image',
        override_required('Frontend', 'VllmDecodeWorker'),
    ),
    ('vllm-disagg-main.yaml', 'vllm-disagg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1, 2),
    ),
    ('vllm-disagg-multinode.yaml', 'vllm-disagg'): (
        'unexpanded ${...} placeholder in the image',
        override_required('Frontend', 'decode', 'prefill'),
    ),
    ('vllm-disagg.yaml', 'vllm-disagg'): (
        'unexpanded ${...} placeholder in the image',
        override_required('Frontend', 'VllmDecodeWorker', 'VllmPrefillWorker'),
    ),
    ('vllm-disagg_planner.yaml', 'vllm-disagg-planner'): (
        'unexpanded ${...} placeholder in the image',
        override_required('Frontend', 'Planner', 'VllmDecodeWorker', 'VllmPrefillWorker'),
    ),
    ('vllm-gaie-agg.yaml', 'qwen'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('vllm-gaie-disagg.yaml', 'qwen'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1, 2),
    ),
    ('vllm-gaie-v1beta1-agg.yaml', 'qwen'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('vllm-gms-failover.yaml', 'llm-serving-mn'): (
        'tag "latest" is not a semantic version',
        override_required(0, 1),
    ),
    ('vllm-lora-agg_lora.yaml', 'vllm-agg-lora'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required('Frontend', 'worker'),
    ),
    ('vllm-lora-multimodal-agg_qwen_lora.yaml', 'agg-qwen-multimodal-lora'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('vllm-sidecar_agg.yaml', 'vllm-sidecar-agg'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('vllm-v1beta1-agg_snapshot_tp8.yaml', 'vllm-agg-snapshot-tp8'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1),
    ),
    ('vllm-xpu-disagg_planner_xpu_dra.yaml', 'vllm-disagg-planner-xpu'): (
        'placeholder tag "my-tag" is not a semantic version',
        override_required(0, 1, 2, 3),
    ),
}


#: file -> (why the API server refuses the published manifest at its schema, exact errors).
SCHEMA_ERRORS: dict[str, tuple[str, list[str]]] = {
    "recipes-qwen3.6-35b-dynamo-fd-ec.yaml": (
        "unexpanded ${HW_NODE_SELECTOR} / ${HW_TOLERATIONS} placeholders stand where a map and a list belong",
        [
            f'spec.services.{svc}.extraPodSpec.{field}: Invalid value: "string": '
            f'spec.services.{svc}.extraPodSpec.{field} in body must be of type {kind}: "string"'
            for svc in ("Frontend", "VllmWorker")
            for field, kind in (("nodeSelector", "object"), ("tolerations", "array"))
        ],
    ),
    # Recorded from the operator (tests/fixtures/operator_recordings/corpus-sglang-agg-epp.yaml):
    # the webhook's round trip through the Go type writes the missing weight as null.
    "sglang-agg_epp.yaml": (
        "a v1alpha1 scheduling-profile plugin without weight: the API server refuses the webhook's weight: null",
        [
            'spec.services.epp.eppConfig.config.schedulingProfiles[0].plugins[1].weight: Invalid value: "null": '
            'spec.services.epp.eppConfig.config.schedulingProfiles[0].plugins[1].weight in body must be of type '
            'integer: "null"'
        ],
    ),
}


@pytest.fixture(scope="module")
def platform() -> Platform:
    return load_platform(
        {"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}, "checkpoint": {"enabled": True}}
    )


def corpus_file(name: str) -> Path:
    if not CORPUS.is_dir():
        pytest.skip(CORPUS_MISSING)
    return CORPUS / name


def loaded_objects(name: str) -> list[LoadedObject]:
    if name in SCHEMA_ERRORS:
        pytest.skip("refused at its schema (see SCHEMA_ERRORS)")
    return load_documents(corpus_file(name)).loaded


def dynamo_documents(name: str) -> list[dict[str, Any]]:
    docs = parse_yaml(corpus_file(name).read_text())
    return [d for d in docs if d.get("kind") in KINDS and str(d.get("apiVersion", "")).startswith("nvidia.com/")]


def test_corpus_is_present_with_70_graphs() -> None:
    if not CORPUS.is_dir():
        pytest.skip(CORPUS_MISSING)
    assert len(FILES) == 70


@pytest.mark.parametrize("name", CASES)
def test_every_corpus_graph_loads_or_fails_its_schema_as_expected(name: str) -> None:
    if name in SCHEMA_ERRORS:
        with pytest.raises(GraphValidationError) as info:
            load_documents(corpus_file(name))
        assert [str(e) for e in info.value.errors] == SCHEMA_ERRORS[name][1]
        return
    result = load_documents(corpus_file(name))
    assert len(result.loaded) == len(dynamo_documents(name)) >= 1
    assert all(lo.object.api_version == API_VERSION for lo in result.loaded)


@pytest.mark.parametrize("name", CASES)
def test_companion_documents_are_returned_not_dropped(name: str) -> None:
    if name in SCHEMA_ERRORS:
        pytest.skip("refused at its schema (see SCHEMA_ERRORS)")
    result = load_documents(corpus_file(name))
    all_docs = parse_yaml(corpus_file(name).read_text())
    assert len(result.loaded) + len(result.others) == len(all_docs)


@pytest.mark.parametrize("name", CASES)
def test_v1beta1_graph_dumps_exactly_as_loaded(name: str) -> None:
    beta_docs = [d for d in dynamo_documents(name) if d["apiVersion"] == API_VERSION]
    if not beta_docs:
        pytest.skip("v1alpha1 file: converted, not round-tripped")
    dumped = [lo.object.to_wire() for lo in loaded_objects(name) if not lo.is_alpha]
    assert dumped == beta_docs


def types_outside_beta_enum(wire: dict[str, Any]) -> list[str]:
    """Paths of alpha component types the v1beta1 schema would refuse on a re-apply."""
    allowed = typing.get_args(ComponentType)
    return [
        f"spec.components[{i}].type"
        for i, comp in enumerate(wire.get("spec", {}).get("components") or [])
        if comp.get("type") is not None and comp["type"] not in allowed
    ]


@pytest.mark.parametrize("name", CASES)
def test_converted_graph_reloads_to_the_same_object(name: str) -> None:
    for lo in loaded_objects(name):
        wire = lo.object.to_wire()
        refused = types_outside_beta_enum(wire)
        if refused:
            # componentType "main" is legal in v1alpha1 but not in the v1beta1 enum.
            with pytest.raises(GraphValidationError) as info:
                load_documents(wire)
            assert [e.path for e in info.value.errors] == refused
            continue
        again = load_documents(wire).loaded[0].object
        assert again.to_wire() == wire


@pytest.mark.parametrize("name", CASES)
def test_corpus_graph_validates_as_expected(name: str, platform: Platform) -> None:
    for lo in loaded_objects(name):
        _, expected = EXPECTED_ERRORS.get((name, lo.object.name), ("valid", []))
        errors = [str(e) for e in validate_loaded(lo, platform).errors]
        assert errors == expected


def test_expected_error_table_names_only_corpus_objects() -> None:
    if not CORPUS.is_dir():
        pytest.skip(CORPUS_MISSING)
    known = {(name, lo.object.name) for name in FILES if name not in SCHEMA_ERRORS for lo in loaded_objects(name)}
    assert set(EXPECTED_ERRORS) <= known
    assert all(reason for reason, _ in EXPECTED_ERRORS.values())
