"""Machine-readable output: ``validate -o json|github``, ``diff -o json``, ``preview -o json``; the
same bytes on every run and under every hash seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_support import ALPHA, BETA, run_cli, run_process, write

from dynamo_pulumi.program.graph_program import default_graph_path

ERROR_KEYS = {"path", "type", "value", "message", "line", "column"}
REPORT_KEYS = {"file", "document", "kind", "name", "operation", "valid", "warnings", "errors", "plannedReplacements"}


def test_validate_json_has_one_object_per_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "good.yaml", BETA)
    bad = write(tmp_path, "bad.yaml", BETA.replace("replicas: 2", "replicas: -2"))
    code, out, err = run_cli(capsys, "validate", good, bad, "-o", "json")
    assert code == 1 and err == ""
    first, second = json.loads(out)
    assert set(first) == REPORT_KEYS - {"document"}  # a single-document file: no document number
    assert first | {"warnings": []} == {
        "file": good, "kind": "DynamoGraphDeployment", "name": "beta",
        "operation": "create", "valid": True, "warnings": [], "errors": [], "plannedReplacements": [],
    }
    assert second["valid"] is False and second["file"] == bad
    # The schema's minimum, and beside it the CEL rule on the defaulted minAvailable (the API server
    # runs CEL where the value still parses).
    error, cel = second["errors"]
    assert cel["path"] == "spec.components[1]"
    assert cel["message"].endswith("minAvailable must be less than or equal to replicas unless replicas is 0")
    assert set(error) == ERROR_KEYS
    assert error["path"] == "spec.components[1].replicas"
    assert error["type"] == "Invalid value" and error["value"] == -2
    assert (error["line"], error["column"]) == (17, 7)
    assert error["message"].startswith("spec.components[1].replicas: Invalid value: -2")


def test_validate_json_reports_unreadable_input_as_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "validate", str(tmp_path / "missing.yaml"), "-o", "json")
    assert code == 1
    (report,) = json.loads(out)
    assert report["valid"] is False and "kind" not in report and "operation" not in report
    assert report["errors"] == [{"type": "InputError", "message": "no such file"}]


def test_validate_json_numbers_documents_of_a_multi_document_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "two.yaml", BETA + "---\n" + ALPHA)
    code, out, _ = run_cli(capsys, "validate", path, "-o", "json")
    assert code == 0
    assert [(r["document"], r["name"]) for r in json.loads(out)] == [(1, "beta"), (2, "alpha")]


def test_validate_github_prints_one_annotation_per_error_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, "bad.yaml", BETA.replace("replicas: 2", "replicas: -2"))
    code, out, _ = run_cli(capsys, "validate", bad, "-o", "github")
    assert code == 1
    line, cel = out.splitlines()  # the schema's minimum, and the CEL rule beside it
    assert line.startswith(f"::error file={bad},line=17,col=7,title=DynamoGraphDeployment \"beta\"::")
    assert line.endswith("spec.components[1].replicas: Invalid value: -2: spec.components[1].replicas in body "
                         "should be greater than or equal to 0")
    assert "minAvailable must be less than or equal to replicas unless replicas is 0; minAvailable is not in your file" in cel


def test_a_bad_platform_file_is_reported_in_the_chosen_format_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = write(tmp_path, "g.yaml", BETA)
    platform = write(tmp_path, "p.yaml", "operatorVersion: 1.6.0\ncluster:\n  inferencePoolAvailable: maybe\n")
    code, out, _ = run_cli(capsys, "validate", graph, "-p", platform, "-o", "json")
    assert code == 1
    ((report,),) = [json.loads(out)]
    assert report["file"] == platform and report["valid"] is False
    (error,) = report["errors"]
    assert error["path"] == "cluster.inferencePoolAvailable"
    assert (error["line"], error["column"]) == (3, 3)
    code, out, _ = run_cli(capsys, "validate", graph, "-p", platform, "-o", "github")
    assert code == 1
    assert out.startswith(f"::error file={platform},line=3,col=3,title={platform}::invalid platform settings: ")


def test_a_bad_namespace_is_an_annotation_without_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    graph = write(tmp_path, "g.yaml", BETA)
    code, out, _ = run_cli(capsys, "validate", graph, "-n", "Bad", "-o", "github")
    assert code == 1
    assert out.startswith("::error title=--namespace::namespace 'Bad' is not a valid Kubernetes namespace")


def test_github_annotations_escape_what_would_end_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "a,b:c.yaml", "a: [\n")
    _, out, _ = run_cli(capsys, "validate", path, "-o", "github")
    (line,) = out.splitlines()
    assert line.startswith(f"::error file={path.replace(',', '%2C').replace(':', '%3A')},line=2,col=1,")


def _changed_graph(tmp_path: Path) -> str:
    new = yaml.safe_load(default_graph_path().read_text())
    new["spec"]["components"][0]["replicas"] = 3
    return write(tmp_path, "new.yaml", yaml.safe_dump(new))


def test_diff_json_names_operation_kind_name_component_paths_and_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "diff", str(default_graph_path()), _changed_graph(tmp_path), "-o", "json")
    assert code == 0
    rows = json.loads(out)["changes"]
    assert rows and all(r["operation"] != "same" for r in rows)
    assert all(
        set(r) == {"graph", "operation", "kind", "type", "name", "object", "component", "paths", "reasons",
                   "deleteBeforeReplace", "managedBy"}
        for r in rows
    )
    updated = next(r for r in rows if r["operation"] == "update")
    assert updated["paths"]
    assert updated["kind"] == updated["type"].rsplit(":", 1)[-1]


def test_preview_json_is_sorted_and_names_operation_type_name_parent(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "preview", "-o", "json")
    assert code == 0
    rows = json.loads(out)["resources"]
    keys = [(r["parentType"], r["parent"], r["type"], r["name"]) for r in rows]
    assert keys == sorted(keys)
    assert {r["operation"] for r in rows} == {"create"}
    assert all(isinstance(r["inputs"], dict) for r in rows)


@pytest.mark.parametrize(
    "argv",
    [
        ("preview", "-o", "json"),
        ("diff", str(default_graph_path()), "-", "-o", "json"),
        ("validate", str(default_graph_path()), "-o", "json"),
    ],
    ids=["preview", "diff", "validate"],
)
def test_json_output_is_identical_across_runs_and_hash_seeds(argv: tuple[str, ...], tmp_path: Path) -> None:
    stdin = Path(_changed_graph(tmp_path)).read_text()
    outputs = {run_process(*argv, stdin=stdin, seed=seed).stdout for seed in ("0", "1", "12345")}
    (only,) = outputs
    assert json.loads(only)


def test_validate_json_fills_the_operation_of_a_graph_refused_while_loading_and_omits_unknowns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, "bad.yaml", BETA.replace("replicas: 2", "replica: 2"))
    old = write(tmp_path, "old.yaml", BETA)
    for argv, operation in (((bad,), "create"), ((bad, "--old", old), "update")):
        code, out, _ = run_cli(capsys, "validate", *argv, "-o", "json")
        assert code == 1
        (report,) = json.loads(out)
        assert (report["kind"], report["name"], report["operation"]) == ("DynamoGraphDeployment", "beta", operation)
        (error,) = report["errors"]
        assert error == {
            "type": "Invalid value", "path": "spec.components[1].replica", "line": 17, "column": 7,
            # kubectl's words in message, the nearest name (our advice) apart in fix
            "message": 'unknown field "spec.components[1].replica"', "fix": 'did you mean "replicas"?',
        }
        assert None not in report.values() and None not in error.values()


def test_validate_json_keeps_integers_integers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.yaml", BETA.replace("replicas: 2", "replicas: 4294967296"))
    _, out, _ = run_cli(capsys, "validate", bad, "-o", "json")
    (error,) = json.loads(out)[0]["errors"]
    assert error["value"] == 4294967296 and type(error["value"]) is int
    assert '"value": 4294967296\n' in out and "4294967296.0" not in out
