"""The worker generation hash (rendering-core 2.11, ERRATA 2.2-2.4).

These mirror the behaviours the operator's own ``hash_test.go`` asserts: what starts a new worker
generation and what does not. (Byte-identity with the operator's 8 hex characters is not claimed;
see :mod:`dynamo_pulumi.render.worker_hash`.)
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.render.worker_hash import compute_worker_hash

BASE: dict[str, Any] = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g"},
    "spec": {
        "components": [
            {"name": "Frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "f:1"}]}}},
            {"name": "worker", "type": "worker", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "w:1"}]}}},
        ]
    },
}


def worker_hash(mutate: Any = None, namespace: str = "ns") -> str:
    doc = copy.deepcopy(BASE)
    if mutate is not None:
        mutate(doc)
    return compute_worker_hash(DynamoGraphDeployment.model_validate(doc), namespace)


def worker(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["spec"]["components"][1]


def main(doc: dict[str, Any]) -> dict[str, Any]:
    return worker(doc)["podTemplate"]["spec"]["containers"][0]


def test_hash_is_8_lowercase_hex_and_deterministic() -> None:
    value = worker_hash()
    assert len(value) == 8
    assert int(value, 16) >= 0
    assert value == value.lower() == worker_hash()


def test_graph_without_worker_components_has_no_hash() -> None:
    assert worker_hash(lambda d: d["spec"]["components"].pop(1)) == ""


def test_non_worker_components_do_not_change_the_hash() -> None:
    assert worker_hash() == worker_hash(lambda d: d["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0].update(image="f:2"))


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: main(d).update(resources={"requests": {"cpu": "2"}}), id="resources"),
        pytest.param(lambda d: main(d).update(env=[{"name": "FOO", "value": "bar"}]), id="env"),
        pytest.param(lambda d: worker(d).update(sharedMemorySize="1Gi"), id="shared-memory"),
        pytest.param(lambda d: worker(d).update(globalDynamoNamespace=True), id="global-namespace"),
        pytest.param(lambda d: worker(d)["podTemplate"].update(metadata={"labels": {"rollout": "required"}}), id="pod-labels"),
        pytest.param(lambda d: worker(d)["podTemplate"].update(metadata={"annotations": {"r": "x"}}), id="pod-annotations"),
        pytest.param(lambda d: d["spec"].update(env=[{"name": "G", "value": "1"}]), id="graph-env"),
        pytest.param(lambda d: d["spec"].update(labels={"team": "a"}), id="graph-spec-labels"),
    ],
)
def test_pod_affecting_changes_start_a_new_generation(change: Any) -> None:
    assert worker_hash(change) != worker_hash()


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: worker(d).update(replicas=99), id="replicas"),
        pytest.param(lambda d: worker(d).update(replicas=0), id="scale-to-zero"),
        pytest.param(lambda d: worker(d).update(scalingAdapter={}), id="scaling-adapter"),
    ],
)
def test_non_rollout_fields_keep_the_generation(change: Any) -> None:
    assert worker_hash(change) == worker_hash()


def test_namespace_changes_the_hash_through_the_dynamo_namespace_label() -> None:
    assert worker_hash(namespace="other") != worker_hash()


def test_propagated_graph_annotation_changes_the_hash() -> None:
    def backend(value: str) -> Any:
        return lambda d: d["metadata"].update(annotations={"nvidia.com/vllm-distributed-executor-backend": value})

    assert worker_hash(backend("ray")) != worker_hash(backend("mp"))


def test_graph_annotation_overridden_by_the_component_does_not_change_the_hash() -> None:
    def backend(value: str) -> Any:
        def mutate(d: dict[str, Any]) -> None:
            d["metadata"]["annotations"] = {"nvidia.com/vllm-distributed-executor-backend": value}
            worker(d)["podTemplate"]["metadata"] = {
                "annotations": {"nvidia.com/vllm-distributed-executor-backend": "component"}
            }

        return mutate

    assert worker_hash(backend("ray")) == worker_hash(backend("mp"))


def test_env_order_matters() -> None:
    ab = worker_hash(lambda d: main(d).update(env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]))
    ba = worker_hash(lambda d: main(d).update(env=[{"name": "B", "value": "2"}, {"name": "A", "value": "1"}]))
    assert ab != ba


def _runtime(image: str, override: str | None) -> Any:
    def mutate(d: dict[str, Any]) -> None:
        main(d)["image"] = image
        if override is not None:
            worker(d)["runtimeVersionOverride"] = override

    return mutate


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        (("registry.example/runtime:custom", None), ("registry.example/runtime:custom", "1.4.9"), True),
        (("nvcr.io/x/runtime:v1.5.0-cuda13", None), ("nvcr.io/x/runtime:v1.5.0-cuda13", "1.5.0"), True),
        (("registry.example/runtime:custom", "1.4.9"), ("registry.example/runtime:custom", "1.5.0"), False),
        (("registry.example/runtime:custom", "1.5.0"), ("registry.example/runtime:custom", "1.5.1"), False),
    ],
    ids=["omitted-before-1.5", "implicit-equals-explicit", "changes-at-1.5", "tracks-override-after-1.5"],
)
def test_resolved_runtime_version_counts_from_1_5(left: tuple, right: tuple, equal: bool) -> None:
    assert (worker_hash(_runtime(*left)) == worker_hash(_runtime(*right))) is equal


def test_every_worker_type_counts() -> None:
    def with_prefill(env: list[dict[str, str]]) -> Any:
        def mutate(d: dict[str, Any]) -> None:
            prefill = copy.deepcopy(worker(d)) | {"name": "prefill", "type": "prefill"}
            prefill["podTemplate"]["spec"]["containers"][0]["env"] = env
            d["spec"]["components"].append(prefill)

        return mutate

    assert worker_hash(with_prefill([])) != worker_hash(with_prefill([{"name": "X", "value": "1"}]))


def test_unresolved_leaves_hash_as_a_fixed_placeholder() -> None:
    class Unresolved:
        pass

    first = worker_hash(lambda d: main(d).update(image=Unresolved()))
    assert first == worker_hash(lambda d: main(d).update(image=Unresolved()))


def test_a_boolean_written_false_hashes_as_if_absent() -> None:
    """``hash.go`` marshals the spec with ``omitempty``: a field written as its zero value is left
    out, so writing a default out explicitly starts no new generation."""
    assert worker_hash(lambda d: worker(d).update(globalDynamoNamespace=False)) == worker_hash()
