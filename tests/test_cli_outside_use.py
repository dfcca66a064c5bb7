"""What outside use found in the CLI (issue 23, item 6), each as the user now sees it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import BETA, run_cli

PROGRAM = '''\
import pulumi
import yaml
from pathlib import Path

from dynamo_pulumi.resources import DynamoGraphDeployment

config = pulumi.Config()
graph = yaml.safe_load((Path(__file__).parent / "graph.yaml").read_text())
graph["spec"]["components"][1]["replicas"] = config.get_int("decodeReplicas") or 1
pulumi.log.warn("a warning of the program itself")
DynamoGraphDeployment("beta", graph, namespace="llm")
'''


@pytest.fixture
def program(tmp_path: Path) -> Path:
    directory = tmp_path / "prog"
    directory.mkdir()
    (directory / "Pulumi.yaml").write_text("name: prog\nruntime: python\n")
    (directory / "Pulumi.dev.yaml").write_text("config: {}\n")
    (directory / "__main__.py").write_text(PROGRAM)
    (directory / "graph.yaml").write_text(BETA)
    return directory


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "g.yaml"
    path.write_text(BETA)
    return path


@pytest.mark.parametrize("flags", [["--mode", "operator"], ["-n", "x"], ["-p", "p.yaml"], ["--mode", "render"]])
def test_yaml_flags_with_a_program_are_a_usage_error(program, capsys, flags) -> None:
    code, out, err = run_cli(capsys, "preview", str(program), *flags)
    assert code == 64 and out == ""
    assert "to a YAML file; a Pulumi program says them itself" in err


@pytest.mark.parametrize("flags", [["--stack", "prod"], ["--config", "a=b"]])
def test_program_flags_with_a_yaml_file_are_a_usage_error(graph_file, capsys, flags) -> None:
    code, _, err = run_cli(capsys, "preview", str(graph_file), *flags)
    assert code == 64 and "applies to a Pulumi program" in err


def test_diff_of_a_program_and_a_file_takes_the_flags_of_both(program, graph_file, capsys) -> None:
    code, _, err = run_cli(capsys, "diff", str(graph_file), str(program), "-n", "llm", "--stack", "dev")
    assert code == 0, err


def test_a_stack_without_its_file_and_an_unread_config_key_are_warned(program, capsys) -> None:
    code, _, err = run_cli(capsys, "preview", str(program), "--stack", "prdo", "--config", "decodeReplica=4",
                           "--config", "aws:region=us-west-2")
    assert code == 0
    assert ("warning: --stack prdo: there is no Pulumi.prdo.yaml beside the program, so its config is only "
            "Pulumi.yaml's defaults and --config (stack files here: Pulumi.dev.yaml)") in err
    assert ('warning: --config decodeReplica=4: the program never reads prog:decodeReplica (it reads: '
            'decodeReplicas) (did you mean "decodeReplicas"?)') in err
    assert "aws:region" not in err  # a provider's key: read by the provider, not the program


def test_each_warning_once_and_the_programs_own_log(program, capsys) -> None:
    code, _, err = run_cli(capsys, "preview", str(program))
    assert code == 0
    assert err.count("a warning of the program itself") == 1


@pytest.mark.parametrize("command", ["validate", "preview", "diff"])
def test_format_is_output_in_every_command_that_has_one(graph_file, capsys, command) -> None:
    argv = [command, str(graph_file), *([str(graph_file)] if command == "diff" else []), "--format", "json"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and json.loads(out)


def test_an_unknown_option_is_named_before_a_missing_argument(capsys) -> None:
    code, _, err = run_cli(capsys, "wait", "--hel")
    assert code == 64
    assert 'unrecognized arguments: --hel (did you mean "--help"?)' in err
    assert "required" not in err


def test_inline_yaml_that_starts_with_dashes_is_no_option(capsys) -> None:
    code, _, err = run_cli(capsys, "validate", "--inline", "---\n" + BETA)
    assert code == 0, err


def test_the_top_level_help_says_diff_takes_programs(capsys) -> None:
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "between two graph files or Pulumi programs" in " ".join(out.split())


@pytest.mark.parametrize("command", ["preview", "diff"])
def test_json_output_of_an_invalid_graph_is_json(tmp_path, capsys, command) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BETA.replace("replicas: 2", "replicas: -2"))
    argv = [command, str(bad), *([str(bad)] if command == "diff" else []), "-o", "json"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and "is invalid" in err
    first = json.loads(out)["errors"][0]
    assert first["path"] == "spec.components[1].replicas" and first["line"] == 17 and first["file"] == str(bad)
    assert first["kind"] == "DynamoGraphDeployment" and first["name"] == "beta" and first["value"] == -2


def test_json_output_of_an_unreadable_input_is_json(tmp_path, capsys) -> None:
    code, out, _ = run_cli(capsys, "preview", str(tmp_path / "missing.yaml"), "-o", "json")
    assert code == 1 and json.loads(out)["errors"][0]["type"] == "InputError"


def test_the_planner_objects_of_a_graph_without_a_planner_are_explained(graph_file, capsys) -> None:
    code, out, _ = run_cli(capsys, "preview", str(graph_file))
    assert code == 0
    assert "note: planner-serviceaccount and its RoleBinding are created although the graph has no planner" in out
    code, out, _ = run_cli(capsys, "preview", str(graph_file), "-o", "json")
    assert json.loads(out)["graphs"][0]["notes"][0].startswith("planner-serviceaccount and its RoleBinding")


def test_a_typed_spec_without_a_name_is_not_an_empty_quoted_name(tmp_path, capsys) -> None:
    directory = tmp_path / "typed"
    directory.mkdir()
    (directory / "Pulumi.yaml").write_text("name: typed\nruntime: python\n")
    (directory / "__main__.py").write_text(
        "from dynamo_pulumi.api import GraphSpec\nGraphSpec(backend_framework='vllmm', components=[])\n")
    code, _, err = run_cli(capsys, "preview", str(directory))
    assert code == 1
    assert 'error: The GraphSpec is invalid:' in err and '"" is invalid' not in err
    assert 'backend_framework: Unsupported value: "vllmm"' in err


def test_a_missing_sdk_says_where_to_install_it(tmp_path, capsys) -> None:
    directory = tmp_path / "needs-sdk"
    directory.mkdir()
    (directory / "Pulumi.yaml").write_text("name: needs-sdk\nruntime: python\n")
    (directory / "requirements.txt").write_text("pulumi-nosuch\n")
    (directory / "__main__.py").write_text("import pulumi_nosuch\n")
    code, _, err = run_cli(capsys, "preview", str(directory))
    assert code == 1
    assert "No module named 'pulumi_nosuch'; the program runs in this Python" in err
    assert f"cd {directory} && " in err and "-m pip install -r requirements.txt" in err
