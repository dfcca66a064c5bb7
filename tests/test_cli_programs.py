"""``preview PROGRAM`` and ``diff`` of programs: a user's own Pulumi program run offline under our
mocks, reviewed in CI without a cloud account (issue 18, item 6), and the README's "Test your
program" snippet run as written."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dynamo_pulumi.cli import main
from dynamo_pulumi.user_program import preview_program, resolve_program, stack_config

REPO = Path(__file__).resolve().parent.parent
PROGRAM = REPO / "tests" / "fixtures" / "programs" / "disagg"
EKS = REPO / "examples" / "eks-gpu-node-group"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def copy_program(tmp_path: Path, name: str = "new") -> Path:
    target = tmp_path / name
    shutil.copytree(PROGRAM, target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


# --- preview PROGRAM ----------------------------------------------------------------------------------


def test_preview_of_a_program_directory_prints_its_tree_gpus_and_product(capsys):
    code, out, err = run_cli(capsys, "preview", str(PROGRAM))
    assert code == 0, err
    assert "dynamo:index:DynamoGraphDeployment" in out and "llm/vllm-disagg-decode" in out
    assert "GPUs requested:   9" in out  # decode: 2 replicas (Pulumi.dev.yaml) x 4 GPUs, prefill 1
    assert "  decode: 8 nvidia.com/gpu (NVIDIA-H100-80GB-HBM3)" in out


def test_preview_of_the_programs_py_file_is_the_same_as_of_its_directory(capsys):
    _, by_dir, _ = run_cli(capsys, "preview", str(PROGRAM), "-o", "json")
    _, by_file, _ = run_cli(capsys, "preview", str(PROGRAM / "__main__.py"), "-o", "json")
    assert json.loads(by_dir) == json.loads(by_file)


def test_config_flag_overrides_the_stack_file(capsys):
    code, out, _ = run_cli(capsys, "preview", str(PROGRAM), "--config", "decodeReplicas=3")
    assert code == 0 and "GPUs requested:   13" in out


def test_another_stack_reads_its_own_file_else_the_project_default(tmp_path, capsys):
    program = copy_program(tmp_path)
    (program / "Pulumi.prod.yaml").write_text('config:\n  disagg-h100:decodeReplicas: "4"\n')
    assert "GPUs requested:   17" in run_cli(capsys, "preview", str(program), "--stack", "prod")[1]
    assert "GPUs requested:   5" in run_cli(capsys, "preview", str(program), "--stack", "qa")[1]  # default 1


def test_stack_config_qualifies_keys_and_hides_encrypted_values(tmp_path):
    program = copy_program(tmp_path)
    (program / "Pulumi.dev.yaml").write_text(
        "config:\n  aws:region: us-east-2\n  disagg-h100:token:\n    secure: AAABAMZ\n  disagg-h100:sizes: [1, 2]\n"
    )
    config = stack_config(resolve_program(str(program)), "dev", ["image=x:1", "gcp:zone=z"])
    assert config == {
        "disagg-h100:decodeReplicas": "1", "aws:region": "us-east-2", "disagg-h100:token": "offline-secret",
        "disagg-h100:sizes": "[1, 2]", "disagg-h100:image": "x:1", "gcp:zone": "z",
    }


def test_preview_json_of_a_program_has_integers_no_internals_and_the_graph(capsys):
    code, out, _ = run_cli(capsys, "preview", str(PROGRAM), "-o", "json")
    assert code == 0
    document = json.loads(out)
    assert not re.search(r"\d\.0\b", out)  # "replicas": 2, "containerPort": 8000, never 2.0
    assert "__provider" not in out and "gASV" not in out  # no pickled dynamic provider
    decode = next(r for r in document["resources"]
                  if r["type"] == "kubernetes:apps/v1:Deployment" and r["name"] == "llm/vllm-disagg-decode")
    assert decode["inputs"]["spec"]["replicas"] == 2 and isinstance(decode["inputs"]["spec"]["replicas"], int)
    (graph,) = document["graphs"]
    assert graph["gpus"]["total"] == 9
    assert {"component": "decode", "gpus": 8, "resource": "nvidia.com/gpu",
            "product": "NVIDIA-H100-80GB-HBM3"} in graph["gpus"]["components"]
    assert graph["name"] == "vllm-disagg" and graph["namespace"] == "llm" and graph["warnings"] == []


def test_preview_of_the_eks_example_prints_the_whole_tree_with_its_cloud_resources(capsys):
    code, out, err = run_cli(capsys, "preview", str(EKS))
    assert code == 0, err
    for cloud in ("eks:index:Cluster", "eks:index:ManagedNodeGroup", "aws:iam/role:Role",
                  "aws:iam/rolePolicyAttachment:RolePolicyAttachment", "pulumi:providers:kubernetes"):
        assert cloud in out
    assert "dynamo:index:DynamoGraphDeployment" in out and "kubernetes:apps/v1:Deployment" in out
    assert "GPUs requested:   2" in out
    # The node group's label (an Output of the mocked node group) reached the worker's placement.
    code, out, _ = run_cli(capsys, "preview", str(EKS), "-o", "json")
    worker = next(r for r in json.loads(out)["resources"] if r["name"] == "dynamo/vllm-agg-vllmworker"
                  and r["type"] == "kubernetes:apps/v1:Deployment")
    assert worker["inputs"]["spec"]["template"]["spec"]["nodeSelector"] == {"dynamo.nvidia.com/pool": "gpu"}


# --- mistakes in a program ----------------------------------------------------------------------------


def test_an_exception_in_the_program_is_one_error_with_only_the_programs_frames(tmp_path, capsys):
    program = copy_program(tmp_path)
    (program / "helper.py").write_text('def node_group():\n    raise ValueError("no GPU node group named gpu-a")\n')
    edit(program / "__main__.py", "config = pulumi.Config()", "import helper\n\nhelper.node_group()\nconfig = pulumi.Config()")
    code, out, err = run_cli(capsys, "preview", str(program))
    assert code == 1 and out == ""
    assert err.startswith(f"error: {program / '__main__.py'}: the program raised ValueError: no GPU node group named gpu-a")
    assert 'helper.py", line 2, in node_group' in err and "__main__.py" in err
    assert "dynamo_pulumi" not in err and "site-packages" not in err and "runpy" not in err


def test_an_invalid_graph_in_a_program_is_reported_as_for_a_yaml_file(tmp_path, capsys):
    program = copy_program(tmp_path)
    edit(program / "Pulumi.dev.yaml", '"2"', '"-1"')
    code, _, err = run_cli(capsys, "preview", str(program))
    assert code == 1
    assert 'error: The DynamoGraphDeployment "vllm-disagg" is invalid' in err
    assert "spec.components[1].replicas" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("missing.py", "missing.py: no such file or directory"),
        ("empty-dir", "is a directory without a Pulumi.yaml"),
        ("no-main", "the project has no __main__.py to run"),
    ],
)
def test_a_program_that_cannot_be_found_is_a_one_line_error(tmp_path, capsys, argument, message):
    (tmp_path / "empty-dir").mkdir()
    (tmp_path / "no-main").mkdir()
    (tmp_path / "no-main" / "Pulumi.yaml").write_text("name: x\nruntime: python\n")
    code, _, err = run_cli(capsys, "preview", str(tmp_path / argument))
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_a_config_flag_without_a_value_is_an_error(capsys):
    code, _, err = run_cli(capsys, "preview", str(PROGRAM), "--config", "decodeReplicas")
    assert code == 1 and "expected key=value" in err


# --- diff of programs -----------------------------------------------------------------------------------


def test_diff_of_two_program_versions_shows_the_dynamo_changes_and_their_gpu_cost(tmp_path, capsys):
    new = copy_program(tmp_path)
    edit(new / "Pulumi.dev.yaml", '"2"', '"4"')
    code, out, err = run_cli(capsys, "diff", str(PROGRAM), str(new), "--detailed-exitcode")
    assert code == 2, err
    assert "~  update   kubernetes:apps/v1:Deployment llm/vllm-disagg-decode" in out
    assert "spec.replicas: 2 => 4" in out
    assert "+8 nvidia.com/gpu (NVIDIA-H100-80GB-HBM3) on decode: replicas 2 => 4" in out
    assert "GPUs: 9 => 17 (+8)" in out


def test_diff_of_a_program_with_itself_changes_nothing(capsys):
    code, out, _ = run_cli(capsys, "diff", str(PROGRAM), str(PROGRAM), "--detailed-exitcode")
    assert code == 0 and "GPUs: 9 (unchanged)" in out


def test_diff_pairs_a_program_with_a_yaml_file(capsys):
    code, out, _ = run_cli(capsys, "diff", str(PROGRAM / "graph.yaml"), str(PROGRAM), "-n", "llm")
    assert code == 0 and "GPUs: 9 (unchanged)" in out and "0 to update" in out  # the file says replicas: 2 too
    code, out, _ = run_cli(capsys, "diff", str(PROGRAM / "graph.yaml"), str(PROGRAM), "-n", "llm",
                           "--config", "decodeReplicas=1")
    assert code == 0 and "-4 nvidia.com/gpu (NVIDIA-H100-80GB-HBM3) on decode: replicas 2 => 1" in out


def test_a_graph_added_by_a_program_is_created_whole(tmp_path, capsys):
    new = copy_program(tmp_path)
    with (new / "__main__.py").open("a") as program:
        program.write('DynamoGraphDeployment("second", {**graph, "metadata": {"name": "second"}}, namespace="llm")\n')
    code, out, _ = run_cli(capsys, "diff", str(PROGRAM), str(new), "-o", "json")
    assert code == 0
    document = json.loads(out)
    second = [c for c in document["changes"] if c["graph"] == "llm/second"]
    assert second and {c["operation"] for c in second} == {"create"}
    assert not [c for c in document["changes"] if c["graph"] == "llm/vllm-disagg"]
    assert document["gpus"]["delta"] == 9


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    shutil.copytree(PROGRAM, repo / "deploy")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "v1")
    return repo


def test_diff_old_ref_compares_the_work_tree_with_the_program_at_a_revision(repository, capsys):
    edit(repository / "deploy" / "graph.yaml", '"--is-prefill-worker"]', '"--is-prefill-worker", "--block-size", "32"]')
    code, out, err = run_cli(capsys, "diff", "--old-ref", "HEAD", str(repository / "deploy"))
    assert code == 0, err
    assert "+- replace  kubernetes:apps/v1:Deployment llm/vllm-disagg-decode" in out
    assert "because prefill's podTemplate (spec.containers[0].args) changed; every worker's name includes it" in out
    assert "GPUs: 9 (unchanged)" in out


def test_diff_old_ref_errors_name_the_problem(repository, tmp_path, capsys):
    code, _, err = run_cli(capsys, "diff", "--old-ref", "no-such-branch", str(repository / "deploy"))
    assert code == 1 and "--old-ref 'no-such-branch': no such commit, branch or tag" in err
    (repository / "later").mkdir()
    shutil.copytree(PROGRAM, repository / "later" / "p")
    code, _, err = run_cli(capsys, "diff", "--old-ref", "HEAD", str(repository / "later" / "p"))
    assert code == 1 and "did not exist at HEAD" in err
    outside = tmp_path / "outside"
    outside.mkdir()
    code, _, err = run_cli(capsys, "diff", "--old-ref", "HEAD", str(outside))
    assert code == 1 and "needs a path inside a git repository" in err


@pytest.mark.parametrize("argv", [("diff", "a.yaml"), ("diff", "--old-ref", "HEAD", "a.yaml", "b.yaml")],
                         ids=["one-input", "two-inputs-with-old-ref"])
def test_diff_inputs_that_do_not_fit_old_ref_are_usage_errors(argv, capsys):
    code, out, err = run_cli(capsys, *argv)
    assert code == 64 and out == "" and "usage:" in err


# --- the README snippet ---------------------------------------------------------------------------------


def _readme_test_snippet() -> str:
    readme = (REPO / "README.md").read_text()
    section = readme.split("### Test your program", 1)[1].split("\n### ", 1)[0]
    (snippet,) = re.findall(r"```python\n(.*?)```", section, re.S)
    return snippet


def test_the_readmes_test_your_program_snippet_passes_on_the_program_it_describes(tmp_path):
    project = copy_program(tmp_path, "project")
    (project / "tests").mkdir()
    (project / "tests" / "test_program.py").write_text(_readme_test_snippet())
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_program.py"],
        cwd=project, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_preview_program_is_the_library_form_of_preview(tmp_path):
    run = preview_program(PROGRAM, config={"decodeReplicas": "3"})
    assert run.gpus("vllm-disagg") == {"Frontend": 0, "decode": 12, "prefill": 1}
    with pytest.raises(KeyError, match="deploys no graph 'other'"):
        run.graph("other")


def test_preview_of_this_repositorys_own_root_program_keeps_our_modules_loaded(capsys, monkeypatch):
    """The root ``__main__.py`` deploys the graph its stack config names (here the default). The
    program's directory holds ``dynamo_pulumi`` itself: a module of ours the program imports
    stays loaded after the run (the program's own modules are dropped, ours never)."""
    code, out, err = run_cli(capsys, "preview", str(REPO))
    assert code == 0, err
    assert "vllm-agg" in out and "GPUs requested:   1" in out
    ours = ("dynamo_pulumi.program", "dynamo_pulumi.program.graph_program")  # the face and what it loads
    for name in ours:
        monkeypatch.delitem(sys.modules, name)  # so that the program imports them afresh
    run = preview_program(REPO)
    assert [p.name for p in run.plans] == ["vllm-agg"]
    assert all(name in sys.modules for name in ours)
