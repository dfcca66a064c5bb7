"""Every size limit, at the limit (accepted) and one past it (refused): a mutant turning ``>``
into ``>=`` anywhere fails here."""

from __future__ import annotations

import json

import pytest
import yaml
from cli_support import BETA

from dynamo_pulumi.errors import GraphValidationError, Path
from dynamo_pulumi.floor.kube_names import (
    dns1035_label_problems,
    dns1123_label_problems,
    dns1123_subdomain_problems,
    label_key_problems,
    label_value_problems,
)
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.validation.apiserver.ports import port_name_problems, port_number_problems
from dynamo_pulumi.validation.object_meta import (
    MAX_OBJECT_BYTES,
    TOTAL_ANNOTATION_SIZE_LIMIT,
    annotation_size_errors,
    object_size,
    object_size_errors,
)


def _label(n: int) -> str:
    return "a" * n


def _subdomain(n: int) -> str:
    """A valid DNS-1123 subdomain of exactly ``n`` characters (63-character labels joined by dots)."""
    parts, left = [], n
    while left > 63:
        parts.append("a" * 62)
        left -= 63
    parts.append("a" * left)
    return ".".join(parts)


def test_label_key_name_part_of_63_is_valid_and_64_is_not() -> None:
    assert label_key_problems(_label(63)) == []
    assert label_key_problems(f"example.com/{_label(63)}") == []
    assert label_key_problems(_label(64)) == ["name part must be no more than 63 characters"]
    assert label_key_problems(f"example.com/{_label(64)}") == ["name part must be no more than 63 characters"]


def test_label_key_prefix_of_253_is_valid_and_254_is_not() -> None:
    assert len(_subdomain(253)) == 253 and label_key_problems(f"{_subdomain(253)}/n") == []
    assert label_key_problems(f"{_subdomain(254)}/n") == ["prefix part must be no more than 253 characters"]


def test_label_value_of_63_is_valid_and_64_is_not() -> None:
    assert label_value_problems(_label(63)) == []
    assert label_value_problems(_label(64)) == ["must be no more than 63 characters"]


def test_dns1123_label_of_63_is_valid_and_64_is_not() -> None:
    assert dns1123_label_problems(_label(63)) == []
    assert dns1123_label_problems(_label(64)) == ["must be no more than 63 characters"]


def test_dns1035_label_of_63_is_valid_and_64_is_not() -> None:
    assert dns1035_label_problems(_label(63)) == []
    assert dns1035_label_problems(_label(64)) == ["must be no more than 63 characters"]


def test_dns1123_subdomain_of_253_is_valid_and_254_is_not() -> None:
    assert dns1123_subdomain_problems(_subdomain(253)) == []
    assert dns1123_subdomain_problems(_subdomain(254)) == ["must be no more than 253 characters"]


def test_object_name_of_253_loads_and_254_is_refused() -> None:
    from dynamo_pulumi.validation.object_meta import object_meta_errors

    doc = yaml.safe_load(BETA)
    doc["metadata"]["name"] = _subdomain(253)
    assert object_meta_errors(doc) == []
    doc["metadata"]["name"] = _subdomain(254)
    assert [str(e).split(": ")[-1] for e in object_meta_errors(doc)] == ["must be no more than 253 characters"]


def test_port_name_of_15_is_valid_and_16_is_not() -> None:
    assert port_name_problems("a" * 15) == []
    assert port_name_problems("a" * 16) == ["must be no more than 15 characters"]


@pytest.mark.parametrize(("port", "valid"), [(0, False), (1, True), (65535, True), (65536, False)])
def test_port_numbers_from_1_to_65535(port: int, valid: bool) -> None:
    assert (port_number_problems(port) == []) is valid


def test_annotations_of_256_kib_are_valid_and_one_byte_more_is_not() -> None:
    path = Path("metadata", "annotations")
    assert annotation_size_errors({"k": "v" * (TOTAL_ANNOTATION_SIZE_LIMIT - 1)}, path) == []
    assert len(annotation_size_errors({"k": "v" * TOTAL_ANNOTATION_SIZE_LIMIT}, path)) == 1


def _document_of(size: int) -> dict[str, str]:
    doc = {"blob": ""}
    doc["blob"] = "x" * (size - object_size(doc))
    assert object_size(doc) == size
    return doc


def test_an_object_of_1_5_mib_is_stored_and_one_byte_more_is_not() -> None:
    assert MAX_OBJECT_BYTES == 1536 * 1024
    assert object_size_errors(_document_of(MAX_OBJECT_BYTES)) == []
    assert len(object_size_errors(_document_of(MAX_OBJECT_BYTES + 1))) == 1


def _with_replicas(replicas: int) -> str:
    doc = yaml.safe_load(BETA)
    doc["spec"]["components"][1]["replicas"] = replicas
    return json.dumps(doc)


@pytest.mark.parametrize("replicas", [0, 2**31 - 1])
def test_component_replicas_within_int32_and_non_negative_load(replicas: int) -> None:
    assert load_graph(_with_replicas(replicas)).components[1].replicas == replicas


@pytest.mark.parametrize(("replicas", "detail"), [
    (-1, "should be greater than or equal to 0"),
    (2**31, "should be less than or equal to 2147483647"),
])
def test_component_replicas_past_the_bounds_are_refused(replicas: int, detail: str) -> None:
    with pytest.raises(GraphValidationError) as caught:
        load_graph(_with_replicas(replicas))
    assert any(e.path == "spec.components[1].replicas" and detail in str(e) for e in caught.value.errors)
