"""The component-pathway golden scenarios, field for field, through ``render_graph``.

The comparison is the conformance tool's own (``../shared/tools/golden.py``: directives, strict
mappings, ``$var`` binding), loaded with importlib. One correction: the tool applies core pod
defaults (``dnsPolicy``, ``imagePullPolicy``, probe ``scheme`` ...) to the pod templates inside a
LeaderWorkerSet too, but the API server only defaults pod templates of built-in kinds; a custom
resource stores its embedded templates as written, which is exactly what ``dcd/lws/output.yaml``
shows. Here those defaults are applied to built-in workloads only.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from golden_support import load_golden_tool

from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
CONFORMANCE = SHARED / "conformance"
CASES = ("dcd/deployment", "dcd/lws", "dgd/components")
BUILT_IN_WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "Pod")


def _golden_tool(shared: Path) -> ModuleType:
    module = load_golden_tool(shared / "tools")
    original = module.kubernetes_defaults

    def built_in_defaults_only(obj: dict[str, Any]) -> dict[str, Any]:
        if obj.get("kind") in BUILT_IN_WORKLOAD_KINDS:
            return original(obj)
        return obj

    module.kubernetes_defaults = built_in_defaults_only
    return module


@pytest.fixture(scope="module")
def golden() -> tuple[ModuleType, Path]:
    if not CONFORMANCE.is_dir():
        pytest.skip("../shared/conformance is not present on this machine")
    return _golden_tool(SHARED), CONFORMANCE / "golden"


def render_case(tool: ModuleType, folder: Path) -> list[dict[str, Any]]:
    graph = load_graph(folder / "input.yaml")
    result = render_graph(graph, Platform.model_validate(tool.PLATFORM), tool.NAMESPACE)
    return [*result.components, *result.objects]


@pytest.mark.parametrize("case", CASES)
def test_golden_scenario_matches_field_for_field(golden: tuple[ModuleType, Path], case: str) -> None:
    tool, root = golden
    folder = root / case
    expected = tool.load_stream((folder / "output.yaml").read_text())
    checked, failures, _ = tool.compare(expected, render_case(tool, folder))
    assert checked > 0
    assert failures == [], "\n".join(failures)


def test_golden_worker_dcd_hash_is_the_same_everywhere(golden: tuple[ModuleType, Path]) -> None:
    tool, root = golden
    docs = render_case(tool, root / "dgd/components")
    decode = next(d for d in docs if d["kind"] == "DynamoComponentDeployment" and d["spec"]["name"] == "decode")
    worker_hash = decode["metadata"]["labels"]["nvidia.com/dynamo-worker-hash"]
    deployment = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == decode["metadata"]["name"])
    env = {e["name"]: e.get("value") for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert decode["metadata"]["name"].endswith("-" + worker_hash)
    assert env["DYN_NAMESPACE_WORKER_SUFFIX"] == worker_hash


def test_golden_render_is_byte_identical_across_runs(golden: tuple[ModuleType, Path]) -> None:
    tool, root = golden
    first = yaml.safe_dump_all(render_case(tool, root / "dgd/components"))
    second = yaml.safe_dump_all(render_case(tool, root / "dgd/components"))
    assert first == second
