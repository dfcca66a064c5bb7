"""``diff`` says what a reviewer needs to know (issue 18, item 4): downtime wherever a replacement
deletes first (both modes), the operator's objects recreated as replacements, and which
component's change moved the worker revision that renames every worker."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from update_rule_cases import IMMUTABLE_CASES, MUTABLE_CASES, PLATFORM

from dynamo_pulumi.cli import main
from dynamo_pulumi.diff.diffing import diff_plans
from dynamo_pulumi.diff.worker_revision import MAX_PATHS, RevisionChange, revision_causes
from dynamo_pulumi.program.graph_program import plan

REPO = Path(__file__).resolve().parent.parent
GRAPH = REPO / "tests" / "fixtures" / "programs" / "disagg" / "graph.yaml"
MULTINODE = REPO / "examples" / "multinode-grove"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def _component(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in doc["spec"]["components"] if c["name"] == name)


def _decode_args_changed(tmp_path: Path) -> tuple[str, str]:
    old = yaml.safe_load(GRAPH.read_text())
    new = copy.deepcopy(old)
    _component(new, "decode")["podTemplate"]["spec"]["containers"][0]["args"] += ["--max-model-len", "8192"]
    return write(tmp_path, "old.yaml", old), write(tmp_path, "new.yaml", new)


# --- the worker revision's cause ---------------------------------------------------------------------


def test_causes_name_each_component_and_the_fields_that_changed():
    old = {"decode": {"labels": {"a": "1"}, "spec": {"podTemplate": {"spec": {"x": 1}}, "envs": [1]}},
           "prefill": {"spec": {"podTemplate": {}}}, "gone": {"spec": {}}}
    new = {"decode": {"labels": {"a": "2"}, "spec": {"podTemplate": {"spec": {"x": 2}}, "envs": [1]}},
           "prefill": {"spec": {"podTemplate": {}}}, "extra": {"spec": {}}}
    assert revision_causes(old, new) == (  # in component-name order
        "decode's labels (a) and podTemplate (spec.x) changed",
        "worker extra was added",
        "worker gone was removed",
    )


def test_causes_list_a_few_paths_then_an_ellipsis():
    old = {"decode": {"spec": {"podTemplate": {f"k{i}": i for i in range(MAX_PATHS + 2)}}}}
    new = {"decode": {"spec": {"podTemplate": {f"k{i}": -i - 1 for i in range(MAX_PATHS + 2)}}}}
    (cause,) = revision_causes(old, new)
    assert cause == "decode's podTemplate (k0, k1, k2, ...) changed"


def test_a_field_set_where_none_was_is_named_without_paths():
    (cause,) = revision_causes({"decode": {"spec": {}}}, {"decode": {"spec": {"envs": [{"name": "A"}]}}})
    assert cause == "decode's envs changed"
    (cause,) = revision_causes({"decode": {"spec": {}}}, {"decode": {"runtimeVersion": "1.5.0", "spec": {}}})
    assert cause == "decode's runtime version changed"


def test_the_sentence_says_the_hash_is_in_every_workers_name_or_labels():
    change = RevisionChange("aaaa", "bbbb", ("decode's podTemplate changed",))
    assert change.sentence() == (
        "worker revision changed (aaaa => bbbb) because decode's podTemplate changed; every worker's name includes it"
    )
    grove = RevisionChange("aaaa", "bbbb", (), in_names=False)
    assert grove.sentence() == "worker revision changed (aaaa => bbbb); every worker's pods are labelled with it"
    assert change.as_json() == {"before": "aaaa", "after": "bbbb", "because": ["decode's podTemplate changed"]}


def test_a_decode_only_change_renames_prefill_too_and_says_why(tmp_path):
    old, new = _decode_args_changed(tmp_path)
    diff = diff_plans(plan(old, "ns"), plan(new, "ns"))
    prefill = diff.find(":Deployment", "ns/vllm-disagg-prefill")
    assert prefill.action == "replace" and not prefill.delete_before_replace
    assert diff.revision is not None
    assert diff.revision.causes == ("decode's podTemplate (spec.containers[0].args) changed",)
    assert diff.revision.sentence() in prefill.reasons[0]
    assert prefill.reasons[0].endswith("(no downtime)")


def test_the_cli_prints_the_cause_once_and_refers_to_it(tmp_path, capsys):
    old, new = _decode_args_changed(tmp_path)
    code, out, _ = run_cli(capsys, "diff", old, new)
    assert code == 0
    assert out.count("Worker revision changed (") == 1
    assert ("because decode's podTemplate (spec.containers[0].args) changed; every worker's name includes it"
            in out)
    assert out.count("reason: metadata.name changes (worker revision: see below)") == 4  # both workers' Deployment+Service
    _, out, _ = run_cli(capsys, "diff", old, new, "-o", "json")
    (revision,) = json.loads(out)["workerRevisions"]
    assert revision["graph"] == "default/vllm-disagg"
    assert revision["because"] == ["decode's podTemplate (spec.containers[0].args) changed"]


def test_a_replica_change_does_not_move_the_revision(tmp_path, capsys):
    old = yaml.safe_load(GRAPH.read_text())
    new = copy.deepcopy(old)
    _component(new, "decode")["replicas"] = 4
    _, out, _ = run_cli(capsys, "diff", write(tmp_path, "a.yaml", old), write(tmp_path, "b.yaml", new), "-o", "json")
    document = json.loads(out)
    assert "workerRevisions" not in document and "downtime" not in document and "plannedReplacements" not in document


# --- downtime, render mode ------------------------------------------------------------------------------


def test_render_mode_says_downtime_for_a_fixed_name_replacement(tmp_path, capsys):
    old = yaml.safe_load((MULTINODE / "graph.yaml").read_text())
    new = copy.deepcopy(old)
    _component(new, "decode")["multinode"]["nodeCount"] += 1
    platform = str(MULTINODE / "platform.yaml")
    code, out, _ = run_cli(capsys, "diff", write(tmp_path, "a.yaml", old), write(tmp_path, "b.yaml", new), "-p", platform)
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("Downtime:")]
    assert line.startswith("Downtime: kubernetes:grove.io/v1alpha1:PodCliqueSet ")
    assert "the graph stops serving until it is ready" in line
    _, out, _ = run_cli(capsys, "diff", write(tmp_path, "a.yaml", old), write(tmp_path, "b.yaml", new), "-p", platform,
                        "-o", "json")
    (downtime,) = json.loads(out)["downtime"]
    assert downtime["object"].startswith("kubernetes:grove.io/v1alpha1:PodCliqueSet ")


def test_a_create_first_replacement_is_not_downtime(tmp_path, capsys):
    old, new = _decode_args_changed(tmp_path)
    _, out, _ = run_cli(capsys, "diff", old, new)
    assert "Downtime:" not in out


# --- operator mode --------------------------------------------------------------------------------------


def _case_files(tmp_path: Path, case: Any) -> tuple[str, str, str]:
    return (write(tmp_path, "old.yaml", case.old), write(tmp_path, "new.yaml", case.new),
            write(tmp_path, "platform.yaml", PLATFORM))


def test_operator_mode_says_an_immutable_change_stops_the_graph_and_recreates_its_objects(tmp_path, capsys):
    old, new, platform = _case_files(tmp_path, IMMUTABLE_CASES[0])
    code, out, _ = run_cli(capsys, "diff", old, new, "-p", platform, "--mode", "operator")
    assert code == 0
    assert any("not zero-downtime: the graph stops serving" in line for line in out.splitlines() if "reason:" in line)
    assert "Downtime: kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment g is deleted before" in out
    expansion = out.split("Predicted expansion", 1)[1]
    assert "+- replace  PodCliqueSet g" in expansion and "~  update" not in expansion
    # Created once per namespace without an owner: outlives the custom resource, never recreated.
    assert "planner-serviceaccount" not in expansion


def test_operator_mode_json_entries_have_type_tokens_components_and_delete_first(tmp_path, capsys):
    old, new, platform = _case_files(tmp_path, IMMUTABLE_CASES[0])
    _, out, _ = run_cli(capsys, "diff", old, new, "-p", platform, "--mode", "operator", "-o", "json")
    changes = json.loads(out)["changes"]
    assert changes[0]["type"] == "kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment"
    assert changes[0]["deleteBeforeReplace"] is True
    operator = [c for c in changes if c["managedBy"] == "operator"]
    assert operator and all(c["type"].startswith("kubernetes:") and c["type"].endswith(":" + c["kind"]) for c in operator)
    assert all(isinstance(c["component"], str) and c["component"] for c in changes)
    pcs = next(c for c in operator if c["kind"] == "PodCliqueSet")
    assert pcs["type"] == "kubernetes:grove.io/v1alpha1:PodCliqueSet"
    assert pcs["operation"] == "replace" and pcs["deleteBeforeReplace"] is True and pcs["component"] == "g"
    decode_service = next(c for c in operator if c["name"] == "g-decode")
    assert decode_service["type"] == "kubernetes:core/v1:Service" and decode_service["component"] == "ns/g-decode"
    assert all(value is not None for c in changes for value in c.values())


def test_operator_mode_update_lists_the_changed_fields_of_each_object(tmp_path, capsys):
    case = next(c for c in MUTABLE_CASES if c.id == "image")
    old, new, platform = _case_files(tmp_path, case)
    _, out, _ = run_cli(capsys, "diff", old, new, "-p", platform, "--mode", "operator", "-o", "json")
    document = json.loads(out)
    pcs = next(c for c in document["changes"] if c["kind"] == "PodCliqueSet")
    assert pcs["operation"] == "update" and not pcs["deleteBeforeReplace"]
    assert "spec.template.cliques[1].spec.podSpec.containers[0].image" in pcs["paths"]
    assert "downtime" not in document


def test_operator_mode_worker_rename_is_a_replacement_without_downtime(tmp_path, capsys):
    old, new = _decode_args_changed(tmp_path)
    code, out, _ = run_cli(capsys, "diff", old, new, "--mode", "operator")
    assert code == 0
    expansion = out.split("Predicted expansion", 1)[1]
    assert ("+- replace  Deployment vllm-disagg-prefill-" in expansion and " -> vllm-disagg-prefill-" in expansion)
    assert "the operator creates the new worker revision and removes the old one once it is ready (no downtime)" in out
    assert "Downtime:" not in out
    assert "every worker's name includes it" in out


# --- the GPU delta beside each change ----------------------------------------------------------------


def test_the_gpu_delta_is_printed_beside_the_workload_that_makes_it(tmp_path, capsys):
    old = yaml.safe_load(GRAPH.read_text())
    new = copy.deepcopy(old)
    _component(new, "decode")["replicas"] = 4
    files = (write(tmp_path, "a.yaml", old), write(tmp_path, "b.yaml", new))
    _, out, _ = run_cli(capsys, "diff", *files)
    lines = out.splitlines()
    head = lines.index("~  update   kubernetes:apps/v1:Deployment default/vllm-disagg-decode (vllm-disagg-decode-afa19a5d)")
    assert lines[head + 1] == "      GPUs: +8 nvidia.com/gpu (NVIDIA-H100-80GB-HBM3) on decode: replicas 2 => 4"
    _, out, _ = run_cli(capsys, "diff", *files, "-o", "json")
    decode, readiness = json.loads(out)["changes"]
    assert readiness["type"] == "pulumi-python:dynamic/dynamo:GraphReadiness" and "gpus" not in readiness
    assert decode["gpus"] == [{"component": "decode", "before": 8, "after": 16, "delta": 8, "resource": "nvidia.com/gpu",
                               "product": "NVIDIA-H100-80GB-HBM3", "cause": "replicas 2 => 4"}]
    _, out, _ = run_cli(capsys, "diff", *files, "--mode", "operator")
    expansion = out.split("Predicted expansion", 1)[1].splitlines()
    head = expansion.index("~  update   Deployment vllm-disagg-decode-afa19a5d")
    assert expansion[head + 1] == "      GPUs: +8 nvidia.com/gpu (NVIDIA-H100-80GB-HBM3) on decode: replicas 2 => 4"


def test_a_key_added_or_removed_deep_in_a_field_is_named_and_a_field_emptied_too():
    old = {"decode": {"labels": {"a": "1"}, "spec": {"podTemplate": {"spec": {"x": 1}}}}}
    new = {"decode": {"spec": {"podTemplate": {"spec": {"x": 1, "y": {"z": 2}}}}}}
    assert revision_causes(old, new) == ("decode's labels and podTemplate (spec.y) changed",)
    assert revision_causes(new, old) == ("decode's labels and podTemplate (spec.y) changed",)


def test_exactly_the_path_budget_has_no_ellipsis():
    old = {"decode": {"spec": {"podTemplate": {f"k{i}": i for i in range(MAX_PATHS)}}}}
    new = {"decode": {"spec": {"podTemplate": {f"k{i}": -i - 1 for i in range(MAX_PATHS)}}}}
    assert revision_causes(old, new) == ("decode's podTemplate (k0, k1, k2) changed",)


def test_several_causes_and_a_missing_hash_read_plainly():
    change = RevisionChange("", "bbbb", ("decode's envs changed", "worker prefill was added"))
    assert change.sentence() == ("worker revision changed (- => bbbb) because decode's envs changed; worker prefill "
                                 "was added; every worker's name includes it")
    assert RevisionChange("aaaa", "", ()).sentence().startswith("worker revision changed (aaaa => -);")


def test_revision_change_of_anything_but_graphs_has_no_causes():
    from dynamo_pulumi.diff.worker_revision import revision_change

    assert revision_change(None, "ns", "aaaa", None, "ns", "aaaa") is None
    assert revision_change(None, "ns", "aaaa", None, "ns", "bbbb") == RevisionChange("aaaa", "bbbb", (), True)
    assert revision_change(None, "ns", "a", None, "ns", "b", in_names=False) == RevisionChange("a", "b", (), False)
