"""The worker generation hash, translated from the operator's ``internal/dynamo/hash_test.go``
(``ComputeDGDWorkersSpecHash``, ``hash.go``).

Each Go case compares two hashes: a change that must start a new worker generation (a new
hash-named workload, a managed rollout) or one that must not (it patches the running one). The
inputs are written as a user writes them and rendered through the whole pipeline
(:func:`~dynamo_pulumi.render.render_graph`, the hash it names the workers by); v1alpha1 inputs go
through our conversion, where the Go tests' ``betaDGD`` helper also copies a service's
``labels``/``annotations`` into its pod template (see ``docs/ARCHITECTURE.md``): both paths
change the hash, which is all these cases assert.

The exclusions each case pins (``_EXCLUDED_SPEC_FIELDS`` and the worker-type filter in
:mod:`dynamo_pulumi.render.worker_hash`) are tested one field at a time, so a one-line change to
them fails here. Where we differ on purpose: a graph without worker components has no hash here
(``""``: nothing is named by it), where ``ComputeDGDWorkersSpecHash`` hashes an empty map; and
the 8 hex characters themselves are not the operator's (``docs/ARCHITECTURE.md``). Not
translated: ``TestSortEnvVars`` checks a helper of ``graph_test.go``, not the hash.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from oracle_support import COMPONENT, alpha_graph, render_yaml

from dynamo_pulumi.render.worker_hash import WORKER_HASH_LENGTH

Doc = dict[str, Any]
Mutation = Callable[[Doc], None]


def alpha(services: dict[str, Any] | None = None, namespace: str = "default") -> Doc:
    """``baseDGD``: the v1alpha1 graph ``test`` in ``default``, by default one worker service."""
    text = alpha_graph(services or {"worker": {"componentType": "worker"}}, name="test", namespace=namespace)
    return json.loads(text)


def beta(components: list[dict[str, Any]] | None = None) -> Doc:
    """A v1beta1 graph ``test`` in ``default``: one worker with a main container."""
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "test", "namespace": "default"},
        "spec": {"components": components or [{"name": "worker", "type": "worker", "podTemplate": _pod("worker:1.4.0")}]},
    }


def _pod(image: str) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "main", "image": image}]}}


def worker_hash(doc: Doc, mutate: Mutation | None = None) -> str:
    changed = copy.deepcopy(doc)
    if mutate is not None:
        mutate(changed)
    return render_yaml(json.dumps(changed), COMPONENT).worker_hash


def service(doc: Doc, name: str = "worker") -> dict[str, Any]:
    return doc["spec"]["services"][name]


def component(doc: Doc) -> dict[str, Any]:
    return doc["spec"]["components"][0]


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_Deterministic
def test_the_hash_is_deterministic_and_8_characters() -> None:
    doc = alpha({"prefill": {"componentType": "prefill", "replicas": 2}, "decode": {"componentType": "decode", "replicas": 3}})
    first, second = worker_hash(doc), worker_hash(doc)
    assert first == second
    assert len(first) == WORKER_HASH_LENGTH == 8


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_IgnoresNonWorkers
def test_a_frontend_beside_the_worker_does_not_change_the_hash() -> None:
    with_frontend = alpha({"worker": {"componentType": "worker"}, "frontend": {"componentType": "frontend"}})
    assert worker_hash(with_frontend) == worker_hash(alpha())


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_IgnoresNonWorkers (the frontend changed instead of added)
@pytest.mark.parametrize("kind", ["frontend", "planner", "epp"])
def test_a_change_to_a_non_worker_component_does_not_change_the_hash(kind: str) -> None:
    doc = alpha({"worker": {"componentType": "worker"}, "other": {"componentType": kind}})
    assert worker_hash(doc, lambda d: service(d, "other").update(envs=[{"name": "X", "value": "1"}])) == worker_hash(doc)


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_IgnoresGeneratedDCDObjectIdentity
def test_the_kubernetes_namespace_of_a_global_namespace_worker_does_not_change_the_hash() -> None:
    services = {"worker": {"componentType": "worker", "globalDynamoNamespace": True}}
    assert worker_hash(alpha(copy.deepcopy(services), namespace="other")) == worker_hash(alpha(services))


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_NoWorkers (differs on purpose: no hash, nothing named by it)
def test_a_graph_without_workers_has_no_hash_and_no_hash_in_its_names() -> None:
    result = render_yaml(json.dumps(alpha({"frontend": {"componentType": "frontend"}})), COMPONENT)
    assert result.worker_hash == ""
    assert all(not o["metadata"]["name"].endswith("-") for o in result.objects)
    assert [d["metadata"]["name"] for d in result.components] == ["test-frontend"]


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_ChangesOnPodAffectingFields
@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: service(d).update(resources={"requests": {"cpu": "2"}}), id="resources"),
        pytest.param(lambda d: service(d).update(envs=[{"name": "FOO", "value": "bar"}]), id="env"),
        pytest.param(lambda d: service(d).update(sharedMemory={"size": "1Gi"}), id="shared-memory"),
        pytest.param(lambda d: service(d).update(globalDynamoNamespace=True), id="global-dynamo-namespace"),
        pytest.param(lambda d: service(d).update(extraPodMetadata={"labels": {"rollout": "required"}}), id="extra-pod-metadata"),
    ],
)
def test_a_pod_affecting_change_of_an_alpha_service_changes_the_hash(change: Mutation) -> None:
    assert worker_hash(alpha(), change) != worker_hash(alpha())


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_ChangesOnPodAffectingFields (dgd6, podTemplate metadata)
def test_pod_template_metadata_of_a_beta_component_changes_the_hash() -> None:
    change: Mutation = lambda d: component(d)["podTemplate"].update(metadata={"annotations": {"rollout": "required"}})  # noqa: E731
    assert worker_hash(beta(), change) != worker_hash(beta())


_BACKEND = "nvidia.com/vllm-distributed-executor-backend"


def _graph_annotation(value: str) -> Mutation:
    return lambda d: d["metadata"].update(annotations={_BACKEND: value})


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_TracksPropagatedDGDObjectAnnotations
def test_a_graph_annotation_propagated_to_the_workers_changes_the_hash() -> None:
    assert worker_hash(beta(), _graph_annotation("ray")) != worker_hash(beta(), _graph_annotation("mp"))


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_IgnoresOverriddenDGDObjectAnnotations
def test_a_graph_annotation_the_component_overrides_does_not_change_the_hash() -> None:
    doc = beta()
    component(doc)["podTemplate"]["metadata"] = {"annotations": {_BACKEND: "component"}}
    assert worker_hash(doc, _graph_annotation("ray")) == worker_hash(doc, _graph_annotation("mp"))


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_TracksGeneratedDCDSpecAndMetadata
def test_the_kubernetes_namespace_changes_the_hash_through_the_dynamo_namespace() -> None:
    assert worker_hash(alpha(namespace="other")) != worker_hash(alpha())


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_IgnoresNonRolloutFields (alpha services)
@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: service(d).update(replicas=99), id="replicas"),
        pytest.param(lambda d: service(d).update(serviceName="changed"), id="service-name"),
        pytest.param(lambda d: service(d).update(ingress={"enabled": True}), id="ingress"),
        pytest.param(lambda d: service(d).update(scalingAdapter={}), id="disabled-scaling-adapter"),
    ],
)
def test_a_non_rollout_field_of_an_alpha_service_keeps_the_hash(change: Mutation) -> None:
    assert worker_hash(alpha(), change) == worker_hash(alpha())


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_IgnoresNonRolloutFields (beta components: scaleToZero,
# scalingAdapter; each field of the exclusion list alone, so that dropping one from it fails)
@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"replicas": 0, "minAvailable": 1}, id="scale-to-zero"),
        pytest.param({"replicas": 7}, id="replicas"),
        pytest.param({"minAvailable": 1}, id="min-available"),
        pytest.param({"scalingAdapter": {}}, id="scaling-adapter"),
    ],
)
def test_a_non_rollout_field_of_a_beta_component_keeps_the_hash(fields: dict[str, Any]) -> None:
    assert worker_hash(beta(), lambda d: component(d).update(fields)) == worker_hash(beta())


def _runtime(image: str, override: str) -> Doc:
    """``betaDGDWithRuntimeVersion``: one worker, its main image and ``runtimeVersionOverride``."""
    doc = beta([{"name": "worker", "type": "worker", "podTemplate": _pod(image)}])
    if override:
        component(doc)["runtimeVersionOverride"] = override
    return doc


_CUSTOM = "registry.example/runtime:custom"
_TAGGED = "nvcr.io/nvidia/ai-dynamo/runtime:v1.5.0-cuda13"


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_UsesResolvedRuntimeVersion
@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        pytest.param((_CUSTOM, ""), (_CUSTOM, "1.4.9"), True, id="omits resolved versions before 1.5"),
        pytest.param((_TAGGED, ""), (_TAGGED, "1.5.0"), True, id="canonicalizes equivalent implicit and explicit versions"),
        pytest.param((_CUSTOM, "1.4.9"), (_CUSTOM, "1.5.0"), False, id="changes at the 1.5 boundary"),
        pytest.param((_CUSTOM, "1.5.0"), (_CUSTOM, "1.5.1"), False, id="tracks override changes after 1.5"),
    ],
)
def test_the_resolved_runtime_version_counts_from_1_5(left: tuple[str, str], right: tuple[str, str], equal: bool) -> None:
    assert (worker_hash(_runtime(*left)) == worker_hash(_runtime(*right))) is equal


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_TracksPreservedAlphaResourceMetadata
@pytest.mark.parametrize("field", ["annotations", "labels"])
def test_preserved_alpha_service_metadata_changes_the_hash(field: str) -> None:
    assert worker_hash(alpha(), lambda d: service(d).update({field: {"foo": "bar"}})) != worker_hash(alpha())


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_EnvOrderMatters
def test_the_order_of_env_vars_matters() -> None:
    def envs(*names: str) -> Doc:
        return alpha({"worker": {"componentType": "worker", "envs": [{"name": n, "value": n.lower()} for n in names]}})

    assert worker_hash(envs("B", "A")) != worker_hash(envs("A", "B"))


# from hash_test.go: TestComputeBetaDGDWorkersSpecHash_AllWorkerTypes (the Go case changes "p"; each type here)
@pytest.mark.parametrize("changed", ["w", "p", "d"])
def test_a_change_to_any_worker_type_changes_the_hash(changed: str) -> None:
    doc = alpha({"w": {"componentType": "worker"}, "p": {"componentType": "prefill"}, "d": {"componentType": "decode"}})
    assert worker_hash(doc, lambda d: service(d, changed).update(envs=[{"name": "X", "value": "1"}])) != worker_hash(doc)

