"""Names and labels the API server would refuse fail the render; a bad namespace is an input error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.cli import main
from dynamo_pulumi.errors import InputError, RenderError
from dynamo_pulumi.floor.kube_names import (
    check_namespace,
    dns1035_label_problems,
    dns1123_label_problems,
    dns1123_subdomain_problems,
    label_key_problems,
    label_value_problems,
    path_segment_problems,
)
from dynamo_pulumi.render import render_graph
from dynamo_pulumi.render.name_checks import NameSources, check_rendered_names, object_problems

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"


def graph(name: str = "demo", labels: dict[str, str] | None = None, worker: str = "decode") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "backendFramework": "vllm",
        "components": [
            {"name": "Frontend", "type": "frontend",
             "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}},
            {"name": worker, "type": "decode",
             "podTemplate": {"spec": {"containers": [{
                 "name": "main", "image": IMAGE, "command": ["python3", "-m", "dynamo.vllm"],
                 "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}},
        ],
    }
    if labels:
        spec["labels"] = labels
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": name}, "spec": spec}


def render_error(document: dict[str, Any], namespace: str = "ns") -> str:
    with pytest.raises(RenderError) as info:
        render_graph(DynamoGraphDeployment.model_validate(document), None, namespace)
    return str(info.value)


# --- the rules ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["a", "abc-1", "a" * 63])
def test_valid_dns1035_labels(value: str) -> None:
    assert dns1035_label_problems(value) == []


@pytest.mark.parametrize("value", ["1abc", "a" * 64, "Abc", "a.b", "a-", ""])
def test_invalid_dns1035_labels(value: str) -> None:
    assert dns1035_label_problems(value)


def test_dns1123_label_allows_a_leading_digit_but_not_dots_or_64_characters() -> None:
    assert dns1123_label_problems("1abc") == []
    assert dns1123_label_problems("a.b")
    assert dns1123_label_problems("a" * 64) == ["must be no more than 63 characters"]


def test_dns1123_subdomain_allows_dots_up_to_253_characters() -> None:
    assert dns1123_subdomain_problems("a.b-c." + "d" * 63) == []
    assert dns1123_subdomain_problems("a" * 254) == ["must be no more than 253 characters"]
    assert dns1123_subdomain_problems("a_b")


def test_rbac_names_are_path_segments() -> None:
    assert path_segment_problems("Some:Name.ok") == []
    assert path_segment_problems("a/b") == ["may not contain '/'"]
    assert path_segment_problems("..") == ["may not be '..'"]


@pytest.mark.parametrize("value", ["", "A_b.c-1", "a" * 63])
def test_valid_label_values(value: str) -> None:
    assert label_value_problems(value) == []


@pytest.mark.parametrize("value", ["a" * 64, "-a", "a b", "a/b"])
def test_invalid_label_values(value: str) -> None:
    assert label_value_problems(value)


@pytest.mark.parametrize("key", ["app", "nvidia.com/dynamo-component", "a.b/C_d"])
def test_valid_label_keys(key: str) -> None:
    assert label_key_problems(key) == []


@pytest.mark.parametrize("key", ["/a", "a/", "a/b/c", "Bad.Prefix/x", "x/" + "a" * 64, "a b"])
def test_invalid_label_keys(key: str) -> None:
    assert label_key_problems(key)


# --- after rendering -----------------------------------------------------------------------------


def test_an_80_character_graph_name_fails_with_every_problem_in_one_error() -> None:
    name = "g" * 80
    message = render_error(graph(name))
    assert message.count("\n* ") >= 4
    assert f'Service "{name}-frontend": metadata.name' in message
    assert "must be no more than 63 characters [DNS-1035 label]" in message
    assert "[label value]" in message and "nvidia.com/dynamo-graph-deployment-name" in message
    assert f'shorten the DynamoGraphDeployment name metadata.name "{name}" (80 characters)' in message


def test_a_long_component_name_names_the_component_field_to_shorten() -> None:
    worker = "w" * 60
    message = render_error(graph("demo", worker=worker))
    assert f'component name spec.components[1].name "{worker}" (60 characters)' in message
    assert "spec.components[0]" not in message


def test_a_graph_name_that_fits_a_subdomain_but_not_a_service_name_is_refused() -> None:
    """63 characters is a fine DGD name, but ``<name>-frontend`` is no longer a DNS-1035 label."""
    message = render_error(graph("d" * 55))
    assert "Service" in message and "[DNS-1035 label]" in message


def test_an_invalid_graph_label_value_is_reported_with_its_key() -> None:
    message = render_error(graph("demo", labels={"team": "a b"}))
    assert "metadata.labels[team] value 'a b'" in message
    assert "set it as written in the graph" in message


def test_short_names_render() -> None:
    result = render_graph(DynamoGraphDeployment.model_validate(graph("demo")), None, "ns")
    assert any(o["kind"] == "Service" for o in result.objects)


def test_pulumi_placeholders_and_non_strings_are_skipped() -> None:
    token = "__dynamo_pulumi_output_0123456789ab__"
    obj = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": token + "-" + "x" * 70, "labels": {"a": token * 3, "b": 5}},
        "spec": {"selector": {"c": None}},
    }
    assert object_problems(obj, NameSources("DynamoGraphDeployment", "demo")) == []


def test_kind_specific_name_rules() -> None:
    sources = NameSources("DynamoGraphDeployment", "demo")
    long_label = "x" * 70
    assert object_problems({"kind": "Deployment", "metadata": {"name": long_label}}, sources) == []
    assert object_problems({"kind": "Service", "metadata": {"name": long_label}}, sources)
    assert object_problems({"kind": "Role", "metadata": {"name": "Bad:Name"}}, sources) == []
    assert object_problems({"kind": "ConfigMap", "metadata": {"name": "Bad:Name"}}, sources)


def test_check_rendered_names_raises_nothing_for_valid_objects() -> None:
    check_rendered_names([{"kind": "ConfigMap", "metadata": {"name": "ok", "labels": {"a": "b"}}}],
                         NameSources("DynamoGraphDeployment", "demo"))


def test_pod_template_and_selector_labels_are_checked() -> None:
    obj = {"kind": "Deployment", "metadata": {"name": "ok"},
           "spec": {"selector": {"matchLabels": {"k": "-bad"}},
                    "template": {"metadata": {"labels": {"bad key!": "v"}}}}}
    problems = object_problems(obj, NameSources("DynamoGraphDeployment", "demo"))
    assert any("spec.selector.matchLabels[k]" in p for p in problems)
    assert any("spec.template.metadata.labels key 'bad key!'" in p for p in problems)


# --- the target namespace -------------------------------------------------------------------------


@pytest.mark.parametrize("namespace", ["Bad_NS!", "a" * 64, "has.dot", "-a"])
def test_render_graph_refuses_an_invalid_namespace(namespace: str) -> None:
    with pytest.raises(InputError, match="DNS-1123 label") as info:
        render_graph(DynamoGraphDeployment.model_validate(graph()), None, namespace)
    assert repr(namespace) in str(info.value)


def test_a_graph_metadata_namespace_is_checked_too() -> None:
    document = graph()
    document["metadata"]["namespace"] = "Bad_NS"
    with pytest.raises(InputError, match="'Bad_NS'"):
        render_graph(DynamoGraphDeployment.model_validate(document))


def test_check_namespace_accepts_labels_and_none() -> None:
    assert check_namespace("team-a") == "team-a"
    assert check_namespace(None) is None


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump(graph()))
    return path


@pytest.mark.parametrize("command", ["render", "preview", "diff"])
def test_clis_refuse_an_invalid_namespace_before_doing_anything(
    command: str, graph_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(graph_file)] * (2 if command == "diff" else 1)
    code = main([command, *files, "--namespace", "Bad_NS!"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert "namespace 'Bad_NS!' is not a valid Kubernetes namespace (DNS-1123 label)" in err


def test_render_cli_reports_long_names_without_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump(graph("g" * 80)))
    code = main(["render", str(path)])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert "the API server would refuse" in err and "Traceback" not in err
