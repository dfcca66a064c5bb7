"""The ``dynamo`` plugin under faults, at the gRPC boundary the engine uses (issue 26).

The plugin is started as the engine starts it (``plugin_support.Plugin``) and driven with the
SDK's stubs; the faults are injected on loopback: the replay server as a hung, failing or TLS API
server (``replay_support``), engines that stall or never answer, signals to the plugin process, a
bug injected into the plugin's own code (``-c`` prelude). What is held:

* inputs: Check refuses what Create cannot use, at the field, in one line; Create refuses the
  same inputs with the same words and ``INVALID_ARGUMENT``, never a Python exception's text;
* statuses: ``DEADLINE_EXCEEDED`` for a wait past its deadline (which deadline, the engine's
  ``customTimeouts`` or ``timeout_seconds``, is said), ``CANCELLED`` for a cancelled one,
  ``FAILED_PRECONDITION`` for a cluster that refuses us, ``INTERNAL`` (type only) for a bug;
* the engine's ``Cancel``, a dropped call, SIGINT and SIGTERM end every wait within two seconds
  and let go of every connection and thread (Linux ``/proc`` tells);
* no decoded credential file outlives the waits that use it, under any exit;
* a stalled engine, or one that never answers, delays no wait by more than a fraction of a second;
* a heartbeat line while the API server does not answer.
"""

from __future__ import annotations

import base64
import math
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
import readiness_contract as contract
from google.protobuf import empty_pb2
from plugin_support import (
    READINESS_URN,
    SCRIPT,
    UNKNOWN,
    CallFailed,
    FakeEngine,
    Plugin,
    PluginDriver,
    SilentEngine,
    StalledEngine,
    to_struct,
    unwrap,
)
from pulumi.runtime.proto import provider_pb2
from replay_support import ReplayServer, listing, status_error
from test_cluster_waiter import DEPLOYMENT, NS, deployment

from dynamo_pulumi.cluster.waiter import EVENT, POD

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason="pulumi-resource-dynamo is not installed (pip install -e .)")

PROC = Path("/proc/self/status").exists()
needs_proc = pytest.mark.skipif(not PROC, reason="threads and connections are read from Linux /proc")
#: How long a cancelled wait, a dropped call or a signalled plugin may take to let go.
PROMPT = 2.0
FORBIDDEN = ("Traceback", "pydantic", "http", "Error:", "validation error", "line ")


@pytest.fixture(scope="module")
def engine():
    fake = FakeEngine().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def plugin(engine):
    started = Plugin(engine)
    yield started
    started.close()


@pytest.fixture
def driver(plugin):
    driver = PluginDriver(plugin)
    driver.configure({})
    return driver


@pytest.fixture
def own_plugin(engine):
    """A plugin of the test's own (a Cancel or a signal ends it for good)."""
    started = Plugin(engine)
    yield started
    started.close()


def until(condition: Callable[[], bool], seconds: float) -> float | None:
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if condition():
            return time.monotonic() - start
        time.sleep(0.02)
    return None


def unready(server: ReplayServer, namespace: str = NS) -> None:
    """The graph listed unready; its watch stays open and idle; no events to explain it."""
    server.always(DEPLOYMENT, namespace, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.always(POD, namespace, listing([]))
    server.always(EVENT, namespace, listing([]))


def watching(server: ReplayServer, namespaces: list[str]) -> bool:
    return all(server.requests_to(DEPLOYMENT.path(ns), watch=True) for ns in namespaces)


def fails(call: Callable[[], Any]) -> CallFailed:
    with pytest.raises(CallFailed) as failure:
        call()
    return failure.value


# --- inputs: Check refuses what Create cannot use ---------------------------------------------

OPERATOR_TARGET = {"api_version": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "namespace": NS, "name": "llm"}
REFUSED = [
    ({"timeout_seconds": math.nan}, "timeout_seconds", "must be a finite number of seconds, not nan"),
    ({"timeout_seconds": math.inf}, "timeout_seconds", "must be a finite number of seconds, not inf"),
    ({"timeout_seconds": -1}, "timeout_seconds", "must be positive, not -1"),
    ({"timeout_seconds": 0}, "timeout_seconds", "must be positive, not 0"),
    ({"timeout_seconds": 1e300}, "timeout_seconds", "must be at most 604800 seconds (7 days), not 1e+300"),
    ({"timeout_seconds": 1.5}, "timeout_seconds", "must be a whole number of seconds, not 1.5"),
    ({"timeout_seconds": "30"}, "timeout_seconds", "must be a number, not '30'"),
    ({"wait": "false"}, "wait", "must be true or false, not 'false'"),
    ({"wait": 0}, "wait", "must be true or false, not 0"),
    ({"targets": []}, "targets", "must name at least one object to watch (an empty list would report the graph "
                                 "ready having watched nothing)"),
    ({"targets": ["llm-frontend"]}, "targets", "must be a list of objects"),
    ({"targets": "llm-frontend"}, "targets", "must be a list of objects"),
    ({"targets": [{"kind": "Deployment", "namespace": NS, "name": "x"}]}, "targets[0].api_version", "is required"),
    ({"targets": [{"api_version": "apps/v1", "kind": "Deployment", "namespace": NS, "name": ""}]},
     "targets[0].name", "must not be empty"),
    ({"targets": [{"api_version": "apps/v1", "kind": "Deployment", "namespace": NS, "name": "x", "colour": "red"}]},
     "targets[0].colour", "is not a field of a watch target (api_version, kind, namespace, name, component, group)"),
    ({"targets": [{"api_version": "apps/v1", "kind": 3, "namespace": NS, "name": "x"}]},
     "targets[0].kind", "must be a string, not 3"),
    ({"mode": "operator", "targets": [OPERATOR_TARGET, OPERATOR_TARGET]}, "targets",
     "operator mode watches exactly one custom resource, not 2 targets"),
    ({"mode": "sideways"}, "mode", "must be one of render, operator, not 'sideways'"),
    ({"graph": None}, "graph", "is required"),
    ({"graph": ""}, "graph", "must be a non-empty string"),
    ({"revision": 5}, "revision", "must be a string, not 5"),
    ({"kubeconfig": 5}, "kubeconfig", "must be the kubeconfig's text, its path or an object, not 5"),
    ({"timeout": 30}, "timeout", "is not an input of dynamo:index:GraphReadiness (did you mean 'timeout_seconds'?)"),
]


@pytest.mark.parametrize(("changes", "prop", "reason"), REFUSED, ids=[f"{c}" for c, _, _ in REFUSED])
def test_check_refuses_what_create_cannot_use_and_create_refuses_it_in_the_same_words(driver, changes, prop, reason):
    props = {k: v for k, v in contract.props(None, kubeconfig="/never/read").items() if k not in changes}
    props.update({k: v for k, v in changes.items() if v is not None})
    _, failures = driver.check(props)
    assert failures == [(prop, reason)]
    failure = fails(lambda: driver.create(props))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.message == f"{prop}: {reason}"
    assert not any(word in failure.message for word in FORBIDDEN), failure.message
    assert driver.check(contract.props(None))[1] == []  # the process is fine and answers the next call


def test_every_problem_is_one_line_in_property_order(driver):
    props = {**contract.props(None), "wait": "no", "timeout_seconds": math.nan, "targets": []}
    _, failures = driver.check(props)
    assert [p for p, _ in failures] == ["targets", "timeout_seconds", "wait"]
    message = fails(lambda: driver.create(props)).message
    assert message.splitlines() == [f"{p}: {r}" for p, r in failures]


def test_values_not_known_yet_pass_check_and_preview(driver):
    props = contract.props(None, targets=UNKNOWN, timeout_seconds=UNKNOWN, wait=UNKNOWN, revision=UNKNOWN)
    assert driver.check(props)[1] == []
    resource_id, outs = driver.create(props, preview=True)
    assert resource_id == "" and outs["state"] == UNKNOWN


def test_create_on_inputs_check_never_saw_is_refused_before_any_cluster_call(driver, server):
    props = contract.props(server)
    del props["graph"]
    props["targets"] = [{"api_version": "apps/v1"}]
    failure = fails(lambda: driver.create(props))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.message.splitlines() == ["graph: is required", "targets[0].kind: is required",
                                            "targets[0].namespace: is required", "targets[0].name: is required"]
    read = fails(lambda: driver.read({**contract.props(server), "wait": "yes", "state": "successful"}))
    assert read.code == grpc.StatusCode.INVALID_ARGUMENT and read.message == "wait: must be true or false, not 'yes'"
    assert server.log == []


# --- statuses and deadlines --------------------------------------------------------------------

def test_the_engines_shorter_timeout_ends_the_wait_and_is_named(driver, server):
    server.hang_all = True
    failure = fails(lambda: driver.create(contract.props(server, timeout_seconds=30), timeout=2))
    assert time.monotonic() - server.times[0] < 2 + 2  # from the first request (a first client imports for seconds)
    assert failure.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert failure.message == (f"DynamoGraphDeployment team-a/llm not ready after 2s (customTimeouts.create 2s, "
                               f"before timeout_seconds 30s): the API server at {server.url} did not answer in time")


def test_timeout_seconds_ends_the_wait_and_the_engines_timeout_is_named_beside_it(driver, server):
    unready(server)
    failure = fails(lambda: driver.update(contract.props(server), contract.props(server, revision="r2",
                                                                                 timeout_seconds=2), timeout=60))
    assert failure.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert failure.message.startswith("DynamoGraphDeployment team-a/llm not ready after 2s "
                                      "(timeout_seconds; customTimeouts.update 1m0s):\n  Frontend: 0/2 ready")


def test_a_cluster_that_refuses_us_is_failed_precondition(driver, server):
    server.always(DEPLOYMENT, NS, status_error(403, "Forbidden", "deployments is forbidden"))
    failure = fails(lambda: driver.create(contract.props(server)))
    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.message.startswith("forbidden: cannot list deployments in namespace 'team-a'")


#: A prelude that makes the waiter's judgement raise: a bug of ours, inside a wait's thread.
BUG = ("import sys\n"
       "from dynamo_pulumi.cluster import waiter\n"
       "def evaluate(self):\n"
       "    raise RuntimeError('secret words of a bug')\n"
       "waiter.Waiter.evaluate = evaluate\n"
       "from dynamo_pulumi.plugin.server import main\n"
       "sys.argv = ['pulumi-resource-dynamo', *sys.argv[1:]]\n"
       "main()\n")


#: A prelude that leaves a thread nothing will end (as one stuck in a connect no one answers).
STUCK = ("import sys, threading, time\n"
         "threading.Thread(target=time.sleep, args=(600,), name='stuck').start()\n"
         "from dynamo_pulumi.plugin.server import main\n"
         "sys.argv = ['pulumi-resource-dynamo', *sys.argv[1:]]\n"
         "main()\n")


# --- TLS, client certificates and credential files ---------------------------------------------

@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> dict[str, tuple[str, str]]:
    """A server certificate and three client ones (made by ``openssl``)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    folder = tmp_path_factory.mktemp("tls")
    made = {}
    for name in ("server", "a", "b", "c"):
        cert, key = folder / f"{name}.pem", folder / f"{name}.key"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        f"/CN={name}", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
        made[name] = (str(cert), str(key))
    return made


@pytest.fixture
def tls_server(certificates):
    replay = ReplayServer(tls=certificates["server"]).start()
    yield replay
    replay.close()


def client_kubeconfig(server: ReplayServer, certificate: tuple[str, str]) -> str:
    cert, key = (base64.b64encode(Path(p).read_bytes()).decode() for p in certificate)
    return server.kubeconfig(user={"client-certificate-data": cert, "client-key-data": key})


def tmp_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_no_credential_file_outlives_the_waits_that_use_it(engine, tls_server, certificates, tmp_path):
    """Six waits, three kubeconfigs: each certificate and key decoded once (six files, whatever the
    race), private (0700 directory, 0600 files); none left once the waits end, nor after a Cancel."""
    private = tmp_path / "tmp"
    private.mkdir()
    gate = threading.Event()
    namespaces = [f"ns-{i}" for i in range(6)]
    for namespace in namespaces:
        contract.ready_after_one_change(tls_server, namespace, gate=gate)
    configs = [client_kubeconfig(tls_server, certificates[n]) for n in ("a", "b", "c")]
    started = Plugin(engine, env={"TMPDIR": str(private)})
    try:
        driver = PluginDriver(started)
        with futures.ThreadPoolExecutor(max_workers=6) as pool:
            calls = [pool.submit(driver.create, contract.props(tls_server, ns, kubeconfig=configs[i % 3]))
                     for i, ns in enumerate(namespaces)]
            assert until(lambda: watching(tls_server, namespaces), 60) is not None
            decoded = tmp_files(private)
            modes = {p.parent.stat().st_mode & 0o777 for p in decoded}, {p.stat().st_mode & 0o777 for p in decoded}
            gate.set()
            assert [unwrap(c.result(60)[1])["state"] for c in calls] == ["successful"] * 6
        assert len(decoded) == 6 and sorted(p.suffix for p in decoded) == [".crt"] * 3 + [".key"] * 3
        assert {p.parent.parent for p in decoded} == {private} and modes == ({0o700}, {0o600})
        assert tmp_files(private) == []
        unready(tls_server, "cancelled")
        with futures.ThreadPoolExecutor(max_workers=1) as pool:
            call = pool.submit(driver.create, contract.props(tls_server, "cancelled", kubeconfig=configs[0]))
            assert until(lambda: watching(tls_server, ["cancelled"]), 60) is not None
            assert len(tmp_files(private)) == 2
            started.stub.Cancel(empty_pb2.Empty(), timeout=10)
            assert fails(lambda: call.result(10)).code == grpc.StatusCode.CANCELLED
        assert tmp_files(private) == []
    finally:
        started.close()


@needs_proc
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 0), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_ends_every_wait_removes_the_credentials_and_exits(engine, tls_server, certificates, tmp_path,
                                                                    signum, code):
    private = tmp_path / "tmp"
    private.mkdir()
    namespaces = [f"sig-{i}" for i in range(3)]
    for namespace in namespaces:
        unready(tls_server, namespace)
    configs = [client_kubeconfig(tls_server, certificates[n]) for n in ("a", "b")]
    started = Plugin(engine, env={"TMPDIR": str(private)})
    try:
        driver = PluginDriver(started)
        with futures.ThreadPoolExecutor(max_workers=3) as pool:
            calls = [pool.submit(driver.create, contract.props(tls_server, ns, kubeconfig=configs[i % 2],
                                                               timeout_seconds=600))
                     for i, ns in enumerate(namespaces)]
            assert until(lambda: watching(tls_server, namespaces), 60) is not None
            assert len(tmp_files(private)) == 4
            started.process.send_signal(signum)
            sent = time.monotonic()
            started.process.wait(10)
            exited = time.monotonic() - sent
            answers = [fails(lambda c=c: c.result(10)) for c in calls]
        assert exited < PROMPT + 1.0, exited
        assert started.process.returncode == code
        assert {a.code for a in answers} == {grpc.StatusCode.CANCELLED}
        name = signal.Signals(signum).name
        assert all(re.fullmatch(rf"DynamoGraphDeployment sig-\d/llm: cancelled after \d+s: the dynamo plugin was "
                                rf"stopped \({name}\)", a.message) for a in answers), [a.message for a in answers]
        assert list(private.iterdir()) == []
    finally:
        started.close()


def test_a_thread_stuck_elsewhere_does_not_hold_the_exit(engine):
    started = Plugin(engine, command=[sys.executable, "-c", STUCK])
    try:
        started.stub.GetPluginInfo(empty_pb2.Empty(), timeout=10)
        started.process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        started.process.wait(30)
        assert time.monotonic() - sent < PROMPT + 1.0
        assert started.process.returncode == 0
    finally:
        started.close()


def test_a_bug_in_a_wait_is_internal_its_type_alone_and_leaves_no_credential(engine, tls_server, certificates,
                                                                             tmp_path):
    private = tmp_path / "tmp"
    private.mkdir()
    unready(tls_server)
    started = Plugin(engine, command=[sys.executable, "-c", BUG], env={"TMPDIR": str(private)})
    try:
        driver = PluginDriver(started)
        failure = fails(lambda: driver.create(contract.props(tls_server, kubeconfig=client_kubeconfig(
            tls_server, certificates["a"]))))
        assert failure.code == grpc.StatusCode.INTERNAL
        assert failure.message == ("internal error in the dynamo provider plugin (RuntimeError); its traceback is in "
                                   "the plugin's stderr output: please report it")
        assert tmp_files(private) == []
        assert "RuntimeError: secret words of a bug" in started.stderr_text()  # for the bug report
        assert driver.check(contract.props(None))[1] == []
    finally:
        started.close()


# --- Cancel and a dropped call -----------------------------------------------------------------

@needs_proc
def test_cancel_ends_every_wait_at_once_and_lets_go_of_the_cluster(own_plugin, server):
    port = server.httpd.server_address[1]
    namespaces = [f"cancel-{i}" for i in range(3)]
    for namespace in namespaces:
        unready(server, namespace)
    driver = PluginDriver(own_plugin)
    idle = own_plugin.threads
    with futures.ThreadPoolExecutor(max_workers=3) as pool:
        calls = [pool.submit(driver.create, contract.props(server, ns, timeout_seconds=600)) for ns in namespaces]
        assert until(lambda: watching(server, namespaces), 60) is not None
        assert until(lambda: own_plugin.connections_to(port) >= 6, 10) is not None  # two watches a wait
        sent = time.monotonic()
        own_plugin.stub.Cancel(empty_pb2.Empty(), timeout=10)
        answers = [fails(lambda c=c: c.result(10)) for c in calls]
        answered = time.monotonic() - sent
    assert answered < PROMPT
    assert {a.code for a in answers} == {grpc.StatusCode.CANCELLED}
    assert all(re.fullmatch(r"DynamoGraphDeployment cancel-\d/llm: cancelled after \d+s: the engine cancelled the "
                            r"operation \(pulumi cancel, or Ctrl-C in pulumi up\)", a.message) for a in answers)
    # no connection left; no watch thread (the three pool threads stay, idle)
    assert until(lambda: own_plugin.connections_to(port) == 0 and own_plugin.threads <= idle + 3, PROMPT) is not None
    later = fails(lambda: driver.create(contract.props(server, namespaces[0])))
    assert later.code == grpc.StatusCode.CANCELLED
    assert later.message == ("DynamoGraphDeployment cancel-0/llm: cancelled before it started: the engine cancelled "
                             "the operation (pulumi cancel, or Ctrl-C in pulumi up)")


@needs_proc
@pytest.mark.parametrize("drop", ["deadline", "cancel"])
def test_a_dropped_call_lets_go_of_the_cluster(plugin, server, drop):
    """The caller goes away while the wait watches (its gRPC deadline passes, or it cancels the
    call): the plugin lets go of the API server and of the wait's threads."""
    port = server.httpd.server_address[1]
    contract.ready_after_one_change(server, "warm")
    PluginDriver(plugin).create(contract.props(server, "warm"))  # the client imported: the wait below watches in time
    unready(server)
    idle = plugin.threads
    request = provider_pb2.CreateRequest(urn=READINESS_URN, properties=to_struct(contract.props(server, timeout_seconds=600)))
    call = plugin.stub.Create.future(request, timeout=3 if drop == "deadline" else None)
    assert until(lambda: watching(server, [NS]) and plugin.connections_to(port) >= 2, 3) is not None
    if drop == "cancel":
        call.cancel()
    else:
        with pytest.raises(grpc.RpcError) as dropped:
            call.result()
        assert dropped.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert until(lambda: plugin.connections_to(port) == 0 and plugin.threads <= idle + 1, PROMPT) is not None


# --- logging is best effort and bounded --------------------------------------------------------

@pytest.mark.parametrize("make", [StalledEngine, SilentEngine], ids=["stalled", "never-answers"])
def test_an_engine_that_does_not_take_lines_delays_no_wait(server, make):
    misbehaving = make()
    started = Plugin(misbehaving)
    try:
        driver = PluginDriver(started)
        driver.configure({})
        contract.ready_after_one_change(server, "warm")
        driver.create(contract.props(server, "warm"))  # imports and the first client, before timing
        server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)], "10"))
        server.on_list(POD, NS, listing([]))
        began = time.monotonic()
        _, outs = driver.create(contract.props(server))
        took = time.monotonic() - began
        assert unwrap(outs)["state"] == "successful"
        # a ready graph answers at once and the log's share is at most a quarter second (the two lines queued
        # before would take the stalled engine 2 s); slack for a loaded machine
        assert took < 1.5, took
        assert until(lambda: "DynamoGraphDeployment team-a/llm: Frontend: 2/2 ready" in started.stderr_text(), 5)
    finally:
        started.close()
        misbehaving.stop()


# --- a heartbeat while the API server does not answer ------------------------------------------

def _heartbeats(engine: FakeEngine) -> list[str]:
    return [r.message for r in engine.lines(READINESS_URN) if "no successful answer from the API server" in r.message and r.ephemeral]


def test_a_heartbeat_while_the_api_server_does_not_answer(driver, server, engine):
    server.hang_all = True
    before = len(_heartbeats(engine))
    fails(lambda: driver.create(contract.props(server, timeout_seconds=8)))
    beats = _heartbeats(engine)[before:]
    assert beats, engine.lines()
    assert re.fullmatch(rf"DynamoGraphDeployment team-a/llm: no successful answer from the API server at "
                        rf"{re.escape(server.url)} since \d\d:\d\d:\d\dZ \([5-8]s\): waiting for its answer to list "
                        r"of deployments \(apps/v1\) in team-a", beats[0]), beats


def test_a_heartbeat_says_what_is_retried_and_the_last_failure(driver, server, engine):
    server.always(DEPLOYMENT, NS, status_error(503, "ServiceUnavailable", "etcd is resting"))
    before = len(_heartbeats(engine))
    failure = fails(lambda: driver.create(contract.props(server, timeout_seconds=8)))
    assert failure.code == grpc.StatusCode.DEADLINE_EXCEEDED
    beats = _heartbeats(engine)[before:]
    assert beats and re.fullmatch(
        r"DynamoGraphDeployment team-a/llm: no successful answer from the API server at \S+ since "
        r"\d\d:\d\d:\d\dZ \(\d+s\): "
        r"retrying list of deployments \(apps/v1\) in team-a \(\d+ failed attempts?; last: HTTP 503: etcd is resting\)",
        beats[0]), beats
