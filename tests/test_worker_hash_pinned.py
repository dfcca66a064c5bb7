"""The worker hash of fixed graphs, pinned: a new value renames every worker of every stack.

The hash is part of each worker workload's name (``<graph>-<component>-<hash>``) and of its
runtime namespace. If a release of dynamo-pulumi hashes the same graph differently, the next
``pulumi up`` after upgrading replaces every worker Deployment, LeaderWorkerSet and PodCliqueSet
clique of every stack, with no change by the user: a rollout of every model at once. The operator
guards its own hash the same way (``hash.go`` leaves runtime versions before 1.5 out "to preserve
hashes", ``worker-hash.md`` avoids "an operator-upgrade-induced rollout"). So the serialisation
(key names, separators, key order, Go's HTML escaping, non-ASCII kept as UTF-8, which fields and
metadata take part) is pinned here on graphs that reach each part of it. Change a value only on
purpose, and say in the release notes that upgrading rolls every worker.

What a change must or must not do to the hash is in ``test_oracle_worker_hash.py`` (from the
operator's ``hash_test.go``) and ``test_worker_hash.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph
from dynamo_pulumi.render.worker_hash import _ordered_spec


def _pod(image: str, **metadata: Any) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": {"containers": [{"name": "main", "image": image}]}}
    if metadata:
        template["metadata"] = metadata
    return template


def _beta(components: list[dict[str, Any]], annotations: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "pinned", "namespace": "team-a"}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": metadata,
            "spec": {"components": components}}


GRAPHS: dict[str, dict[str, Any]] = {
    # labels, the spec in Go field order, a non-worker left out
    "frontend-and-worker": _beta([
        {"name": "Frontend", "type": "frontend", "podTemplate": _pod("frontend:1.4.0")},
        {"name": "VllmWorker", "type": "worker", "replicas": 2, "podTemplate": _pod("worker:1.4.0")},
    ]),
    # annotations (the graph's propagated one, a pod template's with HTML characters and non-ASCII)
    "annotations": _beta(
        [{"name": "worker", "type": "worker",
          "podTemplate": _pod("worker:1.4.0", annotations={"note": "<a & b> café"}, labels={"team": "a"})}],
        annotations={"nvidia.com/vllm-distributed-executor-backend": "ray"},
    ),
    # a runtime version from 1.5 on takes part under its own key
    "runtime-version": _beta([{"name": "worker", "type": "worker", "runtimeVersionOverride": "1.5.1",
                               "podTemplate": _pod("registry.example/runtime:custom")}]),
    # two worker types, excluded fields set, an explicit false and a true
    "disaggregated": _beta([
        {"name": "prefill", "type": "prefill", "replicas": 3, "minAvailable": 1, "scalingAdapter": {},
         "globalDynamoNamespace": False, "podTemplate": _pod("worker:1.4.0")},
        {"name": "decode", "type": "decode", "globalDynamoNamespace": True, "sharedMemorySize": "2Gi",
         "podTemplate": _pod("worker:1.4.0")},
    ]),
    # a v1alpha1 graph: the converted service's preserved labels and annotations
    "v1alpha1": {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
                 "metadata": {"name": "pinned", "namespace": "team-a"},
                 "spec": {"services": {"worker": {"componentType": "worker", "labels": {"a": "1"},
                                                  "annotations": {"b": "2"},
                                                  "extraPodSpec": {"mainContainer": {"image": "worker:1.4.0"}}}}}},
}

PINNED = {
    "frontend-and-worker": "1a9fcec5",
    "annotations": "7d94a72f",
    "runtime-version": "d39cabe9",
    "disaggregated": "7f10a1fc",
    "v1alpha1": "c0cdf449",
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_the_worker_hash_of_a_fixed_graph_does_not_change_between_releases(name: str) -> None:
    assert worker_hash_of(GRAPHS[name]) == PINNED[name]


def worker_hash_of(doc: dict[str, Any]) -> str:
    """The hash the rendering names the workers by (after defaulting, as deployed)."""
    return render_graph(load_graph(json.loads(json.dumps(doc))), Platform(), "team-a").worker_hash


def test_a_spec_field_the_field_order_does_not_know_yet_still_takes_part() -> None:
    """A field added to the API before ``DCD_SPEC_FIELD_ORDER`` lists it is hashed after the
    known ones, not dropped: dropping it would let a pod-affecting change keep the generation."""
    ordered = _ordered_spec({"newField": {"b": 1, "a": 2}, "type": "worker", "name": "w", "replicas": 3})
    assert list(ordered) == ["name", "type", "newField"]
    assert list(ordered["newField"]) == ["a", "b"]
