"""The stored form of an operator recording (``localcluster/recording_format.py``) reads back as
exactly what the recorder collected: a reference to the pathway's object or result is replaced
by what it names, and anything that differs at a platform is kept whole."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from localcluster import recording_format


def _obj(kind: str, name: str, **spec: object) -> dict:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "o1"}, "spec": dict(spec)}


def _result(*objects: dict) -> dict:
    return {"admission": [{"kind": "DynamoGraphDeployment", "name": "g", "accepted": True}],
            "status": [{"kind": "DynamoGraphDeployment", "name": "g", "state": "successful", "conditions": []}],
            "objects": list(objects)}


WHOLE = {"id": "x", "namespace": "o1", "input": [], "platforms": {
    "pathway": _result(_obj("Service", "a", port=1), _obj("ServiceAccount", "sa")),
    "lws": _result(_obj("Service", "a", port=1), _obj("ServiceAccount", "sa")),
    "grove": _result(_obj("Service", "a", port=2), _obj("ServiceAccount", "sa"), _obj("ConfigMap", "c")),
}}


def test_equal_results_and_objects_are_stored_as_references_to_the_pathway():
    stored = recording_format.compact(WHOLE)
    assert stored["platforms"]["lws"] == {"same_as": "pathway"}
    grove = stored["platforms"]["grove"]["objects"]
    assert grove[0] == WHOLE["platforms"]["grove"]["objects"][0]  # differs: kept whole
    assert grove[1]["same_as"] == "pathway" and "spec" not in grove[1]
    assert grove[2]["kind"] == "ConfigMap" and "same_as" not in grove[2]


def test_the_stored_text_reads_back_as_what_was_collected(tmp_path: Path):
    path = tmp_path / "x.yaml"
    path.write_text(recording_format.dump(WHOLE))
    assert recording_format.load(path) == WHOLE
    path.write_text(recording_format.dump(recording_format.load(path)))  # rewriting is stable
    assert recording_format.load(path) == WHOLE


def test_the_raw_fields_the_comparison_does_not_read_are_not_stored():
    raw = copy.deepcopy(WHOLE)
    raw["platforms"]["pathway"]["graphs"] = [{"kind": "DynamoGraphDeployment"}]
    assert "graphs" not in recording_format.compact(raw)["platforms"]["pathway"]


def test_a_reference_to_an_object_the_pathway_lacks_is_refused():
    stored = recording_format.compact(WHOLE)
    stored["platforms"]["grove"]["objects"][1]["metadata"]["name"] = "nope"
    with pytest.raises(ValueError, match="grove refers to ServiceAccount/nope of pathway"):
        recording_format.expanded(stored)


def test_the_stored_text_is_yaml_with_inline_scalar_lists(tmp_path: Path):
    text = recording_format.dump({**WHOLE, "input": [{"args": ["a", "b"]}]})
    assert "args: [a, b]" in text
    assert yaml.safe_load(text)["id"] == "x"
