"""The models' pydantic-free twins (:mod:`dynamo_pulumi.model.twin`) are the models, where they exist.

A twin is built only when certain; these tests hold it to that: whatever the twin accepts, pydantic
accepts too and holds the same values (field by field, type for type, the same wire form, repr,
fields set, helpers and copies), over the corpus, the property tests' mutated graphs and platform
settings; and what ``validate`` and ``render`` answer with twins equals what they answered with the
models (the verdict, every warning and error, the rendered objects), which is how the CLI answered
before twins existed. The CLI's check of a small graph imports no pydantic at all.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import BASES, JSON, mutated, retyped_alike

from dynamo_pulumi.api.v1beta1 import KINDS
from dynamo_pulumi.floor.sources import SourceText
from dynamo_pulumi.loading.documents import load_each
from dynamo_pulumi.model import twin, twin_build
from dynamo_pulumi.model.platform_file import load_platform
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.verdict.deployability import judge

ROOT = Path(__file__).resolve().parent.parent
BETA = [b for b in BASES if b.get("apiVersion") == "nvidia.com/v1beta1"]
HELPERS = ("number_of_nodes", "is_multinode", "is_worker_class", "uses_pcsg", "effective_replicas",
           "is_inter_pod_gms", "is_scaling_group_forced", "has_role_pod_templates")


def test_the_shipped_shapes_are_what_the_models_say() -> None:
    """Regenerate with ``python -m dynamo_pulumi.model.twin_build > dynamo_pulumi/data/twins.json``."""
    assert Path(twin.SHAPES_FILE).read_text() == twin_build.render_shapes(twin_build.shapes())
    assert twin.fresh()


def test_every_model_the_roots_reach_is_twinned() -> None:
    shapes = twin._shapes()["models"]
    assert {twin_build.qualified(m) for m in twin_build.iter_models()} == set(shapes)


def _values(obj: Any) -> Any:
    """A model's or twin's content with every type visible: 1, 1.0 and True stay apart."""
    if hasattr(obj, "model_fields_set"):
        return (type(obj).__name__, sorted(obj.model_fields_set),
                {k: _values(v) for k, v in obj.__dict__.items()})
    if isinstance(obj, dict):
        return {k: _values(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_values(v) for v in obj]
    return (type(obj).__name__, obj)


def _same_model(data: Any, qualname: str) -> Any:
    """The twin of ``data`` (or None); when there is one, pydantic holds exactly the same."""
    found = twin.from_wire(qualname, copy.deepcopy(data))
    if found is None:
        return None
    model = twin.model_class(qualname).model_validate(copy.deepcopy(data))
    assert _values(found) == _values(model)
    assert found.to_wire() == model.to_wire()
    assert repr(found) == repr(model) and str(found) == str(model)
    assert found == model and model == found
    assert found.model_fields_set == model.model_fields_set
    assert type(found).__name__ == type(model).__name__
    return found, model


def _same_helpers(found: Any, model: Any) -> None:
    if found.kind == "DynamoGraphDeployment":
        pairs = list(zip(found.components, model.components, strict=True))
    elif found.kind == "DynamoComponentDeployment":
        pairs = [(found.spec, model.spec)]
        assert found.component_name == model.component_name
    else:
        pairs = []
    for ours, theirs in pairs:
        for name in HELPERS:
            assert getattr(ours, name) == getattr(theirs, name), name
    assert found.name == model.name and found.annotations == model.annotations


@pytest.mark.parametrize("doc", BETA, ids=lambda d: f"{d['kind']}-{d['metadata'].get('name')}")
def test_every_valid_corpus_object_is_twinned_and_equal(doc: dict[str, Any]) -> None:
    qualname = twin.KIND_MODELS[doc["kind"]]
    try:
        twin.model_class(qualname).model_validate(copy.deepcopy(doc))
    except Exception:
        pytest.skip("not valid as v1beta1")
    pair = _same_model(doc, qualname)
    assert pair is not None, "a valid corpus object falls back to pydantic: the twins would save nothing"
    _same_helpers(*pair)


@settings(max_examples=500)
@given(st.sampled_from(BETA).flatmap(lambda b: st.one_of(mutated(b), retyped_alike(b))))
def test_a_twin_of_a_mutated_object_holds_what_the_model_holds(doc: dict[str, Any]) -> None:
    kind = doc.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        return
    pair = _same_model(doc, twin.KIND_MODELS[kind])
    if pair is not None:
        _same_helpers(*pair)


PLATFORM_BASE: dict[str, Any] = {
    "operatorVersion": "1.4.0",
    "orchestrators": {"grove": {"enabled": True, "terminationDelay": "4h"}, "lws": {"enabled": False}},
    "namespace": {"restricted": "ns"},
    "cluster": {"clusterTopologies": {"t": ["zone", "rack"]}, "resourceClaimGpus": {"c": 2}, "requester": "u"},
    "imagePullSecrets": ["s"],
    "infrastructure": {"natsAddress": "nats://x"},
}


@settings(max_examples=300)
@given(st.one_of(mutated(PLATFORM_BASE), retyped_alike(PLATFORM_BASE), JSON))
def test_a_twin_of_platform_settings_holds_what_the_model_holds(data: Any) -> None:
    pair = _same_model(data, twin.PLATFORM_MODEL)
    if pair is not None:
        found, model = pair
        assert (found.grove_enabled, found.lws_enabled, found.cluster_wide) == (
            model.grove_enabled, model.lws_enabled, model.cluster_wide)


def test_the_default_platform_twin_is_the_default_model() -> None:
    pair = _same_model({}, twin.PLATFORM_MODEL)
    assert pair is not None and pair[1] == Platform()


@settings(max_examples=200)
@given(st.sampled_from(BETA), st.sampled_from(["replicas", "type", "name", "roles", "bogus"]),
       st.sampled_from([None, 3, "decode", [], {"a": 1}]), st.booleans())
def test_a_copy_of_a_twin_is_the_copy_of_the_model(doc: dict[str, Any], key: str, value: Any, deep: bool) -> None:
    pair = _same_model(doc, twin.KIND_MODELS[doc["kind"]])
    if pair is None or doc["kind"] != "DynamoGraphDeployment" or not pair[0].components:
        return
    ours, theirs = pair[0].components[0], pair[1].components[0]
    a, b = ours.model_copy(update={key: value}, deep=deep), theirs.model_copy(update={key: value}, deep=deep)
    assert _values(a) == _values(b) and a.to_wire() == b.to_wire() and a == b
    assert ours.model_copy() == theirs and ours.model_copy().to_wire() == theirs.to_wire()


def test_an_edited_model_source_turns_the_twins_off(monkeypatch: pytest.MonkeyPatch) -> None:
    shapes = copy.deepcopy(twin._shapes())
    shapes["sources"]["api/v1beta1.py"] += 1
    monkeypatch.setattr(twin, "_shapes", lambda: shapes)
    twin.fresh.cache_clear()
    try:
        assert not twin.fresh()
        assert twin.from_wire(twin.PLATFORM_MODEL, {}) is None
    finally:
        monkeypatch.undo()
        twin.fresh.cache_clear()
    assert twin.fresh()


# --- what validate and render answer, with twins and with the models ------------------------------

GROVE = {"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}},
         "cluster": {"clusterTopologies": {"topo": ["region", "zone", "block", "rack", "host"]}}}


def _answers(text: str, twins: bool, platform: dict[str, Any] | None, mode: str) -> list[Any]:
    plat = load_platform(copy.deepcopy(platform), twins=twins)
    out: list[Any] = []
    for outcome in load_each(SourceText(text, "graph.yaml"), twins=twins):
        if outcome.loaded is None:
            out.append(("refused", str(outcome.error), [str(e) for e in getattr(outcome.error, "errors", [])]))
            continue
        assert twins or not twin.is_twin(outcome.loaded.object)
        verdict = judge(outcome.loaded, plat, mode=mode, client="kubectl")
        rendered = verdict.rendered
        out.append((
            [f"{e.position}: {e}" for e in verdict.validate_errors()], verdict.warnings,
            [str(e) for e in verdict.replacements],
            None if rendered is None else yaml.safe_dump_all([*rendered.components, *rendered.objects]),
        ))
    return out


@settings(max_examples=150)
@given(st.sampled_from(BETA).flatmap(lambda b: st.one_of(st.just(b), retyped_alike(b), mutated(b))),
       st.sampled_from([None, GROVE]), st.sampled_from(["render", "operator"]))
def test_validate_and_render_answer_the_same_with_twins(doc: dict[str, Any], platform: Any, mode: str) -> None:
    text = yaml.safe_dump(doc, sort_keys=False)
    assert _answers(text, True, platform, mode) == _answers(text, False, platform, mode)


def test_render_mode_refusals_and_notes_reach_a_twin() -> None:
    """Render mode's rules dispatch on the helper mixins, not the model classes: a twin (what the
    CLI loads) gets the component-group refusal and the note on a DGD's own ``metadata.labels``
    exactly as the model does."""
    doc = copy.deepcopy(next(b for b in BETA if b["kind"] == "DynamoGraphDeployment"))
    doc["metadata"]["labels"] = {"team": "a"}
    first = doc["spec"]["components"][0]["name"]
    doc["spec"].setdefault("experimental", {})["componentGroups"] = [
        {"name": "g", "replicas": 1, "components": [{"name": first}]}]
    text = yaml.safe_dump(doc, sort_keys=False)
    [outcome] = load_each(SourceText(text, "graph.yaml"), twins=True)
    assert outcome.loaded is not None and twin.is_twin(outcome.loaded.object)
    answers = _answers(text, True, None, "render")
    assert answers == _answers(text, False, None, "render")
    [(errors, warnings, _, _)] = answers
    assert any("spec.experimental.componentGroups: Forbidden" in e for e in errors), errors
    assert any("use spec.labels" in w for w in warnings), warnings


def test_checking_and_rendering_a_small_graph_imports_no_pydantic() -> None:
    """What keeps the CLI's start within its budget (bench/bench_startup.py measures it)."""
    graph = ROOT / "examples" / "aggregated-vllm" / "graph.yaml"
    grove = ROOT / "examples" / "multinode-grove"
    runs = [["validate", str(graph)], ["render", str(graph)],
            ["validate", str(grove / "graph.yaml"), "-p", str(grove / "platform.yaml")]]
    code = (
        "import sys, io, contextlib\n"
        "from dynamo_pulumi.cli import main\n"
        f"for argv in {runs!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        assert main(argv) == 0\n"
        "print(sorted(m for m in ('pydantic', 'pydantic_core', 'jsonschema', 'semver', 'pathlib', 'hashlib', 'dataclasses', 'inspect', 'dynamo_pulumi.api.pod_schema_build') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# --- every field's check against pydantic's own, value by value ---------------------------------

POOL: list[Any] = [
    None, True, False, 0, 1, -1, 2, 16, 17, 25, 26, 317, 318, 2**31 - 1, 2**31, -(2**31) - 1, 2**53 + 1, 2**63, 2**64,
    0.0, 0.5, 1.0, 1.5, -0.5, 2.0, float("inf"), float("nan"), 1e300,
    "", "a", "A", "-a", "a-", "abc-def", "Abc", "a_b", "a.b", "1.2.3", "01.2.3", "1.2", "x" * 63, "x" * 64,
    "a" * 318, "zone", "rack", "a\n", "zone\n", "é", "\uff5aone", "Qwen/Qwen3", "IntraPod", "InterPod", "vllm", "sglang",
    "required", "preferred", "Sequential", "Parallel", "All", "IDs", "Auto", "Delete", "Immediate", "frontend",
    "decode", "topology.kubernetes.io/zone", "example.com/a", "grove.io/v1alpha1", "8Gi", "1", "nvidia.com/v1beta1",
    [], [1], ["a"], ["a", "b"], [None], [{"name": "a"}], [{"name": "a"}] * 17, [0, 4294967295, 4294967296],
    {}, {"a": "b"}, {"a": 1}, {1: "a"}, {"name": "x"}, {"name": "x", "mode": "All"}, {"mode": "IDs", "ids": [1]},
    {"apiVersion": "grove.io/v1alpha1", "value": {}}, {"spec": {"containers": []}}, {"enabled": True},
    {"nodeCount": 2}, {"nodeCount": 1}, {"pvcName": "p"}, {"key": "k"}, {"domain": "zone"}, {"name": "m", "x": 1},
]


def _field_cases() -> list[Any]:
    cases = []
    for model in twin_build.iter_models():
        shape = {name: spec for name, _, spec, _ in twin._shapes()["models"][twin_build.qualified(model)]["fields"]}
        for name, field in model.model_fields.items():
            cases.append(pytest.param(model, name, field, shape[name], id=f"{model.__name__}.{name}"))
    return cases


@pytest.mark.parametrize(("model", "name", "field", "spec"), _field_cases())
def test_every_field_admits_what_pydantic_admits_and_holds_the_same(model: Any, name: str, field: Any, spec: Any) -> None:
    from typing import Annotated

    from pydantic import TypeAdapter, ValidationError

    adapter = TypeAdapter(Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation)
    check = twin._compile(spec)
    for value in POOL:
        ours = check(copy.deepcopy(value))
        if ours is twin.UNSURE:
            continue
        try:
            theirs = adapter.validate_python(copy.deepcopy(value))
        except ValidationError as exc:  # the twin admitted what pydantic refuses
            raise AssertionError(f"{model.__name__}.{name} = {value!r}: the twin admits it, pydantic: {exc}") from None
        assert _values(ours) == _values(theirs), (model.__name__, name, value)
