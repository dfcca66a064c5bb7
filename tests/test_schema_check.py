"""The pod template schema without ``jsonschema``: the shipped definitions are what
``kubernetes-validate``'s copy derives to, and :mod:`dynamo_pulumi.api.schema_check` reports
exactly the errors ``jsonschema`` reports over them (the oracle here: keyword, keyword value,
instance and path, in the order the checks sort them), for the corpus templates and mutated ones."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource
from test_properties import JSON, mutated, retyped_alike

from dynamo_pulumi.api import pod_schema, pod_schema_build
from dynamo_pulumi.api.schema_check import verify

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "conformance" / "corpus"
_ID = "https://kubernetes.io/api/_definitions.json"
DEFINITIONS = [pod_schema.POD_TEMPLATE_SPEC, pod_schema.POD_SPEC, pod_schema.CONTAINER, pod_schema.PROBE,
               pod_schema.ENV_VAR, pod_schema.RESOURCE_CLAIM]


@pytest.mark.parametrize("variant", pod_schema_build.VARIANTS)
def test_the_shipped_definitions_are_what_kubernetes_validate_derives_to(variant: str) -> None:
    """Regenerate with ``python -m dynamo_pulumi.api.pod_schema_build``."""
    expected = pod_schema_build.render_shipped(pod_schema_build.load_definitions(), variant)
    assert Path(pod_schema.schema_file(variant)).read_text() == expected
    assert verify(pod_schema._table(variant))  # every keyword in it is one the checker checks


def _oracle(definition: str, decoded: bool) -> jsonschema.protocols.Validator:
    table = pod_schema._table("decoded" if decoded else "strict")
    contents = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": _ID, "$defs": table}
    registry = Resource.from_contents(contents) @ Registry()
    formats = jsonschema.FormatChecker(formats=())
    for fmt, check in pod_schema._FORMATS.items():
        formats.checks(fmt)(check)
    return jsonschema.Draft202012Validator({"$ref": f"{_ID}#/$defs/{definition}"}, registry=registry,
                                           format_checker=formats)


def _key(path: Any) -> list[tuple[int, Any]]:
    return [(0, p) if isinstance(p, int) else (1, p) for p in path]


def _theirs(definition: str, decoded: bool, instance: Any) -> list[tuple[Any, ...]]:
    errors = _oracle(definition, decoded).iter_errors(instance)
    found = [(e.validator, e.validator_value, tuple(e.absolute_path), repr(e.instance)) for e in errors]
    return sorted(found, key=lambda f: _key(f[2]))


def _ours(definition: str, decoded: bool, instance: Any) -> list[tuple[Any, ...]]:
    errors = pod_schema._validator(definition, decoded).iter_errors(instance)
    found = [(e.keyword, e.value, e.path, repr(e.instance)) for e in errors]
    return sorted(found, key=lambda f: _key(f[2]))


def _same(definition: str, instance: Any) -> None:
    plain = pod_schema.plain_json(instance)
    for decoded in (False, True):
        assert _ours(definition, decoded, plain) == _theirs(definition, decoded, plain)


def _corpus_templates() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.yaml")) if CORPUS.is_dir() else []:
        for doc in yaml.safe_load_all(path.read_text()):
            spec = doc.get("spec") if isinstance(doc, dict) else None
            comps = (spec.get("components") or []) if isinstance(spec, dict) else []
            if isinstance(spec, dict) and doc.get("kind") == "DynamoComponentDeployment":
                comps = [spec]
            found += [c["podTemplate"] for c in comps if isinstance(c, dict) and isinstance(c.get("podTemplate"), dict)]
    return found


TEMPLATES = _corpus_templates() or [{"spec": {"containers": [{"name": "main", "image": "x"}]}}]
FULL = {
    "metadata": {"labels": {"a": "b"}, "annotations": {"c": "d"}, "uid": "x"},
    "spec": {
        "containers": [{"name": "main", "image": "i", "args": ["a", None], "ports": [{"containerPort": 80}],
                        "resources": {"limits": {"cpu": "1", "memory": 2.5, "nvidia.com/gpu": 1.0}},
                        "livenessProbe": {"httpGet": {"port": "http", "path": "/"}, "periodSeconds": 2**40}}],
        "volumes": [{"name": "v", "emptyDir": {"sizeLimit": "1Qi"}}],
        "tolerations": [{"key": "k", "tolerationSeconds": 3.5}],
        "nodeSelector": {"a": 1},
    },
}


@pytest.mark.parametrize("template", [*TEMPLATES, FULL], ids=lambda t: str(len(str(t))))
def test_corpus_templates_get_the_errors_jsonschema_reports(template: dict[str, Any]) -> None:
    _same(pod_schema.POD_TEMPLATE_SPEC, template)


@settings(max_examples=400)
@given(st.sampled_from([*TEMPLATES, FULL]).flatmap(lambda t: st.one_of(mutated(t), retyped_alike(t))))
def test_mutated_templates_get_the_errors_jsonschema_reports(template: dict[str, Any]) -> None:
    _same(pod_schema.POD_TEMPLATE_SPEC, template)


@settings(max_examples=200)
@given(st.sampled_from(DEFINITIONS), JSON)
def test_any_json_value_gets_the_errors_jsonschema_reports(definition: str, value: Any) -> None:
    _same(definition, value)


def test_a_keyword_the_checker_does_not_know_is_refused_when_loaded() -> None:
    table = copy.deepcopy(pod_schema._table("strict"))
    assert verify(table) is table
    table[pod_schema.ENV_VAR]["properties"]["name"]["maxLength"] = 3
    with pytest.raises(ValueError, match=r"EnvVar\.name: JSON Schema keyword 'maxLength' is not checked"):
        verify(table)
