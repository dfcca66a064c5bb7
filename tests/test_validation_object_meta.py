"""What the API server refuses on any object before a webhook runs: metadata syntax and size."""

from __future__ import annotations

from typing import Any

import yaml

from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.program.graph_program import default_graph_path
from dynamo_pulumi.validation.object_meta import (
    MAX_OBJECT_BYTES,
    TOTAL_ANNOTATION_SIZE_LIMIT,
    object_meta_errors,
    rendered_object_errors,
)
from dynamo_pulumi.verdict.deployability import judge


def example() -> dict[str, Any]:
    return yaml.safe_load(default_graph_path().read_text())


def test_a_valid_object_has_no_metadata_errors() -> None:
    assert object_meta_errors(example()) == []


def test_annotations_over_256_kib_are_too_long() -> None:
    doc = example()
    doc["metadata"]["annotations"] = {"note": "x" * TOTAL_ANNOTATION_SIZE_LIMIT}
    (error,) = object_meta_errors(doc)
    assert str(error) == (
        f"metadata.annotations: Too long: may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes "
        f"(the annotations hold {TOTAL_ANNOTATION_SIZE_LIMIT + 4} bytes)"
    )


def test_a_graph_larger_than_etcd_stores_is_refused_by_the_verdict() -> None:
    doc = example()
    big = "x" * (1024 * 1024)
    doc["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]["env"] = [
        {"name": f"BLOB_{i}", "value": big} for i in range(9)
    ]
    errors = [str(e) for e in judge(load_graph(doc)).errors]
    assert len(errors) == 1
    assert errors[0].startswith("<object>: Too long: the object is ")
    assert f"stores at most {MAX_OBJECT_BYTES} bytes per object" in errors[0]


def test_label_keys_and_values_follow_the_api_server_rules() -> None:
    doc = example()
    doc["metadata"]["labels"] = {"a/b/c": "ok", "team": "-bad-"}
    errors = [str(e) for e in object_meta_errors(doc)]
    assert errors == [
        'metadata.labels: Invalid value: "a/b/c": a qualified name may contain at most one \'/\'',
        'metadata.labels[team]: Invalid value: "-bad-": a valid label must be an empty string or consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]


def test_a_rendered_object_over_the_annotation_limit_is_reported_against_that_object() -> None:
    obj = {"kind": "ConfigMap", "metadata": {"name": "cm", "annotations": {"k": "v" * TOTAL_ANNOTATION_SIZE_LIMIT}}}
    (error,) = rendered_object_errors(obj)
    assert str(error).startswith('ConfigMap "cm".metadata.annotations: Too long:')
