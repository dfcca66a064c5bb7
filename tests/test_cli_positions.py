"""Every validation error loaded from a file names the file, line and column of its field (or of
its nearest parent written in the file): v1beta1, v1alpha1 and multi-document input alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import ALPHA, BETA, IMAGE, run_cli, write


def _errors(capsys: pytest.CaptureFixture[str], path: str) -> list[dict]:
    code, out, _ = run_cli(capsys, "validate", path, "-o", "json")
    assert code == 1
    return [e for report in json.loads(out) for e in report["errors"]]


def test_a_beta_schema_error_is_reported_at_its_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "g.yaml", BETA.replace("replicas: 2", "replicas: -2"))
    code, _, err = run_cli(capsys, "validate", path)
    assert code == 1
    assert f"{path}:17:7: spec.components[1].replicas: Invalid value: -2" in err


def test_a_beta_admission_error_is_reported_at_its_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "g.yaml", BETA.replace(":1.4.0", ":latest"))
    (first, second) = _errors(capsys, path)
    assert first["path"] == "spec.components[0].runtimeVersionOverride"
    assert (first["line"], first["column"]) == (8, 7)  # not written: its component
    assert (second["line"], second["column"]) == (15, 7)


def test_an_alpha_error_is_reported_where_the_alpha_field_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "a.yaml", ALPHA.replace(":1.4.0", ":latest"))
    code, _, err = run_cli(capsys, "validate", path)
    assert code == 1
    assert f"{path}:7:5: spec.services[Frontend].runtimeVersionOverride: Required value" in err


def test_an_alpha_schema_error_is_reported_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "a.yaml", ALPHA.replace("componentType: frontend", "componentType: frontend\n      replicas: -1"))
    (error,) = _errors(capsys, path)
    assert error["path"] == "spec.services.Frontend.replicas"  # the schema stage spells map keys so
    assert (error["line"], error["column"]) == (9, 7)


def test_each_document_of_a_multi_document_file_counts_its_own_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = BETA.replace("name: beta", "name: bad").replace("replicas: 2", "replicas: -2")
    path = write(tmp_path, "two.yaml", BETA + "---\n" + bad)
    code, out, err = run_cli(capsys, "validate", path)
    assert code == 1
    assert f'{path} (document 1): DynamoGraphDeployment "beta" is valid' in out
    assert f"{path}:40:7: spec.components[1].replicas: Invalid value: -2" in err  # 23 lines + separator + 17


def test_a_yaml_syntax_error_names_the_file_and_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "bad.yaml", "metadata:\n  name: [x\n")
    code, _, err = run_cli(capsys, "validate", path)
    assert code == 1
    assert err.startswith(f"{path}:3:1: invalid YAML:")
    assert "<unicode string>" not in err


def test_render_reports_errors_at_their_line_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "g.yaml", BETA.replace(":1.4.0", ":latest"))
    code, out, err = run_cli(capsys, "render", path)
    assert code == 1 and out == ""
    assert f"{path}:8:7: spec.components[0].runtimeVersionOverride: Required value" in err


def test_preview_reports_a_schema_error_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "g.yaml", BETA.replace("replicas: 2", "replicas: -2"))
    code, out, err = run_cli(capsys, "preview", path)
    assert code == 1 and out == ""
    assert err.splitlines()[0] == 'error: The DynamoGraphDeployment "beta" is invalid:'
    assert f"{path}:17:7: spec.components[1].replicas: Invalid value: -2" in err


@pytest.mark.parametrize("command", ["validate", "render", "preview"])
def test_a_rendering_refusal_of_one_component_is_reported_at_that_component(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worker = "- name: main\n              image: " + IMAGE + "\n              command: [python3, -m, dynamo.vllm]"
    text = BETA.replace("backendFramework: vllm", "backendFramework: sglang")
    path = write(tmp_path, "g.yaml", text[: text.rindex("- name: main")] + worker + "\n")
    code, _, err = run_cli(capsys, command, path)
    assert code == 1
    assert f"{path}:15:7: spec.components[1]: Forbidden: cannot be rendered: backend framework mismatch" in err
