"""The offline diff: per object the action ``pulumi up`` would take, and why it replaces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from resources_fixtures import GRAPH, NS, small_plan

from dynamo_pulumi.diff.diffing import MISSING, diff_plans, field_changes, flatten, path_matches
from dynamo_pulumi.program.graph_program import plan

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
GROVE = {"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}}
LWS = {"orchestrators": {"lws": {"enabled": True}}}


# --- path rules -------------------------------------------------------------------------------------


def test_flatten_uses_pulumi_property_paths():
    flat = flatten({"metadata": {"labels": {"nvidia.com/x": "1"}}, "spec": {"ports": [{"port": 80}], "e": {}}})
    assert flat == {'metadata.labels["nvidia.com/x"]': "1", "spec.ports[0].port": 80, "spec.e": {}}


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("spec.template.cliques[*].spec.minAvailable", "spec.template.cliques[3].spec.minAvailable", True),
        ("spec.template.cliques[*].spec.minAvailable", "spec.template.cliques[3].spec.replicas", False),
        ("spec", "spec.spec.devices.requests[0].name", True),
        ("spec.selector", 'spec.selector.matchLabels["a"]', True),
        ("spec.selector", "spec.replicas", False),
    ],
)
def test_replace_paths_match_by_prefix_and_wildcard(pattern, path, expected):
    assert path_matches(pattern, path) is expected


def test_field_changes_report_added_removed_and_changed_leaves():
    changes = field_changes({"a": 1, "b": {"c": 2}}, {"a": 2, "d": [1]})
    assert [(c.path, c.old, c.new) for c in changes] == [
        ("a", 1, 2),
        ("b.c", 2, MISSING),
        ("d[0]", MISSING, 1),
    ]


def test_a_number_changed_to_a_string_is_a_change():
    assert field_changes({"a": 1}, {"a": "1"})


# --- hand-written plans -----------------------------------------------------------------------------


def test_identical_plans_are_all_same():
    diff = diff_plans(small_plan(), small_plan())
    assert {c.action for c in diff.changes} == {"same"}


def test_worker_hash_change_replaces_worker_objects_create_before_delete():
    diff = diff_plans(small_plan(), small_plan(image="nvcr.io/dynamo/vllm:1.0.1", worker_hash="99999999"))
    change = diff.find(":Deployment", f"{NS}/{GRAPH}-decode")
    assert change.action == "replace"
    assert change.delete_before_replace is False
    assert "metadata.name" in change.reasons[0]
    assert diff.find(":Deployment", f"{NS}/{GRAPH}-frontend").action == "same"


def test_replica_change_without_scaling_adapter_is_an_update():
    diff = diff_plans(small_plan(), small_plan(decode_replicas=5))
    change = diff.find(":Deployment", f"{NS}/{GRAPH}-decode")
    assert change.action == "update"
    assert [f.path for f in change.fields] == ["spec.replicas"]


def test_replica_change_with_scaling_adapter_is_ignored():
    diff = diff_plans(small_plan(scaling_adapter=True), small_plan(scaling_adapter=True, decode_replicas=5))
    assert diff.find(":Deployment", f"{NS}/{GRAPH}-decode").action == "same"


# --- corpus graphs ----------------------------------------------------------------------------------


def _corpus(name: str) -> dict[str, Any]:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    return _virtual_planner(yaml.safe_load(path.read_text()))


def _virtual_planner(doc: dict[str, Any]) -> dict[str, Any]:
    """The graph with its planner on the virtual connector: render mode refuses a planner that
    scales through the Kubernetes API (that needs operator mode), and these tests diff renders."""
    for component in doc["spec"]["components"]:
        if component.get("type") != "planner":
            continue
        for container in component["podTemplate"]["spec"]["containers"]:
            args = container.get("args") or []
            for i, arg in enumerate(args):
                if i and args[i - 1] == "--config":
                    args[i] = json.dumps(json.loads(arg) | {"environment": "virtual"})
    return doc


def _diff(tmp_path: Path, old: dict, new: dict, platform: dict | None = None):
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(old))
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new))
    return diff_plans(
        plan(tmp_path / "old.yaml", "ns1", platform), plan(tmp_path / "new.yaml", "ns1", platform)
    )


def _component(doc: dict, name: str) -> dict:
    return next(c for c in doc["spec"]["components"] if c["name"] == name)


def _actions(diff) -> dict[tuple[str, str], str]:
    return {(c.type.rsplit(":", 1)[-1], c.pulumi_name): c.action for c in diff.changes}


def test_changed_worker_image_replaces_every_worker_workload_and_service_only(tmp_path):
    old = _corpus("vllm-v1beta1-disagg_planner.yaml")
    new = yaml.safe_load(yaml.safe_dump(old))
    _component(new, "VllmDecodeWorker")["podTemplate"]["spec"]["containers"][0]["image"] += "-patched"
    actions = _actions(_diff(tmp_path, old, new))
    g = "ns1/vllm-disagg-planner"
    # The worker hash covers every worker-class component, so both workers get a new revision.
    for worker in ("vllmdecodeworker", "vllmprefillworker"):
        assert actions[("Deployment", f"{g}-{worker}")] == "replace"
        assert actions[("Service", f"{g}-{worker}")] == "replace"
        assert actions[("DynamoComponentDeployment", f"{g}-{worker}")] == "same"
    others = {k: v for k, v in actions.items() if "worker" not in k[1]}
    assert set(others.values()) == {"same"}, others


def test_changed_replica_count_updates_only_that_workload(tmp_path):
    old = _corpus("vllm-v1beta1-disagg_planner.yaml")
    new = yaml.safe_load(yaml.safe_dump(old))
    _component(new, "VllmDecodeWorker")["replicas"] = 3
    diff = _diff(tmp_path, old, new)
    changed = {(c.type.rsplit(":", 1)[-1], c.pulumi_name): c for c in diff.changes if c.action != "same"}
    assert list(changed) == [("Deployment", "ns1/vllm-disagg-planner-vllmdecodeworker")]
    change = changed[("Deployment", "ns1/vllm-disagg-planner-vllmdecodeworker")]
    assert change.action == "update"
    assert [f.path for f in change.fields] == ["spec.replicas"]


def _more_nodes(doc: dict) -> dict:
    new = yaml.safe_load(yaml.safe_dump(doc))
    _component(new, "decode")["multinode"]["nodeCount"] += 1
    return new


def _changed(diff) -> dict[tuple[str, str], str]:
    return {k: v for k, v in _actions(diff).items() if v != "same"}


def test_changed_node_count_on_grove_replaces_the_podcliqueset_deleting_first(tmp_path):
    old = _corpus("vllm-v1beta1-disagg-multinode.yaml")
    diff = _diff(tmp_path, old, _more_nodes(old), GROVE)
    pcs = diff.find(":PodCliqueSet", "ns1/vllm-disagg")
    assert pcs.delete_before_replace is True
    assert "minAvailable" in pcs.reasons[0]
    # Every other object is unchanged, except the worker Services whose hash label moves.
    assert _changed(diff) == {
        ("PodCliqueSet", "ns1/vllm-disagg"): "replace",
        ("Service", "ns1/vllm-disagg-decode"): "update",
        ("Service", "ns1/vllm-disagg-prefill"): "update",
    }


def test_changed_node_count_on_lws_replaces_the_worker_leaderworkersets(tmp_path):
    old = _corpus("vllm-v1beta1-disagg-multinode.yaml")
    diff = _diff(tmp_path, old, _more_nodes(old), LWS)
    for worker in ("decode", "prefill"):
        change = diff.find(":LeaderWorkerSet", f"ns1/vllm-disagg-{worker}-0")
        assert change.delete_before_replace is False  # new hash-named set first, then the old goes
    # The hash covers every worker, so both workers roll; nothing else changes.
    assert _changed(diff) == {
        ("LeaderWorkerSet", "ns1/vllm-disagg-decode-0"): "replace",
        ("Service", "ns1/vllm-disagg-decode"): "replace",
        ("LeaderWorkerSet", "ns1/vllm-disagg-prefill-0"): "replace",
        ("Service", "ns1/vllm-disagg-prefill"): "replace",
    }


def test_added_non_worker_component_creates_its_objects_and_touches_nothing_else(tmp_path):
    old = _corpus("vllm-v1beta1-agg.yaml")
    new = yaml.safe_load(yaml.safe_dump(old))
    planner = yaml.safe_load(yaml.safe_dump(_component(_corpus("vllm-v1beta1-disagg_planner.yaml"), "Planner")))
    new["spec"]["components"].append(planner)
    actions = _actions(_diff(tmp_path, old, new))
    created = {k for k, v in actions.items() if v == "create"}
    assert ("DynamoComponentDeployment", "ns1/vllm-agg-planner") in created
    assert ("Deployment", "ns1/vllm-agg-planner") in created
    assert {v for k, v in actions.items() if k not in created} == {"same"}


def test_added_worker_component_creates_it_and_rolls_the_other_workers(tmp_path):
    old = _corpus("vllm-v1beta1-agg.yaml")
    new = yaml.safe_load(yaml.safe_dump(old))
    extra = yaml.safe_load(yaml.safe_dump(_component(new, "VllmDecodeWorker")))
    extra["name"] = "VllmDecodeWorker2"
    new["spec"]["components"].append(extra)
    assert _changed(_diff(tmp_path, old, new)) == {
        ("DynamoComponentDeployment", "ns1/vllm-agg-vllmdecodeworker2"): "create",
        ("Deployment", "ns1/vllm-agg-vllmdecodeworker2"): "create",
        ("Service", "ns1/vllm-agg-vllmdecodeworker2"): "create",
        # a new worker changes the graph's worker hash: the existing worker rolls to it
        ("Deployment", "ns1/vllm-agg-vllmdecodeworker"): "replace",
        ("Service", "ns1/vllm-agg-vllmdecodeworker"): "replace",
    }


def test_removed_component_deletes_its_objects(tmp_path):
    old = _corpus("vllm-v1beta1-disagg_planner.yaml")
    new = yaml.safe_load(yaml.safe_dump(old))
    new["spec"]["components"] = [c for c in new["spec"]["components"] if c["name"] != "Planner"]
    actions = _actions(_diff(tmp_path, old, new))
    assert actions[("DynamoComponentDeployment", "ns1/vllm-disagg-planner-planner")] == "delete"
    assert actions[("Deployment", "ns1/vllm-disagg-planner-planner")] == "delete"


# --- properties ---------------------------------------------------------------------------------------


_keys = st.sampled_from(["a", "b", "nvidia.com/x", "spec", "0"])
_leaves = st.one_of(st.integers(-3, 3), st.text(max_size=3), st.booleans(), st.none())
_trees = st.recursive(
    _leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=3)),
    max_leaves=12,
)
_objects = st.dictionaries(_keys, _trees, max_size=4)


@given(_objects)
def test_an_object_never_differs_from_itself(obj):
    assert field_changes(obj, obj) == []


@given(_objects, _objects)
def test_changes_are_exactly_the_differing_leaves(old, new):
    changes = field_changes(old, new)
    before, after = flatten(old), flatten(new)
    assert {c.path for c in changes} == {
        p for p in set(before) | set(after)
        if before.get(p, MISSING) != after.get(p, MISSING) or type(before.get(p)) is not type(after.get(p))
    }
    assert [(c.path, c.new, c.old) for c in field_changes(new, old)] == [(c.path, c.old, c.new) for c in changes]


def test_added_component_on_grove_replaces_the_podcliqueset_and_creates_its_service(tmp_path):
    examples = Path(__file__).resolve().parent.parent / "examples"
    old = yaml.safe_load((examples / "multinode-grove" / "graph.yaml").read_text())
    new = yaml.safe_load(yaml.safe_dump(old))
    planner_graph = _virtual_planner(yaml.safe_load((examples / "disaggregated-planner" / "graph.yaml").read_text()))
    planner = _component(planner_graph, "Planner")
    new["spec"]["components"].append(planner)
    diff = _diff(tmp_path, old, new, GROVE)
    pcs = diff.find(":PodCliqueSet", "ns1/vllm-multinode")
    assert pcs.action == "replace" and pcs.delete_before_replace
    assert "spec.template.cliques[*].name" in pcs.reasons[0]
    actions = _actions(diff)
    assert actions[("DynamoComponentDeployment", "ns1/vllm-multinode-planner")] == "create"
    assert actions[("Service", "ns1/vllm-multinode-planner")] == "create"
    assert "delete" not in actions.values()
