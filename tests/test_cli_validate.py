"""``dynamo-pulumi validate``: summaries, one line per error, exit codes, never a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dynamo_pulumi.cli import main

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"


def graph_yaml(name: str = "g", image: str = IMAGE, extra_spec: str = "", backend: str = "vllm") -> str:
    return f"""\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: {name}
spec:
  backendFramework: {backend}
{extra_spec}  components:
    - name: frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: {image}
    - name: worker
      type: worker
      podTemplate:
        spec:
          containers:
            - name: main
              image: {image}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["validate", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_valid_graph_prints_a_summary_and_exits_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "g.yaml", graph_yaml())
    code, out, err = run_cli(capsys, path)
    assert code == 0
    assert out == f'{path}: DynamoGraphDeployment "g" is valid (create; 2 components, 0 warnings)\n'
    assert err == ""


def test_companion_documents_are_ignored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = graph_yaml() + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    code, out, _ = run_cli(capsys, write(tmp_path, "g.yaml", text))
    assert code == 0 and out.count("is valid") == 1


def test_invalid_graph_prints_every_error_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path, "bad.yaml", graph_yaml(image="img:latest", extra_spec="  priorityClassName: high\n")
    )
    code, out, err = run_cli(capsys, path)
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0] == 'error: The DynamoGraphDeployment "g" is invalid:'
    assert lines[1] == (
        f"{path}:7:3: spec.priorityClassName: Forbidden: requires the Grove pathway, but workload provider "
        '"component" is selected'
    )
    assert len(lines) == 4  # header, priority class, one runtimeVersionOverride error per component
    assert all(line.startswith(f"{path}:") for line in lines[1:])


def test_grove_platform_file_is_honoured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "g.yaml", graph_yaml(extra_spec="  priorityClassName: high\n"))
    platform = write(tmp_path, "platform.yaml", "orchestrators:\n  grove:\n    enabled: true\n")
    code, _, _ = run_cli(capsys, path, "--platform", platform)
    assert code == 0


def test_old_file_turns_the_check_into_an_update_refused_by_the_webhook_in_operator_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path, "old.yaml", graph_yaml())
    new = write(tmp_path, "new.yaml", graph_yaml(backend="sglang"))
    code, out, err = run_cli(capsys, new, "--old", old, "--mode", "operator")
    assert code == 1 and out == ""
    assert f"{new}: warning: Changing spec.backendFramework may cause unexpected behavior" in err
    assert (
        f'{new}:6:3: spec.backendFramework: Invalid value: "sglang": is immutable and cannot be changed after creation'
        in err
    )


def test_unchanged_update_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path, "old.yaml", graph_yaml())
    code, out, _ = run_cli(capsys, old, "--old", old)
    assert code == 0 and "is valid (update;" in out


def test_unreadable_and_malformed_files_fail_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = write(tmp_path, "broken.yaml", "a: [\n")
    good = write(tmp_path, "g.yaml", graph_yaml())
    code, out, err = run_cli(capsys, broken, str(tmp_path / "missing.yaml"), good)
    assert code == 1
    assert "is valid" in out  # the good file is still checked
    lines = err.splitlines()
    assert lines[0].startswith(f"{broken}:2:1: invalid YAML:")
    assert lines[1] == f"{tmp_path / 'missing.yaml'}: no such file"
    assert "Traceback" not in err


def test_unknown_dynamo_kind_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path, "k.yaml", "apiVersion: nvidia.com/v1beta1\nkind: DynamoThing\nmetadata: {name: x}\n"
    )
    code, _, err = run_cli(capsys, path)
    assert code == 1
    assert err.startswith(f"{path}: unknown kind 'DynamoThing'")


def test_file_without_dynamo_objects_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    code, _, err = run_cli(capsys, path)
    assert code == 1
    assert (
        err
        == f"{path}: no DynamoGraphDeployment, DynamoComponentDeployment or DynamoGraphDeploymentScalingAdapter found\n"
    )


def test_schema_errors_are_printed_like_admission_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = graph_yaml().replace("type: worker", "type: worker\n      replicas: -1")
    path = write(tmp_path, "s.yaml", text)
    code, _, err = run_cli(capsys, path)
    assert code == 1
    lines = err.splitlines()
    assert lines[0] == 'error: The DynamoGraphDeployment "g" is invalid:'
    assert lines[1].startswith(f"{path}:17:7: spec.components[1].replicas: Invalid value: -1")


def test_bad_platform_file_fails_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "g.yaml", graph_yaml())
    platform = write(tmp_path, "p.yaml", "orchestrators: [\n")
    code, out, err = run_cli(capsys, path, "--platform", platform)
    assert code == 1 and out == ""
    assert err.startswith(f"{platform}:2:1: platform file: invalid YAML")
    assert "\n" not in err.rstrip("\n")


def test_every_corpus_file_gets_an_answer_without_a_traceback(
    conformance_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = sorted(str(p) for p in (conformance_dir / "corpus").glob("*.yaml"))
    assert files
    # The Grove test input is multinode: deployable only where a multinode orchestrator runs.
    platform = write(tmp_path, "platform.yaml", "orchestrators: {grove: {enabled: true}, lws: {enabled: true}}\n")
    code = main(["validate", "--platform", platform, *files])
    captured = capsys.readouterr()
    assert code == 1  # published samples include placeholders such as "my-tag"
    lines = (captured.out + captured.err).splitlines()
    heads = (line.removeprefix("error: ").split(": ", 1)[0] for line in lines if ": " in line)
    answered = {re.sub(r":\d+:\d+$", "", head).split(" (document ")[0] for head in heads}
    assert set(files) <= answered
    assert "Traceback" not in captured.err
    # The operator's own controller test inputs are deployable.
    for name in (
        "deploy-operator-testdata-dgd-grove-input.yaml",
        "deploy-operator-testdata-dcd-lws-input.yaml",
    ):
        assert f"{conformance_dir / 'corpus' / name}: " in captured.out


def test_a_bad_document_does_not_hide_the_others(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = graph_yaml(name="bad").replace("type: worker", "type: worker\n      replicas: -1")
    path = write(tmp_path, "two.yaml", bad + "---\n" + graph_yaml(name="good"))
    code, out, err = run_cli(capsys, path)
    assert code == 1
    assert (
        out
        == f'{path} (document 2): DynamoGraphDeployment "good" is valid (create; 2 components, 0 warnings)\n'
    )
    assert err.splitlines()[0] == f'error: {path} (document 1): The DynamoGraphDeployment "bad" is invalid:'


ALPHA_GRAPH = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: alpha
spec:
  backendFramework: vllm
  services:
    Frontend:
      componentType: frontend
      dynamoNamespace: alpha
      extraPodSpec:
        mainContainer:
          image: {image}
"""


def test_alpha_files_report_at_alpha_paths_with_compat_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path, "a.yaml", ALPHA_GRAPH.format(image=IMAGE))
    code, out, err = run_cli(capsys, good)
    assert code == 0 and '"alpha" is valid (create; 1 component, 1 warning)' in out
    assert err.startswith(
        f"{good}: warning: spec.services[Frontend].dynamoNamespace is deprecated and ignored."
    )
    bad = write(tmp_path, "b.yaml", ALPHA_GRAPH.format(image="img:latest"))
    code, _, err = run_cli(capsys, bad)
    assert code == 1
    assert (
        f"{bad}:8:5: spec.services[Frontend].runtimeVersionOverride: Required value: is required when the specified "
        "main container image has no parseable semantic-version tag; the image \"img:latest\" has no X.Y.Z tag: set "
        'runtimeVersionOverride to the Dynamo runtime version that image runs (for example "1.3.1"), or use an '
        "image tagged with it"
    ) in err.splitlines()
