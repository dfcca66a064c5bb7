"""``dynamo-pulumi preview`` and ``dynamo-pulumi diff`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dynamo_pulumi.cli import main
from dynamo_pulumi.program.graph_program import default_graph_path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "conformance" / "corpus"


def test_preview_without_a_file_previews_the_embedded_example(capsys):
    assert main(["preview"]) == 0
    out = capsys.readouterr().out
    assert "dynamo:index:DynamoGraphDeployment" in out
    assert "vllm-agg" in out
    assert "kubernetes:apps/v1:Deployment" in out
    assert "GPUs requested:   1" in out


def test_embedded_example_is_packaged_data():
    path = default_graph_path()
    assert path.is_file()
    assert path.parent.name == "data" and path.parent.parent.name == "dynamo_pulumi"


def test_preview_tree_shows_children_under_their_component(capsys):
    assert main(["preview"]) == 0
    lines = capsys.readouterr().out.splitlines()
    dcd = next(i for i, line in enumerate(lines) if "DynamoComponentDeployment" in line and "vllmworker" in line)
    assert "kubernetes:apps/v1:Deployment" in lines[dcd + 1] or "kubernetes:apps/v1:Deployment" in lines[dcd + 2]
    assert lines[dcd + 1].startswith("│  ") or lines[dcd + 1].startswith("   ")


def test_preview_json_names_type_name_and_parent(capsys):
    assert main(["preview", "--format", "json", "--namespace", "ns9"]) == 0
    rows = json.loads(capsys.readouterr().out)["resources"]
    by_type = {r["type"]: r for r in rows}
    assert by_type["dynamo:index:DynamoGraphDeployment"]["parent"] == "dynamo-dev"
    deployment = next(r for r in rows if r["type"] == "kubernetes:apps/v1:Deployment" and "worker" in r["name"])
    assert deployment["parent"] == "ns9/vllm-agg-vllmworker"
    assert deployment["parentType"] == "dynamo:index:DynamoComponentDeployment"


def test_preview_of_an_invalid_graph_fails_with_field_errors_not_a_traceback(tmp_path, capsys):
    doc = yaml.safe_load(default_graph_path().read_text())
    doc["spec"]["components"][1]["replicas"] = -1
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc))
    assert main(["preview", str(bad)]) == 1
    captured = capsys.readouterr()
    assert "spec.components[1].replicas" in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


def test_preview_of_a_missing_file_is_an_error(capsys):
    assert main(["preview", "/nonexistent/graph.yaml"]) == 1
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["vllm-v1beta1-disagg_planner.yaml", "vllm-v1beta1-disagg-multinode.yaml"])
def test_preview_works_on_corpus_graphs(name, capsys, tmp_path):
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    platform = tmp_path / "platform.yaml"
    platform.write_text("orchestrators: {grove: {enabled: true}}\n")
    mode = "operator" if "planner" in name else "render"  # a Kubernetes-API planner needs the operator
    assert main(["preview", str(CORPUS / name), "--platform", str(platform), "--namespace", "ci", "--mode", mode]) == 0
    out = capsys.readouterr().out
    assert ("DynamoGraphDeployment  " if mode == "operator" else "dynamo:index:DynamoComponentDeployment") in out


def test_diff_prints_one_line_per_changed_object_and_the_reason(tmp_path, capsys):
    old = yaml.safe_load(default_graph_path().read_text())
    new = yaml.safe_load(default_graph_path().read_text())
    new["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]["image"] = "nvcr.io/x/vllm:1.3.2"
    new["spec"]["components"][0]["replicas"] = 2
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(old))
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new))
    assert main(["diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml"), "--namespace", "ns1"]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line[:2] in ("+ ", "~ ", "+-", "- ")]
    assert any(h.startswith("~  update   kubernetes:apps/v1:Deployment ns1/vllm-agg-frontend") for h in heads)
    assert any(h.startswith("+- replace  kubernetes:apps/v1:Deployment ns1/vllm-agg-vllmworker") for h in heads)
    assert "reason: metadata.name changes" in out
    assert "spec.replicas: 1 => 2" in out
    # the readiness resource watches the new worker: updated, so `pulumi up` waits for it again
    assert any(h.startswith("~  update   pulumi-python:dynamic/dynamo:GraphReadiness ns1/vllm-agg") for h in heads)
    assert "Resources: 0 to create, 2 to update, 2 to replace, 0 to delete" in out


def test_preview_as_a_subprocess_exits_cleanly_with_empty_stderr():
    """What ``bash scripts/preview.sh`` ends in; no event-loop noise at interpreter exit."""
    result = subprocess.run(
        [sys.executable, "-m", "dynamo_pulumi", "preview"], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "dynamo:index:DynamoGraphDeployment" in result.stdout
    assert result.stderr == ""


def test_diff_detailed_exitcode_tells_ci_whether_anything_changes(tmp_path, capsys):
    graph = str(default_graph_path())
    assert main(["diff", graph, graph, "--detailed-exitcode"]) == 0
    assert "0 to create, 0 to update, 0 to replace, 0 to delete" in capsys.readouterr().out
    new = yaml.safe_load(default_graph_path().read_text())
    new["spec"]["components"][0]["replicas"] = 3
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new))
    assert main(["diff", graph, str(tmp_path / "new.yaml"), "--detailed-exitcode"]) == 2
    assert main(["diff", graph, str(tmp_path / "new.yaml")]) == 0
