"""The operator's dgd/grove golden scenario rendered through the Python API and scored with the
shared golden comparator (subset match with ``$pattern``/``$var`` directives)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from golden_support import load_golden_tool

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.defaulting.webhooks import default_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove import render_grove

NAMESPACE = "clusterenv-golden"


@pytest.fixture
def scenario(conformance_dir: Path) -> tuple[ModuleType, Path]:
    folder = conformance_dir / "golden" / "dgd" / "grove"
    if not folder.is_dir():
        pytest.skip("golden dgd/grove scenario is absent")
    return load_golden_tool(conformance_dir.parent / "tools"), folder


def _render(tool: ModuleType, folder: Path) -> list[dict[str, Any]]:
    platform = Platform.model_validate(tool.PLATFORM)
    graph = DynamoGraphDeployment.model_validate(yaml.safe_load((folder / "input.yaml").read_text()))
    return render_grove(default_graph(graph, platform), platform, NAMESPACE)


def test_golden_grove_scenario_matches_every_field(scenario: tuple[ModuleType, Path]) -> None:
    tool, folder = scenario
    expected = tool.load_stream((folder / "output.yaml").read_text())
    checked, failures, missed = tool.compare(expected, _render(tool, folder))
    assert checked > 200
    assert failures == [] and missed == 0


def test_golden_grove_render_is_byte_identical_across_runs(scenario: tuple[ModuleType, Path]) -> None:
    tool, folder = scenario
    first = yaml.safe_dump_all(_render(tool, folder), sort_keys=False)
    second = yaml.safe_dump_all(_render(tool, folder), sort_keys=False)
    assert first == second


def test_golden_grove_renders_one_pod_clique_set_named_after_the_graph(scenario: tuple[ModuleType, Path]) -> None:
    tool, folder = scenario
    pcs = [o for o in _render(tool, folder) if o["kind"] == "PodCliqueSet"]
    assert [p["metadata"]["name"] for p in pcs] == ["grove-manifest"]
    assert [c["name"] for c in pcs[0]["spec"]["template"]["cliques"]] == ["frontend", "decode-ldr", "decode-wkr"]
