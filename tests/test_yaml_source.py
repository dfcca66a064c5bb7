"""YAML is decoded as kubectl decodes it, and every field remembers its line and column."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamo_pulumi.errors import InputError, SourcePosition
from dynamo_pulumi.floor.yaml_source import C_PARSER, parse_documents, path_segments

TEXT = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: g
  labels:
    nvidia.com/team: a
spec:
  components:
    - name: frontend
      type: frontend
    - name: worker
      replicas: 2
"""


def test_the_c_parser_is_used_when_pyyaml_has_libyaml() -> None:
    assert bool(getattr(yaml, "__with_libyaml__", False)) == C_PARSER


def test_a_field_is_found_at_its_key() -> None:
    (doc,) = parse_documents(TEXT, "g.yaml")
    assert doc.positions.position_of("spec.components[1].replicas") == SourcePosition("g.yaml", 12, 7)
    assert doc.positions.position_of("spec.components[0]") == SourcePosition("g.yaml", 9, 7)


def test_a_missing_field_is_found_at_its_nearest_written_parent() -> None:
    (doc,) = parse_documents(TEXT, "g.yaml")
    assert doc.positions.position_of("spec.components[1].podTemplate.spec") == SourcePosition("g.yaml", 11, 7)
    assert doc.positions.position_of("spec.components[7].name") == SourcePosition("g.yaml", 8, 3)
    assert doc.positions.position_of("status") == SourcePosition("g.yaml", 1, 1)


def test_bracketed_map_keys_may_contain_dots() -> None:
    (doc,) = parse_documents(TEXT, "g.yaml")
    assert list(path_segments("metadata.labels[nvidia.com/team]")) == ["metadata", "labels", "nvidia.com/team"]
    assert doc.positions.position_of("metadata.labels[nvidia.com/team]") == SourcePosition("g.yaml", 6, 5)


def test_the_deepest_of_several_spellings_wins() -> None:
    (doc,) = parse_documents(TEXT, "g.yaml")
    best = doc.positions.position_of("spec.services[worker]", "spec.components[1].replicas")
    assert best == SourcePosition("g.yaml", 12, 7)


def test_each_document_of_a_stream_has_its_own_lines() -> None:
    docs = parse_documents(TEXT + "---\n\n" + TEXT, "two.yaml")
    assert [d.positions.position_of("spec.components[1].replicas").line for d in docs] == [12, 26]


def test_empty_documents_are_skipped() -> None:
    assert [d.value["kind"] for d in parse_documents("---\n---\n" + TEXT)] == ["DynamoGraphDeployment"]


def test_timestamps_stay_strings_and_scalar_keys_become_json_keys() -> None:
    (doc,) = parse_documents("created: 2024-01-01\n1: a\ntrue: b\nnull: c\n")
    assert doc.value == {"created": "2024-01-01", "1": "a", "true": "b", "null": "c"}


def test_a_duplicate_key_is_an_error_at_its_line() -> None:
    with pytest.raises(InputError, match=r"^d\.yaml:2:1: .*mapping key \"a\" already defined"):
        parse_documents("a: 1\na: 2\n", "d.yaml")


def test_a_syntax_error_names_the_file_line_and_column() -> None:
    with pytest.raises(InputError) as caught:
        parse_documents("a: [1\n", "bad.yaml")
    assert str(caught.value).startswith("bad.yaml:2:1: invalid YAML:")
    assert "<unicode string>" not in str(caught.value)


_keys = st.text(alphabet="abcdefghij", min_size=1, max_size=4)
_leaves = st.one_of(st.integers(-5, 5), st.text(alphabet="xyz ", max_size=5), st.booleans(), st.none())
_trees = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, min_size=1, max_size=3), st.dictionaries(_keys, children, min_size=1, max_size=3)
    ),
    max_leaves=12,
)


def _paths(value: object, path: str = "") -> list[str]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in [f"{path}.{k}" if path else k, *_paths(v, f"{path}.{k}" if path else k)]]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in [f"{path}[{i}]", *_paths(v, f"{path}[{i}]")]]
    return []


@settings(max_examples=60)
@given(st.dictionaries(_keys, _trees, min_size=1, max_size=4), st.booleans())
def test_every_written_field_is_found_at_its_own_line(tree: dict, flow_style: bool) -> None:
    text = yaml.safe_dump(tree, default_flow_style=None if flow_style else False, sort_keys=False, width=1000)
    (doc,) = parse_documents(text, "t.yaml")
    assert doc.value == tree
    lines = text.splitlines()
    for path in _paths(tree):
        position = doc.positions.position_of(path)
        assert doc.positions.resolve(path)[1] == len(list(path_segments(path)))
        line = lines[position.line - 1]
        last = list(path_segments(path))[-1]
        if not last.isdigit():  # a key: its text starts at the column
            assert line[position.column - 1:].startswith(last), (path, line)
