"""Render mode refuses what needs the operator (a planner on the Kubernetes API, LPX, a checkpoint),
each error naming operator mode; operator mode accepts them; every planner graph of the corpus is
refused in render mode."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
import yaml

from dynamo_pulumi.errors import GraphValidationError, InputError
from dynamo_pulumi.loading.documents import load_documents, load_graph, parse_yaml
from dynamo_pulumi.model.deploy_mode import check_mode, operator_only_errors
from dynamo_pulumi.planning.plan import plan_graph

# Not `from conftest import CONFORMANCE`: with tests/e2e/conftest.py collected first, the module
# named conftest is that one (both directories are on sys.path), and collection fails.
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "corpus"
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"


def planner_graphs() -> list[str]:
    """Corpus files INDEX.tsv lists with the ``planner`` feature."""
    index = CORPUS / "INDEX.tsv"
    if not index.is_file():
        return []
    with index.open() as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return sorted(r["file"] for r in rows if "planner" in (r.get("features") or "").split(";"))


def _graph(*components):
    return load_graph({
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
        "spec": {"backendFramework": "vllm", "components": list(components)},
    })


def _planner(args):
    return {"name": "Planner", "type": "planner", "podTemplate": {"spec": {"containers": [
        {"name": "main", "image": "dynamo-planner:1.3.1", "command": ["python3", "-m", "dynamo.planner"], "args": args}
    ]}}}


def test_a_kubernetes_planner_is_refused_with_operator_mode_advice():
    [error] = operator_only_errors(_graph(_planner(["--config", '{"environment": "kubernetes"}'])))
    assert error.path == "spec.components[0].podTemplate"
    assert "scales through the Kubernetes API" in error.detail and 'mode="operator"' in error.fix


def test_a_virtual_planner_can_be_rendered():
    assert operator_only_errors(_graph(_planner(["--config", '{"environment": "virtual"}']))) == []


def test_an_lpx_component_and_a_checkpoint_are_refused_naming_operator_mode():
    lpx = {"name": "L", "type": "lpx", "lpx": {"buildId": "b"}}
    ckpt = {"name": "W", "type": "worker", "experimental": {"checkpoint": {"enabled": True}},
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}
    errors = operator_only_errors(_graph(lpx, ckpt))
    assert [e.path for e in errors] == ["spec.components[0].type", "spec.components[1].experimental.checkpoint.enabled"]
    assert all('mode="operator"' in e.fix for e in errors)


def test_mode_must_be_render_or_operator():
    assert check_mode("operator") == "operator"
    with pytest.raises(InputError, match="mode must be one of 'render', 'operator'"):
        check_mode("helm")


def test_the_corpus_lists_planner_graphs():
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    assert len(planner_graphs()) >= 5


def filled(text: str) -> str:
    """The manifest with its documented placeholders filled as a user would (INDEX.tsv
    ``placeholder:image`` / ``placeholder:${VAR}``): a released tag for ``my-tag`` and
    ``${VERSION}``, a released runtime image for ``${...IMAGE}``."""
    text = text.replace(":my-tag", ":1.3.1").replace("${VERSION}", "1.3.1")
    text = re.sub(r"\$\{[A-Z_]*IMAGE\}", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1", text)
    return re.sub(r"\$\{([A-Z_]+)\}", lambda m: m.group(1).lower().replace("_", "-"), text)


#: Published planner manifests the webhook itself refuses, whatever the mode (not placeholders).
INADMISSIBLE = {"power-aware-example": "nvidia.com/gpu.product"}
PLATFORM = {"orchestrators": {"grove": {"enabled": True}}}


@pytest.mark.parametrize("name", planner_graphs() or ["<no corpus>"])
def test_every_corpus_planner_graph_is_refused_in_render_mode_and_planned_in_operator_mode(name):
    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    documents = parse_yaml(filled((CORPUS / name).read_text()))
    for loaded in load_documents(documents).graphs:
        if not any(c.type == "planner" for c in loaded.object.components):
            continue
        with pytest.raises(GraphValidationError, match='deploy it with mode="operator"'):
            plan_graph(loaded.object, PLATFORM, "ci", mode="render")
        if loaded.object.name in INADMISSIBLE:
            with pytest.raises(GraphValidationError, match=re.escape(INADMISSIBLE[loaded.object.name])) as refused:
                plan_graph(loaded.object, PLATFORM, "ci", mode="operator")
            assert 'mode="operator"' not in str(refused.value)
            continue
        plan = plan_graph(loaded.object, PLATFORM, "ci", mode="operator")
        assert plan.mode == "operator" and plan.all_objects()


def test_render_still_prints_what_the_operator_would_create_for_a_planner_graph(tmp_path, capsys):
    from dynamo_pulumi.cli import main

    path = tmp_path / "planner.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
        "spec": {"backendFramework": "vllm", "components": [_planner(["--config", '{"environment": "kubernetes"}'])]},
    }))
    assert main(["render", str(path)]) == 0
    documents = list(yaml.safe_load_all(capsys.readouterr().out))
    assert ("Deployment", "g-planner") in {(d["kind"], d["metadata"]["name"]) for d in documents}


@pytest.mark.parametrize("name", planner_graphs() or ["<no corpus>"])
def test_every_corpus_planner_file_previews_from_the_cli_in_operator_mode_and_is_refused_in_render_mode(
    name, tmp_path, capsys
):
    """The same files as a user runs them: every graph of a multi-graph file is previewed."""
    from dynamo_pulumi.cli import main

    if not CORPUS.is_dir():
        pytest.skip("../shared/conformance/corpus is not present on this machine")
    text = filled((CORPUS / name).read_text())
    if any(graph in text for graph in INADMISSIBLE):
        pytest.skip(f"{name}: the webhook refuses it in both modes (asserted above)")
    path = tmp_path / name
    path.write_text(text)
    platform = tmp_path / "platform.yaml"
    platform.write_text(yaml.safe_dump(PLATFORM))
    argv = ["preview", str(path), "-p", str(platform), "-n", "ci"]
    assert main([*argv, "--mode", "render"]) == 1
    assert 'deploy it with mode="operator"' in capsys.readouterr().err
    assert main([*argv, "--mode", "operator"]) == 0
    out = capsys.readouterr().out
    graphs = [g.object.name for g in load_documents(parse_yaml(text)).graphs]
    assert graphs and all(f"ci/{graph}" in out for graph in graphs)
    assert out.count("predicted expansion (created by the operator") == len(graphs)
