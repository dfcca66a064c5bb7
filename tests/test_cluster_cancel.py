"""The cluster layer's halves of issue 26, in-process: a wait cancelled from another thread (its
connections cut, its threads ended), the API server's silence as the heartbeat reads it, the
private credential files, the wait slots and their visible queue, budgets that are not finite.

The plugin's behaviour over gRPC is ``test_plugin_faults.py``; these pin the pieces it is built
from, each against the loopback replay server where a connection is involved.
"""

from __future__ import annotations

import asyncio
import base64
import math
import threading
import time
from pathlib import Path

import pytest
from replay_support import listing, stream
from test_cluster_waiter import DEPLOYMENT, NS, deployment, no_pods, request, target

from dynamo_pulumi.cluster import aio, credentials
from dynamo_pulumi.cluster.api import ApiFailure, usable_budget
from dynamo_pulumi.cluster.connection import Connection, api_client
from dynamo_pulumi.cluster.errors import ClusterError, WaitCancelled, WaitTimeout
from dynamo_pulumi.cluster.health import Health
from dynamo_pulumi.cluster.retry import Deadline, Pace
from dynamo_pulumi.cluster.waiter import Waiter


def _in_thread(fn):
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # the test reads it
            box["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


def _watch_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("watch-")]


# --- cancelling a wait -------------------------------------------------------------------------

def test_cancel_during_a_hung_first_list_ends_the_wait_at_once(server):
    """The list blocks in recv (a read timeout of 30 s away); the cut socket ends it now."""
    server.hang_all = True
    waiter = Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=60))
    thread, box = _in_thread(waiter.wait)
    assert _until(lambda: len(server.log) == 1)
    cancelled = time.monotonic()
    waiter.cancel("the test said so")
    thread.join(5)
    assert not thread.is_alive() and time.monotonic() - cancelled < 1.0
    error = box["error"]
    assert isinstance(error, WaitCancelled)
    assert str(error) == "DynamoGraphDeployment team-a/llm: cancelled after 0s: the test said so"
    assert waiter.api.connections.count() == 0


def test_cancel_while_watching_stops_every_watch_thread_and_connection(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    no_pods(server)
    waiter = Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=60))
    thread, box = _in_thread(waiter.wait)
    assert _until(lambda: len(server.requests_to(DEPLOYMENT.path(NS), watch=True)) == 1 and len(_watch_threads()) == 2)
    waiter.cancel("stop")
    thread.join(5)
    assert isinstance(box["error"], WaitCancelled)
    assert _watch_threads() == [] and waiter.api.connections.count() == 0
    with pytest.raises(ApiFailure, match=r"^cancelled$"):  # an aborted client sends nothing more
        waiter.api.list(DEPLOYMENT, NS)


def test_a_job_cancelled_before_its_waiter_exists_cancels_it_as_it_binds(server):
    job = aio.WaitJob("G")
    job.cancel("early")
    with pytest.raises(WaitCancelled, match=r"^G: cancelled before it started: early$"):
        job.check()
    waiter = Waiter(server.api(), request(target("llm-frontend", "Frontend")))
    job.bind(waiter)
    assert waiter.cancelled == "early" and waiter.api.aborted
    with pytest.raises(WaitCancelled):
        waiter.wait()
    assert server.log == []


def test_a_settled_job_closes_its_client_whatever_happened(server, monkeypatch):
    closed: list[bool] = []
    monkeypatch.setattr("dynamo_pulumi.cluster.api.ClusterApi.close", lambda self: closed.append(True))
    server.hang_all = True
    props = {"kubeconfig": server.kubeconfig()}
    with pytest.raises(WaitTimeout):
        aio.settle(props, request(target("llm-frontend", "Frontend"), timeout=1))
    assert closed == [True]


# --- what the heartbeat reads ------------------------------------------------------------------

def test_silence_starts_with_the_oldest_unanswered_request_and_ends_with_an_answer():
    now = [100.0]
    health = Health("https://k", clock=lambda: now[0], wall=lambda: 1_700_000_000 + now[0])
    assert health.silence() is None
    token = health.started("list of deployments (apps/v1) in team-a")
    now[0] = 107.0
    silence = health.silence()
    assert silence is not None and silence.seconds(now[0]) == 7.0 and silence.failures == 0
    assert silence.line(now[0]) == ("no successful answer from the API server at https://k since 22:15:00Z (7s): "
                                    "waiting for its answer to list of deployments (apps/v1) in team-a")
    health.failed("list of deployments (apps/v1) in team-a", "the API server did not answer in time", token)
    health.failed("list of deployments (apps/v1) in team-a", "HTTP 503: resting")
    now[0] = 130.0
    assert health.silence().line(now[0]).endswith(  # type: ignore[union-attr]
        "(30s): retrying list of deployments (apps/v1) in team-a (2 failed attempts; last: HTTP 503: resting)")
    health.answered(health.started("watch"))
    assert health.silence() is None


def test_the_client_records_failures_and_answers(server):
    server.hang_all = True
    api = server.api()
    with pytest.raises(ApiFailure):
        api.list(DEPLOYMENT, NS, budget=0.3)
    silence = api.health.silence()
    assert silence is not None and silence.failures == 1 and silence.what == "list of deployments (apps/v1) in team-a"
    server.hang_all = False
    server.on_list(DEPLOYMENT, NS, listing([], "1"))
    api.list(DEPLOYMENT, NS)
    assert api.health.silence() is None


# --- budgets and deadlines that are not finite -------------------------------------------------

def test_budgets_that_are_not_finite_never_reach_int():
    assert usable_budget(None) is None and usable_budget(math.inf) is None
    assert usable_budget(math.nan) == 0.0 and usable_budget(3.5) == 3.5
    assert Deadline.after(Pace(), math.inf).end is None
    with pytest.raises(ValueError, match="NaN"):
        Deadline.after(Pace(), math.nan)


def test_a_watch_with_an_infinite_budget_is_no_bound(server):
    server.on_watch(DEPLOYMENT, NS, stream([]))
    assert list(server.api().watch(DEPLOYMENT, NS, "1", 300, budget=math.inf)) == []  # no OverflowError on the way
    assert server.requests_to(DEPLOYMENT.path(NS), watch=True)[0]["timeoutSeconds"] == "300"


# --- credential files --------------------------------------------------------------------------

#: An https server (the client reads credential files for https only); never contacted here.
HTTPS = "https://127.0.0.1:9"


def _kubeconfig(key: bytes, server: str = HTTPS) -> dict:
    data = {"client-certificate-data": base64.b64encode(b"cert of " + key).decode(),
            "client-key-data": base64.b64encode(key).decode()}
    return {"apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "k", "cluster": {"server": server,
                                                  "certificate-authority-data": base64.b64encode(b"ca").decode()}}],
            "users": [{"name": "u", "user": data}, {"name": "other", "user": dict(data)}],
            "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}]}


def test_inline_credentials_are_decoded_once_per_content_and_removed_with_their_last_client(tmp_path, monkeypatch):
    monkeypatch.setattr(credentials, "STORE", credentials.CredentialStore())
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    store = credentials.STORE
    first = api_client(Connection(kubeconfig=_kubeconfig(b"key-a")))
    second = api_client(Connection(kubeconfig=_kubeconfig(b"key-a")))
    third = api_client(Connection(kubeconfig=_kubeconfig(b"key-b")))
    files = store.files()
    # the chosen user's cert and key and the cluster's CA; the CA and a's pair shared by two clients
    assert len(files) == 5 and {p.suffix for p in files} == {".crt", ".key"}
    assert {p.read_bytes() for p in files} == {b"ca", b"cert of key-a", b"key-a", b"cert of key-b", b"key-b"}
    assert first.configuration.key_file == second.configuration.key_file != third.configuration.key_file
    assert oct(store.folder.stat().st_mode & 0o777) == "0o700" and {p.stat().st_mode & 0o777 for p in files} == {0o600}
    credentials.release(first)
    assert len(store.files()) == 5
    credentials.release(second)
    assert {p.read_bytes() for p in store.files()} == {b"ca", b"cert of key-b", b"key-b"}
    credentials.release(third)
    assert store.files() == []
    store.remove_all(final=True)
    assert not any(tmp_path.iterdir())
    with pytest.raises(ClusterError, match="the process is exiting"):
        api_client(Connection(kubeconfig=_kubeconfig(b"key-c")))
    assert not any(tmp_path.iterdir())


def test_a_plain_http_cluster_gets_no_credential_file(tmp_path, monkeypatch):
    monkeypatch.setattr(credentials, "STORE", credentials.CredentialStore())
    client = api_client(Connection(kubeconfig=_kubeconfig(b"key-e", server="http://127.0.0.1:9")))
    assert credentials.STORE.files() == [] and client.configuration.key_file is None


def test_concurrent_loads_write_each_credential_once(tmp_path, monkeypatch):
    monkeypatch.setattr(credentials, "STORE", credentials.CredentialStore())
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    configs = [_kubeconfig(f"key-{i % 3}".encode()) for i in range(24)]
    clients: list[object] = []
    threads = [threading.Thread(target=lambda c=c: clients.append(api_client(Connection(kubeconfig=c))))
               for c in configs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(credentials.STORE.files()) == 1 + 3 * 2  # one CA, three cert/key pairs
    for client in clients:
        credentials.release(client)
    assert credentials.STORE.files() == []


def test_the_document_the_client_loads_names_files_and_the_original_is_untouched():
    document = _kubeconfig(b"key-d")
    before = repr(document)
    client = api_client(Connection(kubeconfig=document))
    try:
        assert repr(document) == before
        assert Path(client.configuration.cert_file).read_bytes() == b"cert of key-d"
        assert Path(client.configuration.ssl_ca_cert).read_bytes() == b"ca"
    finally:
        credentials.release(client)


# --- slots and the visible queue ---------------------------------------------------------------

def test_beyond_its_size_a_wait_queues_and_is_told_its_place_and_a_cancel_leaves_the_queue():
    async def scenario() -> list[object]:
        slots = aio.WaitSlots(size=2)
        told: list[tuple[str, int, int]] = []
        release = asyncio.Event()
        order: list[str] = []

        async def wait(name: str, job: aio.WaitJob) -> str:
            async with slots.slot(job, lambda pos, running: told.append((name, pos, running))):
                order.append(name)
                await release.wait()
            return name

        jobs = {name: aio.WaitJob(name) for name in "abcd"}
        tasks = {name: asyncio.create_task(wait(name, job)) for name, job in jobs.items()}
        await asyncio.sleep(0.01)
        assert order == ["a", "b"] and slots.queued == 2
        assert told == [("c", 1, 2), ("d", 2, 2)]
        jobs["c"].cancel("no longer wanted")
        await asyncio.sleep(0.01)
        release.set()
        results = await asyncio.gather(*tasks.values(), return_exceptions=True)
        assert order == ["a", "b", "d"] and slots.running == 0 and slots.queued == 0
        return results

    results = asyncio.run(scenario())
    assert results[0] == "a" and results[1] == "b" and results[3] == "d"
    assert isinstance(results[2], WaitCancelled) and str(results[2]) == "c: cancelled while queued: no longer wanted"


def test_a_dropped_call_cancels_its_job_and_waits_for_its_thread(server):
    server.hang_all = True
    props = {"kubeconfig": server.kubeconfig()}

    async def scenario() -> tuple[aio.WaitJob, float]:
        job = aio.WaitJob("G")
        task = asyncio.create_task(aio.settle_async(props, request(target("llm-frontend", "Frontend"), timeout=60),
                                                    job=job))
        while not server.log:
            await asyncio.sleep(0.02)
        dropped = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return job, time.monotonic() - dropped

    job, took = asyncio.run(scenario())
    assert job.cancelled == aio.DROPPED and took < aio.DROP_SECONDS
    assert aio.wait_slots().running == 0


def _until(condition, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return False
