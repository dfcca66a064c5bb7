"""Messages that say the fix: a graph given as the platform file, a Helm values file, a misspelt
platform key, a multinode graph without an orchestrator, and ``render`` of a graph only operator
mode can deploy (printed, with a warning on stderr)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_support import BETA, run_cli, write

HELM_VALUES = "dynamo-operator:\n  controllerManager: {}\ngrove:\n  enabled: true\n"
MULTINODE = BETA.replace("      replicas: 2\n", "      replicas: 2\n      multinode: {nodeCount: 2}\n")


def test_a_graph_given_as_the_platform_file_says_the_arguments_are_swapped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = write(tmp_path, "g.yaml", BETA)
    code, _, err = run_cli(capsys, "validate", "-p", graph, graph)
    assert code == 1
    assert err.splitlines() == [
        f"{graph}: platform file: this file holds a DynamoGraphDeployment, not platform settings: the graph is the "
        "FILE argument and -p/--platform (platform= of the Pulumi components) takes the operator configuration and "
        "cluster facts; are the two arguments swapped?"
    ]


@pytest.mark.parametrize("where", ["graph", "platform"])
def test_helm_values_are_named_as_such_wherever_they_are_given(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = write(tmp_path, "values.yaml", HELM_VALUES)
    graph = write(tmp_path, "g.yaml", BETA)
    argv = ["render", values] if where == "graph" else ["render", "-p", values, graph]
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == ""
    assert "this looks like Helm values of the dynamo-platform chart (keys dynamo-operator, grove)" in err
    assert "in the operator configuration's key names (for example orchestrators.grove.enabled: true)" in err
    assert ("object has no apiVersion; " in err) == (where == "graph")


def test_platform_settings_given_as_the_graph_say_where_they_go(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    platform = write(tmp_path, "platform.yaml", "orchestrators: {grove: {enabled: true}}\n")
    code, _, err = run_cli(capsys, "render", platform)
    assert code == 1
    assert err.strip().endswith(
        "object has no apiVersion; this looks like platform settings, not a Dynamo object: give it with "
        "-p/--platform (platform= of the Pulumi components)"
    )


def test_a_misspelt_platform_key_names_the_nearest_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    platform = write(tmp_path, "platform.yaml", "orchestrator:\n  grove: {enabled: true}\norchestrators:\n  lws: {enable: true}\n")
    graph = write(tmp_path, "g.yaml", BETA)
    code, _, err = run_cli(capsys, "validate", "-p", platform, graph)
    assert code == 1
    assert 'unknown field "orchestrator" (did you mean "orchestrators"?)' in err
    assert 'unknown field "orchestrators.lws.enable" (did you mean "enabled"?)' in err


def test_a_multinode_graph_without_an_orchestrator_names_the_keys_that_enable_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = write(tmp_path, "g.yaml", MULTINODE)
    code, _, err = run_cli(capsys, "validate", graph)
    assert code == 1
    assert "neither Grove nor LeaderWorkerSet is enabled" in err
    assert (
        "enabled in the platform settings (the file given as -p/--platform, or platform= of the Pulumi components): "
        "orchestrators.grove.enabled: true (Grove) or orchestrators.lws.enabled: true (LeaderWorkerSet)"
    ) in err
    platform = write(tmp_path, "platform.yaml", "orchestrators: {lws: {enabled: true}}\n")
    assert "neither Grove nor LeaderWorkerSet" not in run_cli(capsys, "validate", "-p", platform, graph)[2]


PLANNER_FILES = ["sglang-v1beta1-disagg_planner.yaml", "vllm-v1beta1-disagg_planner.yaml"]


@pytest.mark.parametrize("name", PLANNER_FILES)
def test_render_of_a_graph_only_operator_mode_deploys_prints_it_and_warns(
    name: str, conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(conformance_dir / "corpus" / name)
    code, out, err = run_cli(capsys, "render", path)
    assert code == 0 and "kind: Deployment" in out
    (warning,) = [line for line in err.splitlines() if "only operator mode" in line]
    assert warning.startswith(f"{path}: warning: only operator mode can deploy this graph: spec.components[")
    assert warning.endswith("--mode operator) on a cluster running the Dynamo operator")
    assert run_cli(capsys, "validate", path)[0] == 1  # validate refuses what render prints
    code, _, err = run_cli(capsys, "render", "--mode", "operator", path)
    assert code == 0 and "only operator mode" not in err


def test_the_hints_answer_only_for_what_they_recognise() -> None:
    from dynamo_pulumi.model.input_hints import (
        graph_given_as_platform_hint,
        helm_values_hint,
        platform_given_as_graph_hint,
    )

    # Helm values: recognised by the chart's top-level keys, never on a Kubernetes object
    assert helm_values_hint({"grove": {"enabled": True}}).startswith(
        "this looks like Helm values of the dynamo-platform chart (keys grove), not a Dynamo object"
    )
    assert helm_values_hint({"apiVersion": "v1", "global": {}}) == ""
    assert helm_values_hint({"orchestrators": {}}) == "" and helm_values_hint(["grove"]) == ""
    # a graph where the platform goes: by its kind
    assert graph_given_as_platform_hint({"kind": "DynamoComponentDeployment"}).startswith(
        "this file holds a DynamoComponentDeployment, not platform settings"
    )
    assert graph_given_as_platform_hint({"kind": "ConfigMap"}) == "" and graph_given_as_platform_hint("x") == ""
    # platform settings where the graph goes: every key a platform key, no object header
    assert platform_given_as_graph_hint({"orchestrators": {}, "operatorVersion": "1.0.0"}).startswith(
        "this looks like platform settings"
    )
    for data in ({}, {"orchestrators": {}, "kind": "X"}, {"orchestrators": {}, "apiVersion": "v1"},
                 {"orchestrators": {}, "spec": {}}, ["orchestrators"]):
        assert platform_given_as_graph_hint(data) == "", data
