"""The ``dynamo`` plugin against the dynamic-provider host: concurrency, start time, schema size.

Not a test: prints figures. Both transports are started as the engine starts them (the
``pulumi-resource-dynamo`` console script; ``python -m pulumi.dynamic``) and driven over gRPC
with the SDK's stubs (``tests/plugin_support.py``) against the loopback replay server: each
graph's Frontend is listed unready and its watch reports it ready after ``--ready-after``
seconds. Figures:

* one graph alone (the slowest single graph), then ``--graphs`` graphs created at once: the
  wall time of all of them, and its ratio to the single graph (target under the plugin: <= 1.2);
* the plugin's start time (process start to the port on stdout, then to the first answer);
* the schema's size (``GetSchema``).

Usage::

    .venv/bin/python bench/bench_plugin.py [--graphs 10] [--ready-after 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent import futures
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import readiness_contract as contract
from google.protobuf import empty_pb2
from plugin_support import DYNAMIC_HOST, DynamicDriver, FakeEngine, Plugin, PluginDriver, unwrap
from pulumi.runtime.proto import provider_pb2
from replay_support import ReplayServer


def _graph(server: ReplayServer, index: int, delay: float) -> dict:
    namespace = f"graph-{index}"
    contract.ready_after_one_change(server, namespace, delay=delay)
    return contract.props(server, namespace)


def wall_time(driver: PluginDriver, server: ReplayServer, count: int, delay: float, first: int = 0) -> float:
    """Seconds until ``count`` graphs created at once are all ready."""
    graphs = [_graph(server, first + i, delay) for i in range(count)]
    started = time.monotonic()
    with futures.ThreadPoolExecutor(max_workers=count) as pool:
        results = list(pool.map(driver.create, graphs))
    elapsed = time.monotonic() - started
    assert all(unwrap(outs)["state"] == "successful" for _, outs in results)
    return elapsed


def concurrency(name: str, engine: FakeEngine, command: list[str] | None, graphs: int, delay: float) -> None:
    plugin = Plugin(engine, command)
    server = ReplayServer().start()
    try:
        driver = DynamicDriver(plugin) if command == DYNAMIC_HOST else PluginDriver(plugin)
        if command != DYNAMIC_HOST:
            driver.configure({})
        wall_time(driver, server, 1, 0.0, first=1000)  # warm: imports, first client
        single = wall_time(driver, server, 1, delay, first=2000)
        many = wall_time(driver, server, graphs, delay)
        print(f"{name:<13} 1 graph {single:6.2f} s   {graphs} graphs at once {many:6.2f} s   "
              f"ratio {many / single:4.2f}x")
    finally:
        server.close()
        plugin.close()


def start_time(engine: FakeEngine, runs: int) -> None:
    to_port, to_answer = [], []
    for _ in range(runs):
        started = time.monotonic()
        plugin = Plugin(engine)
        to_port.append(time.monotonic() - started)
        plugin.stub.GetPluginInfo(empty_pb2.Empty())
        to_answer.append(time.monotonic() - started)
        plugin.close()
    print(f"plugin start  to port {statistics.median(to_port):.2f} s, to first answer "
          f"{statistics.median(to_answer):.2f} s (median of {runs})")


def schema_size(engine: FakeEngine) -> None:
    plugin = Plugin(engine)
    try:
        text = plugin.stub.GetSchema(provider_pb2.GetSchemaRequest(version=0)).schema
    finally:
        plugin.close()
    schema = json.loads(text)
    print(f"schema        {len(text.encode())} bytes, {len(schema['resources'])} resources, "
          f"{len(schema['types'])} types, {len(schema['config']['variables'])} config variables")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=10)
    parser.add_argument("--ready-after", type=float, default=3.0, help="seconds until each graph is ready")
    parser.add_argument("--starts", type=int, default=3, help="plugin starts to time")
    args = parser.parse_args()
    engine = FakeEngine().start()
    try:
        concurrency("plugin", engine, None, args.graphs, args.ready_after)
        concurrency("dynamic host", engine, DYNAMIC_HOST, args.graphs, args.ready_after)
        start_time(engine, args.starts)
        schema_size(engine)
    finally:
        engine.stop()


if __name__ == "__main__":
    main()
