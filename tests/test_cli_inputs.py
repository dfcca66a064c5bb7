"""Unix manners: ``-`` is standard input, only ``--inline`` text is parsed as YAML, a directory or
a device is a one-line error saying what it is, a closed pipe ends quietly, one warning spelling."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import ALPHA, BETA, run_cli, run_process, write

from dynamo_pulumi.cli.exits import EXIT_BROKEN_PIPE, EXIT_ERROR, EXIT_OK


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


def test_dash_reads_standard_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, BETA)
    code, out, _ = run_cli(capsys, "validate", "-")
    assert code == EXIT_OK
    assert out == '<stdin>: DynamoGraphDeployment "beta" is valid (create; 2 components, 0 warnings)\n'


def test_errors_from_standard_input_name_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, BETA.replace("replicas: 2", "replicas: -2"))
    code, _, err = run_cli(capsys, "validate", "-")
    assert code == EXIT_ERROR
    assert "<stdin>:17:7: spec.components[1].replicas: Invalid value: -2" in err


def test_render_reads_standard_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, BETA)
    code, out, _ = run_cli(capsys, "render", "-", "--stage", "components")
    assert code == EXIT_OK and "kind: DynamoComponentDeployment" in out


def test_a_word_that_is_not_a_file_is_not_parsed_as_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "validate", "graph")
    assert code == EXIT_ERROR
    assert err == "graph: no such file\n"


def test_inline_text_is_parsed_as_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "validate", "--inline", ALPHA)
    assert code == EXIT_OK and out.startswith('<inline>: DynamoGraphDeployment "alpha" is valid')


def test_a_directory_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "validate", str(tmp_path))
    assert code == EXIT_ERROR and out == ""
    assert err == f"{tmp_path}: is a directory, not a file\n"


def test_a_device_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "validate", os.devnull)
    assert code == EXIT_ERROR
    assert err == f"{os.devnull}: is a character device, not a file\n"


def test_render_of_a_directory_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "render", str(tmp_path))
    assert code == EXIT_ERROR
    assert err == f"error: {tmp_path}: is a directory, not a file\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "g.yaml", BETA)
    os.chmod(path, 0)
    code, _, err = run_cli(capsys, "validate", path)
    assert code == EXIT_ERROR and err == f"{path}: cannot read: permission denied\n"


def test_a_file_that_is_not_utf8_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\xe9\n".encode("latin-1"))
    code, _, err = run_cli(capsys, "validate", str(path))
    assert code == EXIT_ERROR and err == f"{path}: is not UTF-8 text\n"


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    # 1000 summary lines are more than a pipe buffers, so the write after ``head`` exits fails.
    files = [write(tmp_path, f"g{i}.yaml", BETA) for i in range(1000)]
    script = f"'{sys.executable}' -m dynamo_pulumi validate {' '.join(files)} | head -1; echo \"${{PIPESTATUS[0]}}\""
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300, check=False,
                            cwd=Path(__file__).resolve().parent.parent)
    first, status = result.stdout.splitlines()
    assert first.endswith('is valid (create; 2 components, 0 warnings)')
    assert int(status) == EXIT_BROKEN_PIPE
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr


def test_warnings_are_spelled_one_way(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alpha = write(tmp_path, "a.yaml", ALPHA.replace("componentType: frontend", "componentType: frontend\n      dynamoNamespace: x"))
    for command in ("validate", "render"):
        _, _, err = run_cli(capsys, command, alpha)
        assert f"{alpha}: warning: spec.services[Frontend].dynamoNamespace is deprecated" in err
        assert "Warning:" not in err


def test_preview_reads_standard_input() -> None:
    result = run_process("preview", "-", stdin=BETA)
    assert result.returncode == EXIT_OK, result.stderr
    assert "dynamo:index:DynamoGraphDeployment" in result.stdout
