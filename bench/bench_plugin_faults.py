"""The ``dynamo`` plugin under faults, driven over gRPC as the engine drives it (issue 26).

Not a test: prints figures. The plugin is started as the engine starts it (its console script,
``tests/plugin_support.py``) with a private ``$TMPDIR``, against the loopback replay server
(``tests/replay_support.py``; HTTPS with throw-away client certificates made by ``openssl`` for
the credential cases) and a fake engine on loopback. Every graph is listed unready and its watch
stays idle, so each wait is in flight until something ends it. Figures:

* ``cancel``: N waits in flight, the engine's ``Cancel``: seconds until every Create answered
  (and with what status), the plugin's threads and connections to the API server after;
* ``dropped``: one Create dropped by its caller while it watches (its gRPC deadline of 3 s passes,
  or it cancels the call): seconds until the plugin holds no connection to the API server and is
  back to its idle thread count;
* ``signals``: N waits in flight with client-certificate kubeconfigs, then SIGINT or SIGTERM:
  seconds until the process exited, files left in its ``$TMPDIR``;
* ``files``: files in ``$TMPDIR`` after a successful Create, after a Cancel, at the peak and
  after N concurrent waits with N different kubeconfigs, and after the plugin's exit;
* ``engine``: the time of one Create on a ready graph with a healthy engine, a stalled one
  (``Log`` never returns), one that never answers (a port that accepts no connection), none;
* ``concurrency``: 1, then 50/200/500 graphs at once, each ready ``--ready-after`` seconds after
  its watch opens: wall time and its ratio to one graph, the plugin's peak RSS and threads.

A figure past its cap (the deadline, ``--cap``) is printed as ``>= cap``.

Usage::

    .venv/bin/python bench/bench_plugin_faults.py [--code DIR] [--only cancel,signals,...]

``--code DIR`` starts the plugin with ``DIR`` first on ``PYTHONPATH`` (an older ``dynamo_pulumi``
exported with ``git archive``), for before/after figures.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import grpc  # noqa: E402
import readiness_contract as contract  # noqa: E402
from google.protobuf import empty_pb2  # noqa: E402
from plugin_support import (  # noqa: E402
    FakeEngine,
    Plugin,
    SilentEngine,
    StalledEngine,
    connections_to,
    from_struct,
    threads_of,
    to_struct,
    unwrap,
)
from pulumi.runtime.proto import provider_pb2  # noqa: E402
from replay_support import ReplayServer, event, listing, stream  # noqa: E402
from test_cluster_waiter import DEPLOYMENT, deployment  # noqa: E402

from dynamo_pulumi.cluster.waiter import POD  # noqa: E402

URN = "urn:pulumi:dev::proj::dynamo:index:GraphReadiness::{name}"
CODE: Path | None = None


# --- the plugin process ------------------------------------------------------------------------

@contextlib.contextmanager
def plugin_with(engine: Any, tmpdir: Path | None = None) -> Iterator[Plugin]:
    """The plugin started against ``engine`` (anything with ``.address``), its ``$TMPDIR`` a
    private folder when given, its code from ``--code`` when given."""
    saved = {key: os.environ.get(key) for key in ("TMPDIR", "PYTHONPATH")}
    if tmpdir is not None:
        os.environ["TMPDIR"] = str(tmpdir)
    if CODE is not None:
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(CODE), saved["PYTHONPATH"]) if p)
    try:
        plugin = _started(engine)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    try:
        yield plugin
    finally:
        with contextlib.suppress(Exception):
            plugin.close()


def _started(engine: Any) -> Plugin:
    if CODE is None:
        return Plugin(engine)
    # plugin_support puts the imported dynamo_pulumi's root first; put --code before it.
    import plugin_support

    original = plugin_support._env

    def env() -> dict[str, str]:
        values = original()
        values["PYTHONPATH"] = os.pathsep.join((str(CODE), values["PYTHONPATH"]))
        return values

    plugin_support._env = env
    try:
        return Plugin(engine)
    finally:
        plugin_support._env = original


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Sampler:
    """The plugin's thread count, sampled every 0.1 s; ``peak`` the largest seen."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self.peak = max(self.peak, threads_of(self.pid))

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


def files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def until(condition: Callable[[], bool], seconds: float, step: float = 0.05) -> float | None:
    """Seconds until ``condition()`` held, None when it did not within ``seconds``."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if condition():
            return time.monotonic() - start
        time.sleep(step)
    return None


def shown(seconds: float | None, cap: float) -> str:
    return f">= {cap:.0f} s" if seconds is None else f"{seconds:.2f} s"


# --- the cluster and the calls -----------------------------------------------------------------

def unready(server: ReplayServer, namespace: str) -> None:
    """A graph listed unready whose watch stays open and idle."""
    server.always(DEPLOYMENT, namespace, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.always(POD, namespace, listing([]))


def ready_after(server: ReplayServer, namespace: str, delay: float) -> None:
    server.on_list(DEPLOYMENT, namespace, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_watch(DEPLOYMENT, namespace, stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2,
                                                                                 version="11"))], delay=delay))
    server.on_list(POD, namespace, listing([]))


def create_request(props: dict[str, Any], name: str) -> provider_pb2.CreateRequest:
    return provider_pb2.CreateRequest(urn=URN.format(name=name), properties=to_struct(props))


@dataclass
class Answer:
    """One Create's outcome: its status code name ("OK" for an answer), message, when."""

    code: str
    message: str
    at: float
    properties: dict[str, Any] = field(default_factory=dict)


def create(plugin: Plugin, props: dict[str, Any], name: str, timeout: float) -> Answer:
    try:
        response = plugin.stub.Create(create_request(props, name), timeout=timeout)
    except grpc.RpcError as error:
        return Answer(error.code().name, (error.details() or "").splitlines()[0] if error.details() else "",
                      time.monotonic())
    return Answer("OK", "", time.monotonic(), unwrap(from_struct(response.properties)))


def open_watches(server: ReplayServer, namespaces: list[str]) -> int:
    return sum(bool(server.requests_to(DEPLOYMENT.path(ns), watch=True)) for ns in namespaces)


def in_flight(plugin: Plugin, server: ReplayServer, count: int, deadline: float,
              kubeconfigs: list[str] | None = None, pool: futures.Executor | None = None) -> list[futures.Future[Answer]]:
    """``count`` Creates of unready graphs, returned once every graph's watch is open."""
    namespaces = [f"wait-{i}" for i in range(count)]
    for namespace in namespaces:
        unready(server, namespace)
    assert pool is not None
    calls = []
    for i, namespace in enumerate(namespaces):
        props = contract.props(server, namespace, timeout_seconds=deadline)
        if kubeconfigs:
            props["kubeconfig"] = kubeconfigs[i % len(kubeconfigs)]
        calls.append(pool.submit(create, plugin, props, namespace, deadline + 60))
    if until(lambda: open_watches(server, namespaces) == count, 120) is None:
        print(f"  (only {open_watches(server, namespaces)} of {count} watches opened)")
    return calls


def summary(answers: list[Answer]) -> str:
    codes: dict[str, int] = {}
    for answer in answers:
        codes[answer.code] = codes.get(answer.code, 0) + 1
    first = next((a.message for a in answers if a.message), "")
    return ", ".join(f"{n} {c}" for c, n in sorted(codes.items())) + (f"; first message: {first!r}" if first else "")


# --- TLS and client certificates ---------------------------------------------------------------

def certificate(folder: Path, name: str) -> tuple[str, str]:
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    f"/CN={name}", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


def b64(path: str) -> str:
    return base64.b64encode(Path(path).read_bytes()).decode()


def client_kubeconfigs(server: ReplayServer, folder: Path, count: int) -> list[str]:
    """``count`` kubeconfigs for ``server``, each with its own client certificate and key (data
    fields: the client decodes them into files)."""
    configs = []
    for i in range(count):
        cert, key = certificate(folder, f"client-{i}")
        configs.append(server.kubeconfig(user={"client-certificate-data": b64(cert), "client-key-data": b64(key)}))
    return configs


# --- the cases ---------------------------------------------------------------------------------

def case_cancel(args: argparse.Namespace) -> None:
    engine, server = FakeEngine().start(), ReplayServer().start()
    try:
        with plugin_with(engine) as plugin, futures.ThreadPoolExecutor(max_workers=args.waits) as pool:
            idle_threads = threads_of(plugin.process.pid)
            calls = in_flight(plugin, server, args.waits, args.cap, pool=pool)
            busy = threads_of(plugin.process.pid), connections_to(plugin.process.pid, server.httpd.server_address[1])
            sent = time.monotonic()
            plugin.stub.Cancel(empty_pb2.Empty(), timeout=10)
            answers = [c.result() for c in calls]
            ended = max(a.at for a in answers) - sent
            time.sleep(2)
            after = threads_of(plugin.process.pid), connections_to(plugin.process.pid, server.httpd.server_address[1])
        print(f"cancel        {args.waits} waits: every Create answered {ended:.2f} s after Cancel ({summary(answers)})")
        print(f"              threads idle {idle_threads}, waiting {busy[0]}, 2 s after {after[0]}; "
              f"connections waiting {busy[1]}, 2 s after {after[1]}")
    finally:
        server.close()
        engine.stop()


def case_dropped(args: argparse.Namespace) -> None:
    """The caller drops a Create while it watches (its gRPC deadline of 3 s passes; it cancels the
    call): how long until the plugin holds no connection to the API server and no wait thread."""
    engine, server = FakeEngine().start(), ReplayServer().start()
    port = server.httpd.server_address[1]
    try:
        for drop in ("deadline", "cancel"):
            with plugin_with(engine) as plugin:
                ready_after(server, f"warm-{drop}", 0.0)
                create(plugin, contract.props(server, f"warm-{drop}"), f"warm-{drop}", 60)  # imports, first client
                idle = threads_of(plugin.process.pid)
                namespace = f"dropped-{drop}"
                unready(server, namespace)
                request = create_request(contract.props(server, namespace, timeout_seconds=args.cap), namespace)
                call = plugin.stub.Create.future(request, timeout=3 if drop == "deadline" else None)
                until(lambda ns=namespace: open_watches(server, [ns]) == 1
                      and connections_to(plugin.process.pid, port) >= 2, 3)
                held = connections_to(plugin.process.pid, port)
                if drop == "cancel":
                    call.cancel()
                else:
                    with contextlib.suppress(grpc.RpcError):
                        call.result()
                gone = until(lambda p=plugin.process.pid, i=idle: connections_to(p, port) == 0 and threads_of(p) <= i + 1,
                             args.cap + 5)
                how = "its 3 s deadline passed" if drop == "deadline" else "it cancelled the call"
                print(f"dropped call  the caller dropped a watching Create ({how}; {held} connections held): the plugin "
                      f"let go {shown(gone, args.cap + 5)} later (threads idle {idle}, now "
                      f"{threads_of(plugin.process.pid)}, connections {connections_to(plugin.process.pid, port)})")
    finally:
        server.close()
        engine.stop()


def case_signals(args: argparse.Namespace, folder: Path) -> None:
    cert = certificate(folder, "server")
    for signum in (signal.SIGINT, signal.SIGTERM):
        engine, server = FakeEngine().start(), ReplayServer(tls=cert).start()
        tmpdir = Path(tempfile.mkdtemp(prefix="plugin-tmp-", dir=folder))
        try:
            configs = client_kubeconfigs(server, folder, 2)
            with plugin_with(engine, tmpdir) as plugin, futures.ThreadPoolExecutor(max_workers=args.waits) as pool:
                calls = in_flight(plugin, server, args.waits, args.cap, configs, pool)
                during = len(files_in(tmpdir))
                sent = time.monotonic()
                plugin.process.send_signal(signum)
                try:
                    plugin.process.wait(args.cap + 10)
                    exited: float | None = time.monotonic() - sent
                except subprocess.TimeoutExpired:
                    exited = None
                code = plugin.process.returncode
                plugin.process.kill()
                answers = [c.result() for c in calls]
                left = files_in(tmpdir)
            print(f"{signal.Signals(signum).name:<13} {args.waits} waits: exited {shown(exited, args.cap + 10)} after the "
                  f"signal (code {code}); {summary(answers)}")
            print(f"              files in $TMPDIR while waiting {during}, after exit {len(left)}")
        finally:
            server.close()
            engine.stop()


def case_files(args: argparse.Namespace, folder: Path) -> None:
    cert = certificate(folder, "server-files")
    engine, server = FakeEngine().start(), ReplayServer(tls=cert).start()
    tmpdir = Path(tempfile.mkdtemp(prefix="plugin-tmp-", dir=folder))
    try:
        configs = client_kubeconfigs(server, folder, args.waits)
        with plugin_with(engine, tmpdir) as plugin, futures.ThreadPoolExecutor(max_workers=args.waits) as pool:
            ready_after(server, "one", 0.2)
            answer = create(plugin, contract.props(server, "one", kubeconfig=configs[0]), "one", 60)
            after_create = files_in(tmpdir)
            calls = in_flight(plugin, server, 1, args.cap, configs[:1], pool)
            plugin.stub.Cancel(empty_pb2.Empty(), timeout=10)
            cancelled = calls[0].result()
            time.sleep(1)
            after_cancel = files_in(tmpdir)
        print(f"files         one Create ({answer.code}): {len(after_create)} files left in $TMPDIR while the plugin "
              f"runs; after a Cancel ({cancelled.code}): {len(after_cancel)}")
        engine2 = FakeEngine().start()
        tmpdir2 = Path(tempfile.mkdtemp(prefix="plugin-tmp-", dir=folder))
        peak = [0]
        try:
            with plugin_with(engine2, tmpdir2) as plugin, futures.ThreadPoolExecutor(max_workers=args.waits) as pool:
                namespaces = [f"many-{i}" for i in range(args.waits)]
                for namespace in namespaces:
                    ready_after(server, namespace, 1.0)
                stop = threading.Event()

                def watch_files() -> None:
                    while not stop.wait(0.02):
                        peak[0] = max(peak[0], len(files_in(tmpdir2)))

                watcher = threading.Thread(target=watch_files, daemon=True)
                watcher.start()
                calls = [pool.submit(create, plugin, contract.props(server, ns, kubeconfig=configs[i]), ns, 120)
                         for i, ns in enumerate(namespaces)]
                answers = [c.result() for c in calls]
                stop.set()
                watcher.join()
                after_all = files_in(tmpdir2)
                plugin.process.send_signal(signal.SIGINT)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    plugin.process.wait(30)
                after_exit = files_in(tmpdir2)
            print(f"              {args.waits} concurrent waits, {args.waits} kubeconfigs ({summary(answers)}): "
                  f"peak {peak[0]} files (expected {2 * args.waits}), {len(after_all)} left after, "
                  f"{len(after_exit)} after SIGINT exit")
        finally:
            engine2.stop()
    finally:
        server.close()
        engine.stop()


@dataclass
class NoEngine:
    address: str = ""

    def stop(self) -> None:
        return None


def case_engine(args: argparse.Namespace) -> None:
    server = ReplayServer().start()
    try:
        timings = {}
        for name, make in (("healthy", lambda: FakeEngine().start()), ("stalled", StalledEngine),
                           ("never answers", SilentEngine), ("none", NoEngine)):
            engine = make()
            try:
                with plugin_with(engine) as plugin:
                    ready_after(server, f"warm-{name}", 0.0)
                    create(plugin, contract.props(server, f"warm-{name}"), f"warm-{name}", args.cap)
                    namespace = f"engine-{name.replace(' ', '-')}"
                    ready_after(server, namespace, 1.0)
                    started = time.monotonic()
                    answer = create(plugin, contract.props(server, namespace), namespace, args.cap)
                    took = None if answer.code == "DEADLINE_EXCEEDED" else answer.at - started
                    timings[name] = took
                    print(f"engine        {name:<14} Create of a graph ready after 1 s: {shown(took, args.cap)} "
                          f"({answer.code})")
            finally:
                engine.stop()
        base = timings.get("healthy")
        if base is not None:
            added = {k: (None if v is None else v - base) for k, v in timings.items() if k != "healthy"}
            print("              added by the engine: " + ", ".join(f"{k} {shown(v, args.cap)}" for k, v in added.items()))
    finally:
        server.close()


def case_concurrency(args: argparse.Namespace) -> None:
    server = ReplayServer().start()
    engine = FakeEngine().start()
    try:
        single = None
        for count in (1, *args.scale):
            with plugin_with(engine) as plugin, futures.ThreadPoolExecutor(max_workers=count) as pool:
                ready_after(server, f"warm-{count}", 0.0)
                create(plugin, contract.props(server, f"warm-{count}"), f"warm-{count}", 120)
                namespaces = [f"c{count}-{i}" for i in range(count)]
                for namespace in namespaces:
                    ready_after(server, namespace, args.ready_after)
                logged = len(engine.lines())
                with Sampler(plugin.process.pid) as sampler:
                    started = time.monotonic()
                    calls = [pool.submit(create, plugin, contract.props(server, ns), ns, 600) for ns in namespaces]
                    answers = [c.result() for c in calls]
                    wall = time.monotonic() - started
                rss = peak_rss_mib(plugin.process.pid)
            told = {line.urn for line in engine.lines()[logged:] if "queued:" in line.message}
            single = wall if count == 1 else single
            ratio = wall / single if single else 0.0
            print(f"concurrency   {count:>3} graphs: {wall:6.2f} s, ratio {ratio:4.2f}x, peak RSS {rss:6.1f} MiB, "
                  f"peak threads {sampler.peak}, {len(told)} told their place in a queue ({summary(answers)})")
    finally:
        engine.stop()
        server.close()


CASES = ("cancel", "dropped", "signals", "files", "engine", "concurrency")


def main() -> None:
    global CODE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=None, help="start the plugin with this dynamo_pulumi tree")
    parser.add_argument("--only", default=",".join(CASES), help=f"comma-separated cases: {', '.join(CASES)}")
    parser.add_argument("--waits", type=int, default=10, help="waits in flight for cancel, signals, files")
    parser.add_argument("--cap", type=float, default=30.0, help="each wait's timeout_seconds (the longest figure)")
    parser.add_argument("--scale", default="50,200,500", help="concurrent graphs, comma-separated")
    parser.add_argument("--ready-after", type=float, default=5.0, help="seconds until each graph is ready")
    args = parser.parse_args()
    args.scale = [int(n) for n in args.scale.split(",") if n]
    CODE = args.code.resolve() if args.code else None
    chosen = [c.strip() for c in args.only.split(",") if c.strip()]
    folder = Path(tempfile.mkdtemp(prefix="bench-plugin-faults-"))
    try:
        for case in chosen:
            if case in ("signals", "files") and shutil.which("openssl") is None:
                print(f"{case:<13} skipped: the openssl command is not installed")
                continue
            runner = globals()[f"case_{case}"]
            if case in ("signals", "files"):
                runner(args, folder)
            else:
                runner(args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
