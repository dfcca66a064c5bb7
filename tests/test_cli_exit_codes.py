"""Exit codes a CI gate can trust: 0 ok, 1 invalid or error, 2 only for changes under
``--detailed-exitcode``, 64 for usage errors; plus ``--help`` and ``--version``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_support import BETA, REPO, run_cli, run_process, write

from dynamo_pulumi.cli import SUBCOMMANDS
from dynamo_pulumi.cli.exits import EXIT_CHANGES, EXIT_ERROR, EXIT_OK, EXIT_USAGE
from dynamo_pulumi.program.graph_program import default_graph_path


def test_exit_codes_are_distinct() -> None:
    assert len({EXIT_OK, EXIT_ERROR, EXIT_CHANGES, EXIT_USAGE}) == 4
    assert (EXIT_OK, EXIT_ERROR, EXIT_CHANGES, EXIT_USAGE) == (0, 1, 2, 64)


def test_valid_input_exits_0_and_invalid_input_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "validate", write(tmp_path, "g.yaml", BETA))[0] == EXIT_OK
    bad = write(tmp_path, "b.yaml", BETA.replace("replicas: 2", "replicas: -2"))
    for command in ("validate", "render"):
        assert run_cli(capsys, command, bad)[0] == EXIT_ERROR


@pytest.mark.parametrize(
    "argv",
    [
        ("diff", "only-one.yaml", "--detailed-exitcode"),
        ("diff", "a.yaml", "b.yaml", "--detailed-exitcod"),
        ("validate",),
        ("render", "g.yaml", "--stage", "everything"),
        ("frobnicate",),
        ("validate", "g.yaml", "--output", "xml"),
        (),
    ],
    ids=["missing-argument", "typo-option", "no-files", "bad-choice", "unknown-subcommand", "bad-output", "nothing"],
)
def test_a_usage_error_exits_64_never_2(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == EXIT_USAGE
    assert out == "" and "usage:" in err


def test_diff_detailed_exitcode_is_2_only_when_something_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = str(default_graph_path())
    new = yaml.safe_load(default_graph_path().read_text())
    new["spec"]["components"][0]["replicas"] = 3
    changed = write(tmp_path, "new.yaml", yaml.safe_dump(new))
    assert run_cli(capsys, "diff", graph, graph, "--detailed-exitcode")[0] == EXIT_OK
    assert run_cli(capsys, "diff", graph, changed, "--detailed-exitcode")[0] == EXIT_CHANGES
    assert run_cli(capsys, "diff", graph, changed)[0] == EXIT_OK
    bad = write(tmp_path, "bad.yaml", BETA.replace("replicas: 2", "replicas: -2"))
    assert run_cli(capsys, "diff", graph, bad, "--detailed-exitcode")[0] == EXIT_ERROR


def test_help_lists_every_subcommand_without_importing_any(tmp_path: Path) -> None:
    probe = (
        "import sys\nfrom dynamo_pulumi.cli import main\ncode = main(['--help'])\n"
        "loaded = [m for m in sys.modules if m.startswith(('dynamo_pulumi.cli.', 'pulumi', 'pydantic', "
        "'kubernetes', 'jsonschema')) and m not in ('dynamo_pulumi.cli.common', 'dynamo_pulumi.cli.exits')]\n"
        "print(code, loaded)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert result.stdout.splitlines()[-1] == "0 []"
    for name in SUBCOMMANDS:
        assert name in result.stdout


def test_validate_never_imports_pulumi_or_the_kubernetes_client(tmp_path: Path) -> None:
    graph = write(tmp_path, "g.yaml", BETA)
    probe = (
        "import sys\nfrom dynamo_pulumi.cli import main\ncode = main(['validate', sys.argv[1]])\n"
        "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'pulumi', 'pulumi_kubernetes', 'kubernetes', "
        "'grpc', 'kubernetes_validate'}))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe, graph], capture_output=True, text=True, cwd=REPO, check=True)
    assert result.stdout.splitlines()[-1] == "0 []"


def test_subcommand_help_is_plain_text() -> None:
    result = run_process("validate", "--help")
    assert result.returncode == EXIT_OK
    assert "``" not in result.stdout and ":func:" not in result.stdout
    assert "-n NAMESPACE, --namespace NAMESPACE" in result.stdout
    assert "-p PLATFORM, --platform PLATFORM" in result.stdout


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_subcommand_takes_the_same_namespace_and_platform_flags(command: str) -> None:
    result = run_process(command, "--help")
    assert result.returncode == EXIT_OK
    for flag in ("-n NAMESPACE, --namespace NAMESPACE", "-p PLATFORM, --platform PLATFORM", "--inline"):
        assert flag in result.stdout


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    code, out, _ = run_cli(capsys, "--version")
    assert code == EXIT_OK and out == f"dynamo-pulumi {version('dynamo-pulumi')}\n"


def test_an_interrupt_exits_130_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dynamo_pulumi.cli import validate_cmd

    def interrupted(*_: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(validate_cmd, "run", interrupted)
    code, _, err = run_cli(capsys, "validate", write(tmp_path, "g.yaml", BETA))
    assert code == 130 and "Traceback" not in err


@pytest.mark.parametrize("argv", [("validate", "-", "-"), ("validate", "-", "--old", "-"), ("diff", "-", "-")])
def test_standard_input_twice_is_a_usage_error(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == EXIT_USAGE and out == ""
    assert "'-' (standard input) can be given for one input only" in err


@pytest.mark.parametrize("command", ["validate", "render"])
def test_an_invalid_namespace_is_an_error_not_a_traceback(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, command, write(tmp_path, "g.yaml", BETA), "-n", "Not_A_Namespace")
    assert code == EXIT_ERROR and out == ""
    assert "namespace 'Not_A_Namespace' is not a valid Kubernetes namespace" in err
    assert "Traceback" not in err
