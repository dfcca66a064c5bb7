"""Small CLI edges: a bad ``--timeout`` is a usage error, ``--kubeconfig DIR`` says it is a
directory, an unknown or abbreviated option prints the subcommand's usage with the nearest
option, a misspelt choice names the nearest one, and ``bench/bench_verdict.py`` without the
corpus says what it needs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from dynamo_pulumi.cli.exits import EXIT_USAGE
from tests.cli_support import BETA, REPO, run_cli, write


def test_a_malformed_timeout_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = write(tmp_path, "g.yaml", BETA)
    code, out, err = run_cli(capsys, "wait", "--timeout", "5x", graph)
    assert code == EXIT_USAGE and out == ""
    assert err.startswith("usage: dynamo-pulumi wait ")
    assert err.splitlines()[-1] == (
        "dynamo-pulumi wait: error: argument --timeout: timeout must be a duration like 30m, 1h30m or 90s, not '5x'"
    )


def test_a_kubeconfig_directory_is_named_as_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = write(tmp_path, "g.yaml", BETA)
    code, _, err = run_cli(capsys, "status", "--kubeconfig", str(tmp_path), graph)
    assert code == 1
    assert err.strip() == f"error: kubeconfig '{tmp_path}' is a directory; --kubeconfig takes a kubeconfig file"


@pytest.mark.parametrize(
    ("argv", "usage", "hint"),
    [
        (["validate", "--plat", "p.yaml", "g.yaml"], "usage: dynamo-pulumi validate ", '(did you mean "--platform"?)'),
        (["render", "g.yaml", "--namespce=x"], "usage: dynamo-pulumi render ", '(did you mean "--namespace"?)'),
        (["valdate", "g.yaml"], "usage: dynamo-pulumi [-h]", '(did you mean "validate"?)'),
        (["render", "--mode", "operater", "g.yaml"], "usage: dynamo-pulumi render ", '(did you mean "operator"?)'),
    ],
)
def test_an_unknown_option_prints_the_subcommands_usage_and_the_nearest_option(
    argv: list[str], usage: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == EXIT_USAGE and out == ""
    assert err.startswith(usage)
    assert err.rstrip().endswith(hint)


def test_an_unknown_option_without_a_near_one_gets_no_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "validate", "--zzzz", "g.yaml")
    assert code == EXIT_USAGE
    assert err.splitlines()[-1] == "dynamo-pulumi validate: error: unrecognized arguments: --zzzz"


def test_bench_verdict_without_the_corpus_says_what_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("bench_verdict", REPO / "bench" / "bench_verdict.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "CORPUS", tmp_path)
    monkeypatch.setattr(sys, "argv", ["bench_verdict.py", "--repeat", "1"])
    with pytest.raises(SystemExit) as info:
        module.main()
    assert str(info.value).startswith(f"bench_verdict: no corpus graphs under {tmp_path}: this benchmark needs")
