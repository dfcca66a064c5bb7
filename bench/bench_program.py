"""Time of the whole Pulumi program under mocks against rendering alone.

    .venv/bin/python bench/bench_program.py [--repeat N]

Graphs: the largest corpus graph that renders (most objects; ``../shared`` needed, skipped when
absent) and a synthetic 25-component graph (the schema's maximum: a frontend and 24 workers).
"Render" = load + admission + render + plan (``program.plan``); "program" = the same plus every
Pulumi registration under ``pulumi.runtime.set_mocks`` until the runtime is idle; last, the outputs
summary (GPU counts included) as a share of planning.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.program.graph_program import deploy, plan

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
PLATFORMS: dict[str, dict[str, Any]] = {
    "component": {"orchestrators": {"lws": {"enabled": True}}},
    "grove": {"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}},
}
NAMESPACE = "bench"


def synthetic_graph(components: int = 25) -> dict[str, Any]:
    """A frontend and ``components - 1`` single-GPU vLLM workers (alternating prefill/decode)."""
    entries: list[dict[str, Any]] = [
        {"name": "Frontend", "type": "frontend", "replicas": 2,
         "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"}]}}}
    ]
    for i in range(components - 1):
        entries.append({
            "name": f"Worker{i:02d}",
            "type": "prefill" if i % 2 else "decode",
            "replicas": 1 + i % 3,
            "podTemplate": {"spec": {"containers": [{
                "name": "main",
                "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1",
                "command": ["python3", "-m", "dynamo.vllm"],
                "args": ["--model", f"org/model-{i}"],
                "resources": {"limits": {"nvidia.com/gpu": "1"}},
            }]}},
        })
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": "bench-25"}, "spec": {"backendFramework": "vllm", "components": entries}}


def largest_corpus_graph(platform: dict[str, Any]) -> Path | None:
    """The corpus graph with the most components (then objects) that admits and renders."""
    best: tuple[tuple[int, int], Path] | None = None
    for path in sorted(CORPUS.glob("*.yaml")) if CORPUS.is_dir() else []:
        try:
            planned = plan(path, NAMESPACE, platform)
        except DynamoPulumiError:
            continue
        size = (len(planned.components), len(planned.all_objects()))
        if best is None or size > best[0]:
            best = (size, path)
    return best[1] if best else None


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``fn`` over ``repeat`` runs, after one warm-up run."""
    fn()  # warm imports and caches
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def bench(label: str, source: Any, platform: dict[str, Any], repeat: int) -> None:
    planned = plan(source, NAMESPACE, platform)
    count = len(planned.all_objects()) + len(planned.components) + 1
    render_ms = median_ms(lambda: plan(source, NAMESPACE, platform), repeat)
    program_ms = median_ms(lambda: run_program(lambda: deploy(source, NAMESPACE, platform, export=False)), repeat)
    print(f"{label:<56} {len(planned.components):>4} {count:>9} {render_ms:>11.1f} {program_ms:>12.1f} "
          f"{program_ms / render_ms:>7.1f}x")


def bench_outputs(platform: dict[str, Any], repeat: int) -> None:
    """The 25-component graph placed on a node pool whose label is a ``pulumi.Output``: the cost
    of parking Outputs and checking that rendering only copies them."""
    import pulumi

    from dynamo_pulumi.resources import gpu_node_pool

    def program() -> None:
        pool = gpu_node_pool(label={"pool": pulumi.Output.from_input("gpu-a")}, taint_key="nvidia.com/gpu")
        deploy(synthetic_graph(), NAMESPACE, platform, placement=pool, export=False)

    program_ms = median_ms(lambda: run_program(program), repeat)
    print(f"{'synthetic: 25 components, Output placement':<56} {25:>4} {'':>9} {'':>11} {program_ms:>12.1f}")


def bench_summary(platform: dict[str, Any], repeat: int) -> None:
    """The outputs' share of planning: ``summarize`` (GPU counts by the renderer's rule over the
    DRA objects, Services, URL), which ``plan`` also runs once for its GPU warnings."""
    from dynamo_pulumi.planning.outputs import summarize

    planned = plan(synthetic_graph(), NAMESPACE, platform)
    plan_ms = median_ms(lambda: plan(synthetic_graph(), NAMESPACE, platform), repeat)
    summary_ms = median_ms(lambda: summarize(planned), max(repeat, 20))
    print(f"outputs summary of the 25-component graph: {summary_ms:.2f} ms = {summary_ms / plan_ms:.1%} of its plan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'graph [pathway]':<56} {'comp':>4} {'resources':>9} {'render (ms)':>11} {'program (ms)':>12} {'ratio':>8}")
    for pathway, platform in PLATFORMS.items():
        largest = largest_corpus_graph(platform)
        if largest is None:
            print(f"corpus [{pathway}]: no renderable graph (or ../shared absent), skipped")
        else:
            bench(f"corpus: {largest.name} [{pathway}]", largest, platform, args.repeat)
        bench(f"synthetic: 25 components [{pathway}]", synthetic_graph(), platform, args.repeat)
    bench_outputs(PLATFORMS["component"], args.repeat)
    bench_summary(PLATFORMS["component"], args.repeat)


if __name__ == "__main__":
    main()
