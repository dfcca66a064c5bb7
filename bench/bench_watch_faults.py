"""``dynamo-pulumi wait`` under API faults: requests, wall time, exit code and peak memory per case.

Not a test: prints figures. The loopback replay server of the test suite (``tests/replay_support.py``)
plays a faulty API server in this process; the real ``dynamo-pulumi wait`` runs as a child process
(its peak RSS read with ``os.wait4``), with a kubeconfig pointing at the server. Cases (issue 15,
"Why" section 3): 410 Gone on every watch resume, three 500s / three 429s (Retry-After: 1) / one
truncated body at the first list, a hung server (accepts, never answers), a slow server (2 s per
answer) with a graph already ready, 401 on the watch, and a namespace of 10,000 pods (all the graph's, listed by the pod watch) and 50,000
events on the timeout path. A child still running 60 s past its timeout is killed (``killed``).

Usage::

    .venv/bin/python bench/bench_watch_faults.py [--code DIR] [--case NAME ...]

``--code DIR`` runs the child with ``DIR`` first on ``PYTHONPATH`` (an older ``dynamo_pulumi``
exported with ``git archive``), for before/after figures.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import yaml  # noqa: E402
from replay_support import ReplayServer, event, gone, listing, status_error, stream, truncated  # noqa: E402
from resources_fixtures import NS, graph_doc  # noqa: E402
from test_cli_wait import _names  # noqa: E402
from test_cluster_waiter import DEPLOYMENT, deployment  # noqa: E402

from dynamo_pulumi.cluster.waiter import EVENT, POD  # noqa: E402

KILL_AFTER = 60.0


def _graph(server: ReplayServer, decode_ready: int) -> None:
    frontend, decode = _names()
    server.always(DEPLOYMENT, NS, listing([deployment(frontend, "Frontend", 1, desired=1),
                                           deployment(decode, "decode", decode_ready)], "10"))


def _pods(server: ReplayServer, count: int = 0) -> None:
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"llm-decode-{i:05d}", "namespace": NS, "resourceVersion": "5",
                          "labels": {"nvidia.com/dynamo-component": "decode"}},
             "spec": {"containers": [{"name": "main", "image": "nvcr.io/dynamo/vllm:1.0.0"}]},
             "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                            "reason": "Unschedulable",
                                                            "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}]}}
            for i in range(count)]
    server.always(POD, NS, listing(pods, "5"))


def _events(server: ReplayServer, count: int) -> None:
    items = [{"apiVersion": "v1", "kind": "Event", "type": "Warning" if i % 2 else "Normal",
              "metadata": {"name": f"llm-decode-{i % 10000:05d}.{i:08x}", "namespace": NS},
              "involvedObject": {"kind": "Pod", "name": f"llm-decode-{i % 10000:05d}", "namespace": NS},
              "reason": "Unhealthy" if i % 2 else "Pulled",
              "message": "Readiness probe failed: HTTP probe failed with statuscode: 503" if i % 2
              else "Successfully pulled image \"nvcr.io/dynamo/vllm:1.0.0\" in 1.2s"}
             for i in range(count)]
    server.always(EVENT, NS, listing(items, "7"))


def gone_every_resume(server: ReplayServer) -> None:
    _graph(server, 0)
    server.always(DEPLOYMENT, NS, stream([gone("10")], delay=0), watch=True)
    _pods(server)
    _events(server, 0)


def first_list_failing(failure: Any) -> Callable[[ReplayServer], None]:
    def script(server: ReplayServer) -> None:
        server.on_list(DEPLOYMENT, NS, failure, failure, failure)
        _graph(server, 2)
        _pods(server)
    return script


def truncated_first_list(server: ReplayServer) -> None:
    server.on_list(DEPLOYMENT, NS, truncated({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "10"},
                                              "items": [deployment("x", "decode", 0)]}))
    _graph(server, 2)
    _pods(server)


def hung(server: ReplayServer) -> None:
    server.hang_all = True


def slow_ready(server: ReplayServer) -> None:
    server.latency = 2.0
    _graph(server, 2)
    _pods(server)


def unauthorized_mid_run(server: ReplayServer) -> None:
    _graph(server, 0)
    _, decode = _names()
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", deployment(decode, "decode", 1, version="11"))]),
                    status_error(401, "Unauthorized", "Unauthorized"))
    _pods(server)


def crowded_namespace(server: ReplayServer) -> None:
    _graph(server, 0)
    _pods(server, 10_000)
    _events(server, 50_000)


@dataclass(frozen=True)
class Case:
    name: str
    script: Callable[[ReplayServer], None]
    timeout: int


CASES = [
    Case("410-every-resume", gone_every_resume, 8),
    Case("500x3-first-list", first_list_failing(status_error(500, "InternalError", "etcdserver: leader changed")), 30),
    Case("429x3-first-list", first_list_failing(status_error(429, "TooManyRequests", "slow down", retry_after=1)), 30),
    Case("truncated-first-list", truncated_first_list, 30),
    Case("hung-server", hung, 10),
    Case("slow-server-ready", slow_ready, 60),
    Case("401-mid-run", unauthorized_mid_run, 30),
    Case("10k-pods-50k-events", crowded_namespace, 10),
]


def run(case: Case, code: str | None, workdir: Path) -> dict[str, Any]:
    server = ReplayServer().start()
    try:
        case.script(server)
        graph = workdir / "graph.yaml"
        graph.write_text(yaml.safe_dump(graph_doc()))
        kubeconfig = workdir / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig())
        env = dict(os.environ)
        if code:
            env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
        command = [sys.executable, "-m", "dynamo_pulumi", "wait", str(graph), "--kubeconfig", str(kubeconfig),
                   "--timeout", f"{case.timeout}s"]
        start = time.monotonic()
        child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=workdir)
        status, rusage, killed = _reap(child, start + case.timeout + KILL_AFTER)
        wall = time.monotonic() - start
        end = time.monotonic()
        stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
        first = server.times[0] if server.times else end
        return {"case": case.name, "timeout": case.timeout, "exit": "killed" if killed else str(_code(status)),
                "requests": len(server.log), "wall": wall, "waiting": end - first, "rss": rusage.ru_maxrss / 1024,
                "urllib3": "urllib3" in stderr or "MaxRetryError" in stderr}
    finally:
        server.close()


def _reap(child: subprocess.Popen[bytes], kill_at: float) -> tuple[int, Any, bool]:
    killed = False
    while True:
        pid, status, rusage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            child.returncode = _code(status)
            return status, rusage, killed
        if time.monotonic() > kill_at and not killed:
            os.kill(child.pid, signal.SIGKILL)
            killed = True
        time.sleep(0.05)


def _code(status: int) -> int:
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", default=None, help="directory holding the dynamo_pulumi package to run")
    parser.add_argument("--case", action="append", choices=[c.name for c in CASES])
    args = parser.parse_args()
    print("wall s: the whole command (start-up included); waited s: from its first request to its exit")
    print(f"{'case':<22} {'timeout':>7} {'exit':>6} {'requests':>8} {'req/s':>6} {'wall s':>7} {'waited s':>8} "
          f"{'peak RSS MiB':>12}  urllib3 text")
    for case in CASES:
        if args.case and case.name not in args.case:
            continue
        with tempfile.TemporaryDirectory() as workdir:
            row = run(case, args.code, Path(workdir))
        print(f"{row['case']:<22} {row['timeout']:>6}s {row['exit']:>6} {row['requests']:>8} "
              f"{row['requests'] / max(row['waiting'], 0.001):>6.1f} {row['wall']:>7.1f} {row['waiting']:>8.1f} "
              f"{row['rss']:>12.0f}  "
              f"{'yes' if row['urllib3'] else 'no'}", flush=True)


if __name__ == "__main__":
    main()
