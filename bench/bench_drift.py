"""What operator mode's drift check costs: API requests and time, and the CLI's extra planning.

Not a test: prints figures. A graph of one frontend and N workers is planned in operator mode;
its predicted expansion is served by the loopback replay server of the test suite
(``tests/replay_support.py``) as the API server would store it, and the one drift check both
front ends run (:func:`dynamo_pulumi.cluster.drift_check.operator_drift`) reads it back through
the real ``kubernetes`` client. Figures:

* predicted objects, requests of the check (one LIST per kind), requests per object;
* the check's wall time, per object, and the pure comparison's share of it (the rest is the
  loopback round trips of the replay server, which dominate);
* ``dynamo-pulumi wait|status`` preparing the file: ``--mode operator`` (watch the DGD and plan
  the prediction) against ``--mode render`` (render the workloads), as a ratio of one run.

Usage::

    .venv/bin/python bench/bench_drift.py [--workers N]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from replay_support import ReplayServer, listing

from dynamo_pulumi.cli import build_parser
from dynamo_pulumi.cli.cluster_common import watched_graphs
from dynamo_pulumi.cluster.api import ResourceRef
from dynamo_pulumi.cluster.drift_check import operator_drift
from dynamo_pulumi.cluster.waiter import Waiter
from dynamo_pulumi.planning.operator_mode import plan_prediction
from dynamo_pulumi.planning.plan import plan_graph
from dynamo_pulumi.readiness.drift import drift, object_id
from dynamo_pulumi.readiness.targets import WaitRequest, operator_targets

NS = "bench"


def graph(workers: int) -> dict[str, Any]:
    def component(name: str, type_: str, image: str) -> dict[str, Any]:
        return {"name": name, "type": type_, "replicas": 1,
                "podTemplate": {"spec": {"containers": [{"name": "main", "image": image}]}}}

    components = [component("Frontend", "frontend", "nvcr.io/dynamo/frontend:1.0.0")]
    components += [component(f"w{i:02d}", "worker", "nvcr.io/dynamo/vllm:1.0.0") for i in range(workers)]
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": "g", "namespace": NS},
            "spec": {"backendFramework": "vllm", "components": components}}


def stored(obj: dict[str, Any], index: int) -> dict[str, Any]:
    live = copy.deepcopy(obj)
    live["metadata"].update({"uid": f"uid-{index}", "resourceVersion": str(index), "generation": 1})
    live["status"] = {"observedGeneration": 1}
    return live


def measure_check(doc: dict[str, Any]) -> None:
    predicted = plan_prediction(plan_graph(doc, namespace=NS, mode="operator"))
    server = ReplayServer().start()
    try:
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for index, obj in enumerate(predicted):
            path = ResourceRef(obj["apiVersion"], obj["kind"]).path(obj["metadata"].get("namespace", NS))
            by_kind.setdefault(path, []).append(stored(obj, index))
        for path, items in by_kind.items():
            server.on(path, listing(items))
        request = WaitRequest(mode="operator", graph="g", namespace=NS, targets=tuple(operator_targets(
            "DynamoGraphDeployment", "g", NS)))
        api = server.api()
        started = time.perf_counter()
        report = operator_drift(Waiter(api, request), predicted)
        elapsed = time.perf_counter() - started
    finally:
        server.close()
    actual = {object_id(o): stored(o, i) for i, o in enumerate(predicted)}
    started = time.perf_counter()
    drift(predicted, actual)
    compare = time.perf_counter() - started
    objects = len(predicted)
    print(f"predicted objects:        {objects}")
    print(f"drift findings:           {len(report.findings)} (expansion served as predicted)")
    print(f"requests:                 {api.requests} for {len(by_kind)} kinds  ({api.requests / objects:.2f} per object)")
    print(f"drift check:              {elapsed * 1000:.1f} ms  ({elapsed * 1000 / objects:.2f} ms per object)")
    print(f"  of which comparing:     {compare * 1000:.1f} ms  ({compare / elapsed:.1%} of the check)")


def measure_prepare(doc: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "graph.yaml"
        path.write_text(yaml.safe_dump(doc))
        timings = {}
        for mode in ("render", "operator"):
            argv = ["status", str(path), "--mode", mode]
            args = build_parser(argv).parse_args(argv)  # the command's own flags, defaults included
            watched_graphs(args)  # warm imports and caches once
            started = time.perf_counter()
            watched_graphs(args)
            timings[mode] = time.perf_counter() - started
    print(f"prepare --mode render:    {timings['render'] * 1000:.1f} ms")
    print(f"prepare --mode operator:  {timings['operator'] * 1000:.1f} ms  "
          f"(x{timings['operator'] / timings['render']:.2f} of render mode: admission + plan for the prediction)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=24)
    args = parser.parse_args()
    doc = graph(args.workers)
    print(f"graph: 1 frontend + {args.workers} workers")
    measure_check(doc)
    measure_prepare(doc)


if __name__ == "__main__":
    main()
