"""Render timing: the largest corpus graph and a synthetic 25-component graph.

Not a test: prints time per graph and per rendered object. Usage::

    .venv/bin/python bench/bench_render.py [--repeat N]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.loading.documents import load_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_grove import bench_graph as grove_graph

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
PLATFORM = Platform.model_validate(
    {"discovery": {"backend": "kubernetes"}, "orchestrators": {"grove": {"enabled": False}, "lws": {"enabled": True}}}
)
WORKER = {
    "type": "decode",
    "replicas": 2,
    "podTemplate": {
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0",
                    "command": ["python3", "-m", "dynamo.vllm"],
                    "args": ["--model", "Qwen/Qwen3-0.6B", "--tensor-parallel-size", "1"],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            ]
        }
    },
    "modelRef": {"name": "Qwen/Qwen3-0.6B"},
}


def synthetic_graph(components: int = 25) -> DynamoGraphDeployment:
    """A frontend, a planner and ``components - 2`` vLLM decode workers (one multinode)."""
    specs: list[dict[str, Any]] = [
        {"name": "Frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "f:1.4.0"}]}}},
        {"name": "Planner", "type": "planner", "podTemplate": {"spec": {"containers": [{"name": "main", "image": "p:1.4.0"}]}}},
    ]
    for i in range(components - 2):
        worker = copy.deepcopy(WORKER) | {"name": f"worker{i}"}
        if i == 0:
            worker["multinode"] = {"nodeCount": 2}
        specs.append(worker)
    return DynamoGraphDeployment.model_validate(
        {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "bench"},
         "spec": {"backendFramework": "vllm", "components": specs}}
    )


def largest_corpus_graph() -> tuple[str, DynamoGraphDeployment] | None:
    """The renderable corpus graph with the most components."""
    best: tuple[int, str, Any] | None = None
    for path in sorted(CORPUS.glob("*.yaml")) if CORPUS.is_dir() else []:
        try:
            graph = load_graph(path)
            render_graph(graph, PLATFORM, "bench")
        except DynamoPulumiError:
            continue
        size = len(graph.components) if isinstance(graph, DynamoGraphDeployment) else 1
        if best is None or size > best[0]:
            best = (size, path.name, graph)
    return (best[1], best[2]) if best else None


GROVE_PLATFORM = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}})


def _best(action: Any, repeat: int, batches: int = 5) -> float:
    """Seconds per call, the best batch of ``batches`` (the least disturbed by other load)."""
    best = float("inf")
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(repeat):
            action()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


def bench(label: str, graph: Any, repeat: int, platform: Platform = PLATFORM) -> float:
    """Print and return the time per rendered document (seconds)."""
    result = render_graph(graph, platform, "bench")  # warm-up (imports, caches)
    elapsed = _best(lambda: render_graph(graph, platform, "bench"), repeat)
    count = len(result.objects) + len(result.components)
    documents = [*result.components, *result.objects]
    dumps = _best(lambda: json.dumps(documents), repeat)
    print(
        f"{label}: {elapsed * 1000:.1f} ms per graph, {count} documents, {elapsed * 1e6 / count:.0f} us per "
        f"document; {elapsed / dumps:.1f}x json.dumps of its own output ({dumps * 1000:.2f} ms)"
    )
    return elapsed / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    found = largest_corpus_graph()
    if found is not None:
        bench(f"corpus {found[0]}", found[1], args.repeat)
    else:
        print("corpus not present; skipping the corpus graph")
    component = bench("synthetic 25 components", synthetic_graph(25), args.repeat)
    grove = bench("multinode Grove graph (bench_grove)", grove_graph(), args.repeat, GROVE_PLATFORM)
    print(f"per-document cost, Grove multinode / component pathway: {grove / component:.1f}x")


if __name__ == "__main__":
    main()
