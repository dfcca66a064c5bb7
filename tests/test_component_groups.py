"""``spec.experimental.componentGroups`` (newest DGD types; api-and-validation.md 1.3): the schema
and list-map rules the types carry, and never accepted-and-ignored. No operator code we follow
renders a group, so render mode refuses it naming operator mode, operator mode sends it as written
with an empty prediction and a warning, and ``render`` refuses to print objects without it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cli_support import run_cli

from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.planning.operator_mode import custom_resource_document
from dynamo_pulumi.planning.plan import plan_graph
from dynamo_pulumi.validation.cel import validate_graph_cel

IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"


def _graph(groups: list[dict[str, Any]]) -> dict[str, Any]:
    main = {"name": "main", "image": IMAGE, "command": ["python3", "-m", "dynamo.vllm"],
            "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    return {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "cg"},
        "spec": {
            "backendFramework": "vllm",
            "experimental": {"componentGroups": groups},
            "components": [
                {"name": "prefill", "type": "prefill", "podTemplate": {"spec": {"containers": [main]}}},
                {"name": "decode", "type": "decode", "podTemplate": {"spec": {"containers": [main]}}},
            ],
        },
    }


GROUP = {"name": "pd", "replicas": 2, "components": [{"name": "prefill"}, {"name": "decode"}]}


def _schema_errors(groups: list[dict[str, Any]]) -> list[str]:
    with pytest.raises(GraphValidationError) as caught:
        load_graph(_graph(groups))
    return [str(e) for e in caught.value.errors]


P = "spec.experimental.componentGroups"


@pytest.mark.parametrize(("groups", "expected"), [
    ([{**GROUP, "replicas": 0}], f"{P}[0].replicas: Invalid value: 0: {P}[0].replicas in body should be greater than or equal to 1"),
    ([{**GROUP, "components": []}], f"{P}[0].components: Invalid value: 0: {P}[0].components in body should have at least 1 items"),
    ([{**GROUP, "name": "-pd"}], f"{P}[0].name: Invalid value: \"-pd\": {P}[0].name in body should match '^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$'"),
    ([{**GROUP, "components": [{"name": ""}]}], f'{P}[0].components[0].name: Invalid value: "": {P}[0].components[0].name in body should be at least 1 chars long'),
    ([{"name": "pd", "components": [{"name": "decode"}]}], f"{P}[0].replicas: Required value"),
])
def test_the_schema_of_a_group(groups: list[dict[str, Any]], expected: str) -> None:
    assert expected in _schema_errors(groups)


def test_seventeen_groups_are_too_many() -> None:
    groups = [{**GROUP, "name": f"g{i}"} for i in range(17)]
    assert any("must have at most 16 items" in e or "should have at most 16 items" in e for e in _schema_errors(groups))


def test_group_names_and_member_names_are_list_map_keys() -> None:
    dgd = load_graph(_graph([GROUP, {**GROUP, "components": [{"name": "decode"}, {"name": "decode"}]}]))
    assert [str(e) for e in validate_graph_cel(dgd)] == [  # type: ignore[arg-type]
        f'{P}[1]: Duplicate value: {{"name":"pd"}}',
        f'{P}[1].components[1]: Duplicate value: {{"name":"decode"}}',
    ]


def test_render_mode_refuses_a_group_naming_operator_mode() -> None:
    with pytest.raises(GraphValidationError) as caught:
        plan_graph(_graph([GROUP]), mode="render")
    [error] = caught.value.errors
    assert (error.path, error.type.value) == (P, "Forbidden")
    assert "one Grove PodCliqueScalingGroup per group" in error.detail
    assert 'mode="operator"' in error.fix and "--mode operator" in error.fix


def test_operator_mode_sends_the_groups_and_predicts_nothing_with_a_warning() -> None:
    plan = plan_graph(_graph([GROUP]), mode="operator")
    assert custom_resource_document(plan)["spec"]["experimental"] == {"componentGroups": [GROUP]}
    assert plan.all_objects() == []
    assert any("cannot be predicted offline" in w and "componentGroups" in w for w in plan.warnings)


def test_the_cli_says_so_in_every_mode(tmp_path, capsys) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(json.dumps(_graph([GROUP])))
    code, out, _ = run_cli(capsys, "validate", str(path), "-o", "json")
    assert code == 1
    [error] = json.loads(out)[0]["errors"]
    assert error["path"] == P and "--mode operator" in error["fix"] and "--mode operator" not in error["message"]
    code, _, err = run_cli(capsys, "validate", str(path), "--mode", "operator")
    assert code == 0 and "cannot be predicted offline" in err
    code, out, err = run_cli(capsys, "render", str(path))
    assert code == 1 and out == "" and f"{P}: Forbidden: cannot be rendered" in err
