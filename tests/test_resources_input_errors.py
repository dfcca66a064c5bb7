"""What the components raise for bad input: a pulumi.RunError carrying the field errors, nothing
registered; one owner per Kubernetes object; a nameless spec takes the resource name."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from dynamo_pulumi.errors import GraphValidationError, InputError
from dynamo_pulumi.mocks import Recording, run_program
from dynamo_pulumi.program.graph_program import default_graph_path
from dynamo_pulumi.resources import DGD_TYPE, DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.resources.object_registry import DuplicateObjectError


def example() -> dict[str, Any]:
    return yaml.safe_load(default_graph_path().read_text())


def test_an_invalid_graph_is_a_run_error_with_the_field_errors_and_registers_nothing() -> None:
    doc = example()
    doc["metadata"]["name"] = "Vllm_Agg"
    recording = Recording()
    with pytest.raises(pulumi.RunError) as info:
        run_program(lambda: DynamoGraphDeployment("llama", doc), recording=recording)
    assert isinstance(info.value, GraphValidationError) and info.value.errors[0].path == "metadata.name"
    assert str(info.value).startswith('The DynamoGraphDeployment "Vllm_Agg" is invalid: metadata.name: Invalid value')
    assert recording.resources == []


def test_an_unreadable_spec_is_a_run_error() -> None:
    with pytest.raises(pulumi.RunError) as info:
        run_program(lambda: DynamoGraphDeployment("llama", "missing.yaml"))
    assert isinstance(info.value, InputError) and "no such file" in str(info.value)


def test_a_spec_without_metadata_name_takes_the_resource_name(tmp_path: Path) -> None:
    doc = example()
    del doc["metadata"]["name"]
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump(doc))
    for spec in (doc, str(path)):
        rec, dgd = run_program(lambda spec=spec: DynamoGraphDeployment("llama", spec))
        assert dgd.plan.name == "llama"
        assert "default/llama-frontend" in {r.name for r in rec.resources}


def test_two_graphs_from_one_file_in_one_namespace_fail_with_one_error_naming_both() -> None:
    recording = Recording()

    def program() -> None:
        DynamoGraphDeployment("first", example())
        DynamoGraphDeployment("second", example())

    with pytest.raises(pulumi.RunError) as info:
        run_program(program, recording=recording)
    assert isinstance(info.value, DuplicateObjectError)
    message = str(info.value)
    assert message.startswith('DynamoGraphDeployment "second" would create')
    assert 'that DynamoGraphDeployment "first" already creates in this program' in message
    assert 'Deployment "default/vllm-agg-frontend" (apps/v1)' in message
    assert [r.name for r in recording.by_type(DGD_TYPE)] == ["first"]


def test_the_same_graph_in_two_namespaces_is_two_sets_of_objects() -> None:
    def program() -> None:
        DynamoGraphDeployment("a", example(), namespace="team-a")
        DynamoGraphDeployment("b", example(), namespace="team-b")

    rec, _ = run_program(program)
    assert len(rec.by_type(DGD_TYPE)) == 2


def test_a_graph_and_a_standalone_component_creating_the_same_object_clash() -> None:
    graph = example()
    component = {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "vllm-agg-frontend"},
        "spec": {**copy.deepcopy(graph["spec"]["components"][0]), "backendFramework": "vllm"},
    }
    component["spec"].pop("name")

    def program() -> None:
        DynamoGraphDeployment("graph", graph)
        DynamoComponentDeployment("frontend", component)

    with pytest.raises(DuplicateObjectError) as info:
        run_program(program)
    assert 'DynamoComponentDeployment "frontend"' in str(info.value)
    assert 'DynamoGraphDeployment "graph"' in str(info.value)


def test_claims_do_not_leak_from_one_program_to_the_next() -> None:
    run_program(lambda: DynamoGraphDeployment("first", example()))
    rec, _ = run_program(lambda: DynamoGraphDeployment("first", example()))
    assert len(rec.by_type(DGD_TYPE)) == 1


def test_two_different_graphs_in_one_namespace_share_only_the_namespace_wide_rbac() -> None:
    other = example()
    other["metadata"]["name"] = "other-agg"

    def program() -> None:
        DynamoGraphDeployment("first", example())
        DynamoGraphDeployment("second", other)

    rec, _ = run_program(program)
    assert sorted(r.name for r in rec.by_type(DGD_TYPE)) == ["first", "second"]  # registration order is async
