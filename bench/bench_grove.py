#!/usr/bin/env python3
"""Time the Grove pathway on a graph with multinode Grove components.

Renders a disaggregated graph (frontend, planner, multinode vLLM prefill and decode, a multinode
TRT-LLM worker, an inter-pod GMS worker with failover) ``--runs`` times through
``render_grove`` and prints the time per graph and per rendered object. Deterministic input; the
first run is a warm-up and is not counted.

Usage: .venv/bin/python bench/bench_grove.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.defaulting.webhooks import default_graph
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove import render_grove

PLATFORM = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}}})


def _worker(name: str, ctype: str, nodes: int, module: str, gpus: int = 8, **extra: Any) -> dict[str, Any]:
    container = {
        "name": "main",
        "image": "nvcr.io/nvidia/ai-dynamo/runtime:1.4.0",
        "command": ["python3", "-m", module],
        "args": ["--model", "Qwen/Qwen3-0.6B", "--tensor-parallel-size", str(gpus * nodes)],
        "resources": {"limits": {"nvidia.com/gpu": str(gpus)}},
    }
    comp: dict[str, Any] = {"name": name, "type": ctype, "replicas": 2,
                            "podTemplate": {"spec": {"containers": [container]}}}
    if nodes > 1:
        comp["multinode"] = {"nodeCount": nodes}
    comp.update(extra)
    return comp


def bench_graph() -> DynamoGraphDeployment:
    frontend = {"name": "frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [
        {"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/runtime:1.4.0"}]}}}
    planner = {"name": "planner", "type": "planner", "podTemplate": {"spec": {"containers": [
        {"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/runtime:1.4.0"}]}}}
    components = [
        frontend,
        planner,
        _worker("prefill", "prefill", 2, "dynamo.vllm"),
        _worker("decode", "decode", 4, "dynamo.vllm"),
        _worker("gms", "worker", 2, "dynamo.vllm", gpus=4, experimental={
            "gpuMemoryService": {"mode": "InterPod"}, "failover": {"mode": "InterPod", "numShadows": 1}}),
    ]
    body = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": "bench-grove", "namespace": "bench",
                         "annotations": {"nvidia.com/dynamo-kube-discovery-mode": "container"}},
            "spec": {"backendFramework": "vllm", "components": components}}
    return default_graph(DynamoGraphDeployment.model_validate(body), PLATFORM)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    graph = bench_graph()
    objects = render_grove(graph, PLATFORM, "bench")
    cliques = len(objects[0]["spec"]["template"]["cliques"])
    timings = []
    for _ in range(args.runs):
        start = time.perf_counter()
        render_grove(graph, PLATFORM, "bench")
        timings.append(time.perf_counter() - start)
    per_graph = statistics.median(timings)
    print(f"graph: {len(graph.components)} components, {cliques} cliques, {len(objects)} objects")
    print(f"runs: {args.runs}, median {per_graph * 1000:.2f} ms/graph, "
          f"{per_graph * 1000 / len(objects):.3f} ms/object (min {min(timings) * 1000:.2f} ms)")


if __name__ == "__main__":
    main()
