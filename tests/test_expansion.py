"""The predicted expansion: one entry per object with a digest over its canonical JSON, stable
under key order and render order, and changing exactly when an object changes."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from dynamo_pulumi.floor.expansion import (
    DIGEST_LENGTH,
    canonical_json,
    expansion_digest,
    expansion_summary,
    object_digest,
    predicted_objects,
)


def _deployment(name: str, image: str = "vllm:1.0.0") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": image}]}}},
    }


def _service(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": {"ports": [{"port": 8000}]}}


def test_each_object_gives_api_version_kind_name_and_a_digest():
    [entry] = expansion_summary([_service("g-frontend")])
    assert set(entry) == {"apiVersion", "kind", "name", "digest"}
    assert (entry["apiVersion"], entry["kind"], entry["name"]) == ("v1", "Service", "g-frontend")
    assert len(entry["digest"]) == DIGEST_LENGTH and int(entry["digest"], 16) >= 0


def test_digest_ignores_key_order():
    obj = _deployment("g-decode")
    reordered = {key: obj[key] for key in reversed(list(obj))}
    reordered["metadata"] = {"namespace": "ns", "name": "g-decode"}
    assert object_digest(obj) == object_digest(reordered)


def test_a_changed_field_changes_only_that_objects_digest():
    before = expansion_summary([_deployment("g-decode"), _service("g-decode")])
    after = expansion_summary([_deployment("g-decode", image="vllm:1.1.0"), _service("g-decode")])
    changed = [b["kind"] for b, a in zip(before, after, strict=True) if b["digest"] != a["digest"]]
    assert changed == ["Deployment"]


def test_summary_order_does_not_depend_on_render_order():
    objects = [_service("b"), _deployment("a"), _service("a")]
    assert expansion_summary(objects) == expansion_summary(list(reversed(objects)))
    assert [(e["kind"], e["name"]) for e in expansion_summary(objects)] == [
        ("Deployment", "a"), ("Service", "a"), ("Service", "b")
    ]


def test_predicted_objects_follow_the_summary_order_and_are_unchanged():
    objects = [_service("b"), _deployment("a")]
    predicted = predicted_objects(objects)
    assert [o["metadata"]["name"] for o in predicted] == ["a", "b"]
    assert predicted[0] == _deployment("a")


def test_whole_expansion_digest_changes_when_an_object_is_added():
    one = expansion_summary([_service("a")])
    two = expansion_summary([_service("a"), _service("b")])
    assert expansion_digest(one) != expansion_digest(two)
    assert expansion_digest(one) == expansion_digest(copy.deepcopy(one))


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))
json_tree = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=12,
)


@given(json_tree)
def test_canonical_json_is_a_function_of_the_value_alone(value):
    assert canonical_json(value) == canonical_json(copy.deepcopy(value))
    assert object_digest({"v": value}) == object_digest({"v": copy.deepcopy(value)})
