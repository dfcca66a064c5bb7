"""One pass: a graph is defaulted once per operation, and the rendering starts from what create
admission stored instead of defaulting the graph again (``bench/walk_platform.py`` prints the
static walk of the same flow)."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from update_rule_cases import BASE, PLATFORM

import dynamo_pulumi.validation.update_admission  # noqa: F401  (loaded late; the fixture counts its calls too)
from dynamo_pulumi.defaulting import webhooks as defaulting
from dynamo_pulumi.loading.documents import load_documents
from dynamo_pulumi.platform import load_platform
from dynamo_pulumi.program.graph_program import plan
from dynamo_pulumi.verdict.deployability import judge

DCD = {
    "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
    "metadata": {"name": "d", "namespace": "ns"},
    "spec": {"type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "x:1.4.0"}]}}},
}


@pytest.fixture
def defaulted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Every entry of the defaulting webhooks, by operation (wherever a module holds them)."""
    import sys

    calls: Counter[str] = Counter()
    graph, component = defaulting.default_graph, defaulting.default_component_deployment

    def counted_graph(dgd: Any, platform: Any = None, operation: str = "create") -> Any:
        calls[f"graph {operation}"] += 1
        return graph(dgd, platform, operation)  # type: ignore[arg-type]

    def counted_component(dcd: Any) -> Any:
        calls["component create"] += 1
        return component(dcd)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("dynamo_pulumi"):
            if getattr(module, "default_graph", None) is graph:
                monkeypatch.setattr(module, "default_graph", counted_graph)
            if getattr(module, "default_component_deployment", None) is component:
                monkeypatch.setattr(module, "default_component_deployment", counted_component)
    yield calls


def _loaded(doc: dict[str, Any]) -> Any:
    return load_documents(copy.deepcopy(doc)).loaded[0]


@pytest.mark.parametrize("mode", ["render", "operator"])
def test_a_create_verdict_defaults_the_graph_once(defaulted: Counter[str], mode: str) -> None:
    verdict = judge(_loaded(BASE), load_platform(copy.deepcopy(PLATFORM)), mode=mode)
    assert verdict.deployable and verdict.rendered is not None and verdict.rendered.objects
    assert defaulted == Counter({"graph create": 1})


def test_a_standalone_component_is_defaulted_once(defaulted: Counter[str]) -> None:
    verdict = judge(_loaded(DCD))
    assert verdict.deployable and verdict.rendered is not None
    assert defaulted == Counter({"component create": 1})


@pytest.mark.parametrize(("mode", "client"), [("render", "kubectl"), ("operator", "pulumi"), ("operator", "kubectl")])
def test_an_update_verdict_defaults_each_object_once_per_operation(
    defaulted: Counter[str], mode: str, client: str
) -> None:
    """OLD as stored (create), NEW as updated, NEW as created (which the rendering reuses); in
    operator mode the replacement trigger's identities start from OLD and NEW as stored."""
    old = _loaded(BASE).object
    verdict = judge(_loaded(BASE), load_platform(copy.deepcopy(PLATFORM)), old=old, mode=mode, client=client)
    assert verdict.deployable and verdict.rendered is not None
    assert defaulted == Counter({"graph create": 2, "graph update": 1})


def test_planning_the_embedded_example_defaults_it_once(defaulted: Counter[str]) -> None:
    planned = plan()
    assert planned.all_objects()
    assert defaulted == Counter({"graph create": 1})


def test_the_rendering_is_the_one_of_the_defaulted_graph() -> None:
    """What the verdict renders from the stored object is what rendering the graph itself gives."""
    from dynamo_pulumi.render import render_graph

    platform = load_platform(copy.deepcopy(PLATFORM))
    loaded = _loaded(BASE)
    verdict = judge(loaded, platform)
    assert verdict.rendered == render_graph(loaded.object, platform, loaded.object.metadata.namespace)


ALPHA = {
    "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "a", "namespace": "ns"},
    "spec": {"services": {"Frontend": {"componentType": "frontend", "replicas": 1,
                                       "extraPodSpec": {"mainContainer": {"image": "x:1.4.0"}}}}},
}


@pytest.mark.parametrize("mode", ["render", "operator"])
def test_a_v1alpha1_create_goes_through_the_one_pipeline_once(defaulted: Counter[str], mode: str) -> None:
    """Its alpha stages run on the alpha form; defaulting and the webhook's rules once, as for v1beta1."""
    verdict = judge(_loaded(ALPHA), mode=mode)
    assert verdict.deployable and verdict.rendered is not None and verdict.rendered.objects
    assert defaulted == Counter({"graph create": 1})


def test_a_component_update_defaults_only_the_old_object(defaulted: Counter[str]) -> None:
    """NEW is judged as sent (the stored ``spec.name`` carried), then created once for the rendering."""
    old = _loaded(DCD).object
    verdict = judge(_loaded(DCD), old=old, client="kubectl")
    assert verdict.deployable and verdict.rendered is not None
    assert defaulted == Counter({"component create": 2})

