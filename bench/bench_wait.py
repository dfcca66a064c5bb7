"""API requests the waiter makes while 25 components become ready one by one.

Not a test: prints figures. The waiter runs through the real ``kubernetes`` client against the
loopback replay server of the test suite (``tests/replay_support.py``): 25 Deployments start
unready; a watch stream then reports each of them progressing (1/2 ready) and then ready (2/2),
one component after the other. Three scenarios:

* ``steady``: one long watch delivers every change;
* ``expiring``: the server ends the watch every 10 events (its watch timeout), the waiter
  watches again from the last resourceVersion;
* ``gone``: as ``expiring``, and one re-watch is answered 410 Gone, forcing a re-list.

Usage::

    .venv/bin/python bench/bench_wait.py [--components N]
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from replay_support import ReplayServer, event, gone, listing, stream

from dynamo_pulumi.cluster.api import ResourceRef
from dynamo_pulumi.cluster.waiter import POD, Waiter
from dynamo_pulumi.readiness.targets import WaitRequest, WatchTarget

NS = "bench"
DEPLOYMENT = ResourceRef("apps/v1", "Deployment")


def deployment(index: int, ready: int, version: int) -> dict[str, Any]:
    name = f"g-c{index:02d}"
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": NS, "generation": 1, "resourceVersion": str(version),
                     "labels": {"nvidia.com/dynamo-component": f"c{index:02d}"}},
        "spec": {"replicas": 2},
        "status": {"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "readyReplicas": ready,
                   "availableReplicas": ready,
                   "conditions": [{"type": "Available", "status": "True" if ready == 2 else "False"}]},
    }


def events(count: int) -> list[dict[str, Any]]:
    version = 100
    out = []
    for index in range(count):
        for ready in (1, 2):
            version += 1
            out.append(event("MODIFIED", deployment(index, ready, version)))
    return out


def script(server: ReplayServer, count: int, scenario: str) -> None:
    initial = [deployment(i, 0, 100) for i in range(count)]
    server.on_list(POD, NS, listing([], "50"))
    changes = events(count)
    if scenario == "steady":
        server.on_list(DEPLOYMENT, NS, listing(initial, "100"))
        server.on_watch(DEPLOYMENT, NS, stream(changes, delay=0.002))
        return
    chunks = [changes[i:i + 10] for i in range(0, len(changes), 10)]
    streams = [stream(chunk, delay=0.002) for chunk in chunks]
    if scenario == "gone":
        # After the second chunk the server has compacted: the next watch gets 410, the waiter
        # re-lists (seeing the state so far) and watches on.
        seen = copy.deepcopy(initial)
        for item in changes[:20]:
            obj = item["object"]
            seen[int(obj["metadata"]["name"][-2:])] = obj
        server.on_list(DEPLOYMENT, NS, listing(initial, "100"), listing(seen, "120"))
        streams.insert(2, stream([gone("120")], delay=0.0))
    else:
        server.on_list(DEPLOYMENT, NS, listing(initial, "100"))
    server.on_watch(DEPLOYMENT, NS, *streams)


def run(count: int, scenario: str) -> tuple[int, dict[str, int], int, float]:
    server = ReplayServer().start()
    try:
        script(server, count, scenario)
        targets = tuple(
            WatchTarget(api_version="apps/v1", kind="Deployment", namespace=NS, name=f"g-c{i:02d}",
                        component=f"c{i:02d}", group=f"g-c{i:02d}")
            for i in range(count)
        )
        lines: list[str] = []
        request = WaitRequest(graph="g", namespace=NS, targets=targets, timeout_seconds=60,
                              pod_selector="nvidia.com/dynamo-graph-deployment-name=g")
        started = time.perf_counter()
        status = Waiter(server.api(), request, lines.append).wait()
        elapsed = time.perf_counter() - started
        assert status.is_ready, status.ready
        kinds: dict[str, int] = {}
        for _, path, query in server.log:
            key = ("watch " if "watch" in query else "list ") + path.rsplit("/", 1)[-1]
            kinds[key] = kinds.get(key, 0) + 1
        return len(server.log), kinds, len(lines), elapsed
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--components", type=int, default=25)
    args = parser.parse_args()
    count = args.components
    print(f"{count} components, each going 0/2 -> 1/2 -> 2/2 ready ({2 * count} state changes)")
    print(f"{'scenario':<10} {'requests':>8} {'per component':>14} {'per change':>11} {'progress lines':>15} {'wall s':>7}  breakdown")
    for scenario in ("steady", "expiring", "gone"):
        total, kinds, lines, elapsed = run(count, scenario)
        breakdown = ", ".join(f"{k}={v}" for k, v in sorted(kinds.items()))
        print(f"{scenario:<10} {total:>8} {total / count:>14.2f} {total / (2 * count):>11.2f} {lines:>15} {elapsed:>7.2f}  {breakdown}")
    print("Requests grow with watch expiries and re-lists, not with time spent waiting (idle watches cost none).")


if __name__ == "__main__":
    main()
