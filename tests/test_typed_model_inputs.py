"""Typed models (``GraphSpec``, ``ComponentSpec``, ``MultinodeSpec``, ...) built in Python: they
take a ``pulumi.Output`` or another awaitable Input wherever a dict spec does, with the same
rules and the same messages, and refuse bad keywords with our error (a ``pulumi.RunError`` in a
Pulumi program), the field path and the nearest declared name, never pydantic's own error or an
internal class name."""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from typing import Any

import pulumi
import pytest
import yaml

from dynamo_pulumi.api import (
    ComponentSpec,
    Graph,
    GraphSpec,
    Metadata,
    MultinodeSpec,
    StandaloneComponentSpec,
)
from dynamo_pulumi.errors import DynamoPulumiError, GraphValidationError, ModelError
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.program.graph_program import default_graph_path
from dynamo_pulumi.resources import DynamoGraphDeployment

TOKEN_PREFIX = "__dynamo_pulumi_output_"
GROVE = {"orchestrators": {"grove": {"enabled": True}}}


def out(value: Any) -> pulumi.Output[Any]:
    return pulumi.Output.from_input(value)


def example_spec() -> dict[str, Any]:
    return copy.deepcopy(yaml.safe_load(default_graph_path().read_text())["spec"])


def typed(spec: dict[str, Any]) -> GraphSpec:
    """The same spec built from typed models (keywords by wire name, as the models accept)."""
    components = [ComponentSpec(**component) for component in spec["components"]]
    return GraphSpec(**{**spec, "components": components})


def refusal(spec: Any, platform: dict[str, Any] | None = None) -> DynamoPulumiError:
    with pytest.raises(DynamoPulumiError) as info:
        run_program(lambda: DynamoGraphDeployment("g", spec, platform=platform))
    assert TOKEN_PREFIX not in str(info.value)
    return info.value


# --- Outputs and awaitables at typed fields --------------------------------------------------------


def test_an_output_replica_count_reaches_the_workload_as_in_a_dict_spec() -> None:
    def program() -> None:
        spec = example_spec()
        spec["components"][1]["replicas"] = out(3)
        spec["labels"] = {"team": out("inference")}
        DynamoGraphDeployment("g", typed(spec))

    rec, _ = run_program(program)
    (worker,) = [r for r in rec.by_type("kubernetes:apps/v1:Deployment") if "vllmworker" in r.name]
    assert worker.inputs["spec"]["replicas"] == 3
    assert worker.inputs["metadata"]["labels"]["team"] == "inference"


def test_an_awaitable_replica_count_is_taken_as_its_output() -> None:
    async def three() -> int:
        return 3

    def program() -> None:
        spec = example_spec()
        spec["components"][1]["replicas"] = three()
        DynamoGraphDeployment("g", typed(spec))

    rec, _ = run_program(program)
    (worker,) = [r for r in rec.by_type("kubernetes:apps/v1:Deployment") if "vllmworker" in r.name]
    assert worker.inputs["spec"]["replicas"] == 3


def test_the_model_keeps_the_output_as_given_and_dumps_it_at_its_wire_name() -> None:
    replicas = out(2)
    component = ComponentSpec(name="w", min_available=replicas, replicas=replicas)
    assert component.replicas is replicas
    assert component.to_wire() == {"name": "w", "minAvailable": replicas, "replicas": replicas}


EDITS: dict[str, tuple[Callable[[dict[str, Any]], None], dict[str, Any] | None]] = {
    "component name": (lambda s: s["components"][1].__setitem__("name", out("VllmWorker")), None),
    "node count": (lambda s: s["components"][1].__setitem__("multinode", {"nodeCount": out(2)}), GROVE),
    "runtime version": (lambda s: s["components"][1].__setitem__("runtimeVersionOverride", out("1.3.1")), None),
    "component type": (lambda s: s["components"][1].__setitem__("type", out("worker")), None),
}


@pytest.mark.parametrize("case", list(EDITS))
def test_an_output_at_a_typed_field_gets_the_dict_specs_message(case: str) -> None:
    edit, platform = EDITS[case]
    as_dict, as_model = example_spec(), example_spec()
    edit(as_dict)
    edit(as_model)
    expected = refusal(as_dict, platform)
    got = refusal(typed(as_model), platform)
    assert (type(got).__mro__[1:], str(got)) == (type(expected).__mro__[1:], str(expected))


def test_an_output_node_count_in_a_multinode_spec_is_refused_at_its_field() -> None:
    spec = example_spec()
    spec["components"][1]["multinode"] = MultinodeSpec(node_count=out(2))
    error = refusal(typed(spec), GROVE)
    assert isinstance(error, GraphValidationError)
    (field,) = error.errors
    assert field.path == "spec.components[1].multinode.nodeCount"
    assert "give a plain number" in field.detail


# --- construction errors -----------------------------------------------------------------------------


def test_a_misspelt_keyword_is_our_error_with_the_nearest_name() -> None:
    with pytest.raises(ModelError) as info:
        ComponentSpec(name="decode", replica=2)  # type: ignore[call-arg]
    assert str(info.value) == 'The ComponentSpec "decode" is invalid: unknown field "replica" (did you mean "replicas"?)'
    assert isinstance(info.value, pulumi.RunError)  # pulumi is loaded: printed without a traceback


def test_without_pulumi_loaded_the_error_is_ours_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "pulumi")
    with pytest.raises(ModelError) as info:
        ComponentSpec(name="decode", replica=2)  # type: ignore[call-arg]
    assert not isinstance(info.value, pulumi.RunError)


def test_every_refused_field_is_listed_at_its_keyword_path_in_the_api_servers_words() -> None:
    with pytest.raises(ModelError) as info:
        ComponentSpec(name="w", replicas=-1, min_available=0, multinode={"nodeCount": 1})
    assert str(info.value) == "\n".join([
        'The ComponentSpec "w" is invalid:',
        "* replicas: Invalid value: -1: replicas in body should be greater than or equal to 0",
        "* min_available: Invalid value: 0: min_available in body should be greater than or equal to 1",
        "* multinode.nodeCount: Invalid value: 1: multinode.nodeCount in body should be greater than or equal to 2",
    ])


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: GraphSpec(components=[{"name": "a"}, {"name": "b", "replica": 3}]),
         'The GraphSpec is invalid: unknown field "components[1].replica" (did you mean "replicas"?)'),
        (lambda: GraphSpec(components=[{"name": "a", "multinode": {"nodecount": 2}}]),
         'The GraphSpec is invalid: unknown field "components[0].multinode.nodecount" (did you mean "nodeCount"?)'),
        (lambda: MultinodeSpec(node_cout=2),
         'The MultinodeSpec is invalid: unknown field "node_cout" (did you mean "node_count"?)'),
        (lambda: StandaloneComponentSpec(backend_framwork="vllm"),
         'The StandaloneComponentSpec is invalid: unknown field "backend_framwork" (did you mean "backend_framework"?)'),
        (lambda: Graph(metadata=Metadata(name="g"), spec={"backendFramework": "vlm"}),
         'The Graph is invalid: spec.backendFramework: Unsupported value: "vlm": supported values: "sglang", "vllm", "trtllm"'),
        (lambda: ComponentSpec(name="w", replicas="2"),
         'The ComponentSpec "w" is invalid: replicas: Invalid value: "string": replicas in body must be of type integer: "string"'),
        (lambda: ComponentSpec(replicas=1),
         "The ComponentSpec is invalid: name: Required value"),
    ],
)
def test_construction_errors_name_the_public_model_and_the_path(build: Callable[[], Any], expected: str) -> None:
    with pytest.raises(ModelError) as info:
        build()
    assert str(info.value) == expected
    assert "Dynamo" not in str(info.value) and "pydantic" not in str(info.value)


def test_a_typo_in_a_pulumi_program_fails_the_program_with_a_run_error() -> None:
    with pytest.raises(pulumi.RunError) as info:
        run_program(lambda: DynamoGraphDeployment("g", GraphSpec(components=[ComponentSpec(name="w", replica=2)])))  # type: ignore[call-arg]
    assert str(info.value).endswith('unknown field "replica" (did you mean "replicas"?)')


def test_loading_a_wire_graph_suggests_the_nearest_field_at_any_depth() -> None:
    doc = yaml.safe_load(default_graph_path().read_text())
    doc["spec"]["components"][1]["replica"] = 2
    doc["spec"]["components"][1]["multinode"] = {"nodecount": 2}
    doc["spec"]["backendFramwork"] = "vllm"
    with pytest.raises(GraphValidationError) as info:
        load_graph(doc)
    assert sorted(e.message for e in info.value.errors) == [
        'unknown field "spec.backendFramwork" (did you mean "backendFramework"?)',
        'unknown field "spec.components[1].multinode.nodecount" (did you mean "nodeCount"?)',
        'unknown field "spec.components[1].replica" (did you mean "replicas"?)',
    ]
