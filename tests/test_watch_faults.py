"""The watch layer under API faults, through the real ``kubernetes`` client against the loopback
replay server (``tests/replay_support.py``) in its fault modes.

Each fault of issue 15 ("Why", section 3): 410 Gone on every resume, 429/5xx bursts (with
Retry-After) at the first list and on the watch, truncated bodies, a hung server, a slow server,
401 mid-run. Asserted: the outcome, the request count (never more than 20 requests per second),
that the wait ends within its deadline plus a few seconds, and with an injected clock and sleep
(:class:`Pace`) the delays themselves (the cap, the jitter range, Retry-After as a floor, the
reset after progress). Subprocess cases (SIGINT, SIGTERM, a slow server with a ready graph, a hung
server) are in ``test_watch_signals.py``.
"""

from __future__ import annotations

import random
import threading
import time

import pytest
from replay_support import event, gone, hung, listing, status_error, stream, truncated
from test_cluster_waiter import DEPLOYMENT, NS, deployment, no_pods, request, target

from dynamo_pulumi.cluster.errors import ClusterError, WaitTimeout
from dynamo_pulumi.cluster.retry import BACKOFF_CAP, Backoff, Deadline, Pace, retry_after_seconds
from dynamo_pulumi.cluster.waiter import EVENT, POD, Waiter
from dynamo_pulumi.cluster.watch import KindWatch, ObjectCache

#: The issue's bound: no fault makes the waiter ask more than this many times per second.
MAX_RATE = 20.0
#: How far past its deadline a wait may end (the report's one read of events, thread joins).
SLACK = 6.0


class VirtualTime:
    """A clock that moves only when slept on; every delay recorded."""

    def __init__(self, jitter: float | random.Random = 0.999) -> None:
        self.now = 0.0
        self.slept: list[float] = []
        draw = jitter.random if isinstance(jitter, random.Random) else (lambda: float(jitter))
        self.pace = Pace(clock=lambda: self.now, sleep=self._sleep, random=draw)

    def _sleep(self, seconds: float, stop: threading.Event) -> bool:
        self.slept.append(seconds)
        self.now += seconds
        return stop.is_set()


def not_ready_listing(version: str = "10"):
    return listing([deployment("llm-frontend", "Frontend", 0, version=version)], version)


def ready_listing(version: str = "10"):
    return listing([deployment("llm-frontend", "Frontend", 2, version=version)], version)


def watch_of(server, time_: VirtualTime, seconds: float) -> KindWatch:
    return KindWatch(server.api(), DEPLOYMENT, NS, ObjectCache(), threading.Event(),
                     deadline=Deadline.after(time_.pace, seconds))


def assert_paced(server, elapsed: float) -> None:
    assert len(server.log) <= MAX_RATE * max(1.0, elapsed), f"{len(server.log)} requests in {elapsed:.1f}s"


def timed(fn):
    start = time.monotonic()
    try:
        return fn(), time.monotonic() - start
    except Exception as exc:  # the test inspects it
        return exc, time.monotonic() - start


# --- the delays, with an injected clock and sleep ---------------------------------------------


def test_410_on_every_resume_backs_off_to_the_cap_and_never_past_it(server):
    server.always(DEPLOYMENT, NS, not_ready_listing())
    server.always(DEPLOYMENT, NS, stream([gone("10")], delay=0), watch=True)
    clock = VirtualTime(jitter=0.999)
    watch = watch_of(server, clock, 600)
    watch._run()
    ceilings = [1, 2, 4, 8, 16, 30, 30]
    assert clock.slept[:7] == pytest.approx([0.999 * c for c in ceilings])
    assert max(clock.slept) <= BACKOFF_CAP
    # 600 virtual seconds at one relist + one watch per pause: 1+2+4+8+16, then every ~30 s
    assert 20 <= len(clock.slept) <= 26
    assert watch.api.requests == 2 * len(clock.slept)
    assert clock.now == pytest.approx(600)  # the last pause is cut at the deadline


def test_the_delays_are_full_jitter_below_a_doubling_ceiling():
    rng = random.Random(7)
    backoff = Backoff(Pace(random=rng.random))
    delays = [backoff.next_delay() for _ in range(40)]
    ceilings = [min(BACKOFF_CAP, 2.0**i) for i in range(40)]
    assert all(0 <= d < c for d, c in zip(delays, ceilings, strict=True))
    # full jitter, not "half plus jitter": some delays fall in the lower half of their ceiling
    assert any(d < c / 2 for d, c in zip(delays[5:], ceilings[5:], strict=True))
    assert max(delays) > BACKOFF_CAP / 2


def test_retry_after_is_a_floor_for_the_delay(server):
    server.on_list(DEPLOYMENT, NS, status_error(429, "TooManyRequests", "slow down", retry_after=7), ready_listing())
    no_pods(server)
    clock = VirtualTime(jitter=0.5)
    status = Waiter(server.api(), request(target("llm-frontend", "Frontend")), pace=clock.pace).wait()
    assert status.is_ready
    assert clock.slept == [7.0]


def test_the_ceiling_starts_small_again_after_a_watch_delivered_events(server):
    server.on_list(DEPLOYMENT, NS, not_ready_listing())
    server.on_watch(DEPLOYMENT, NS, status_error(500, "InternalError", "etcd"), status_error(500, "InternalError", "etcd"),
                    stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 1, version="11"))], drop=True, delay=0))
    server.always(DEPLOYMENT, NS, stream([gone("11")], delay=0), watch=True)
    clock = VirtualTime(jitter=0.999)
    watch_of_run = watch_of(server, clock, 10)
    watch_of_run._run()
    assert clock.slept[:4] == pytest.approx([0.999, 1.998, 0.999, 1.998])


def test_a_first_list_failing_until_the_deadline_ends_in_one_line_with_few_requests(server):
    server.always(DEPLOYMENT, NS, status_error(500, "InternalError", "etcdserver: leader changed"))
    clock = VirtualTime(jitter=0.999)
    with pytest.raises(WaitTimeout, match=r"^DynamoGraphDeployment team-a/llm not ready after 2m0s: "
                                          r"listing deployments: HTTP 500: etcdserver: leader changed$"):
        Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=120), pace=clock.pace).wait()
    assert clock.now == pytest.approx(120)
    assert max(clock.slept) <= BACKOFF_CAP
    assert len(server.log) == len(clock.slept) <= 10  # the last pause ends at the deadline: no request after it


def test_retry_after_header_parsing():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(" 1.5 ") == 1.5
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") is None
    assert retry_after_seconds("-1") is None


# --- each fault in real time ------------------------------------------------------------------


def test_410_on_every_resume_stays_under_the_request_rate_and_times_out_on_time(server):
    server.always(DEPLOYMENT, NS, not_ready_listing())
    server.always(DEPLOYMENT, NS, stream([gone("10")], delay=0), watch=True)
    no_pods(server)
    server.on_list(EVENT, NS, listing([]))
    caught, elapsed = timed(lambda: Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=4)).wait())
    assert isinstance(caught, WaitTimeout)
    assert elapsed < 4 + SLACK
    assert_paced(server, elapsed)


@pytest.mark.parametrize("failure", [
    status_error(500, "InternalError", "etcdserver: leader changed"),
    status_error(503, "ServiceUnavailable", "apiserver is shutting down"),
    status_error(429, "TooManyRequests", "too many requests", retry_after=1),
    truncated({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "10"}, "items": []}),
], ids=["500", "503", "429-retry-after", "truncated"])
def test_failures_at_the_first_list_are_retried_within_the_deadline(server, failure):
    server.on_list(DEPLOYMENT, NS, failure, failure, failure, ready_listing())
    no_pods(server)
    status, elapsed = timed(lambda: Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=30)).wait())
    assert not isinstance(status, Exception), status
    assert status.is_ready
    assert len(server.requests_to(DEPLOYMENT.path(NS), watch=False)) == 4
    if failure.headers.get("Retry-After"):
        assert elapsed >= 3.0  # three pauses of at least the Retry-After
    assert_paced(server, elapsed)


def test_a_pod_list_answering_500_is_retried_too(server):
    server.on_list(DEPLOYMENT, NS, ready_listing())
    server.on_list(POD, NS, status_error(500, "InternalError", "x"), listing([]))
    assert Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=30)).wait().is_ready


@pytest.mark.parametrize("failure", [
    status_error(500, "InternalError", "etcdserver: leader changed"),
    status_error(429, "TooManyRequests", "too many requests", retry_after=1),
    stream([], drop=True, delay=0),
], ids=["500", "429", "dropped"])
def test_a_burst_of_watch_failures_is_retried_then_the_wait_goes_on(server, failure):
    server.on_list(DEPLOYMENT, NS, not_ready_listing())
    server.on_watch(DEPLOYMENT, NS, failure, failure, failure,
                    stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="11"))]))
    no_pods(server)
    status, elapsed = timed(lambda: Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=30)).wait())
    assert not isinstance(status, Exception), status
    assert status.is_ready
    watches = server.requests_to(DEPLOYMENT.path(NS), watch=True)
    assert [w["resourceVersion"] for w in watches[:4]] == ["10"] * 4  # resumed, never relisted
    assert_paced(server, elapsed)


def test_a_hung_server_ends_the_wait_at_its_deadline_in_one_line(server):
    server.hang_all = True
    caught, elapsed = timed(lambda: Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=3)).wait())
    assert isinstance(caught, WaitTimeout)  # the deadline ended it, while the first list was retried
    assert str(caught) == f"DynamoGraphDeployment team-a/llm not ready after 3s: the API server at {server.url} did not answer in time"
    assert elapsed < 3 + SLACK
    assert_paced(server, elapsed)


def test_a_watch_that_hangs_before_answering_ends_with_the_deadline(server):
    server.on_list(DEPLOYMENT, NS, not_ready_listing())
    server.always(DEPLOYMENT, NS, hung(), watch=True)
    no_pods(server)
    server.on_list(EVENT, NS, listing([]))
    caught, elapsed = timed(lambda: Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=3)).wait())
    assert isinstance(caught, WaitTimeout)
    assert elapsed < 3 + SLACK
    assert not [t for t in threading.enumerate() if t.name.startswith("watch-")]


def test_a_slow_server_with_a_ready_graph_returns_with_no_watch_thread_left(server):
    server.latency = 2.0
    server.on_list(DEPLOYMENT, NS, ready_listing())
    no_pods(server)
    status, elapsed = timed(lambda: Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=60)).wait())
    assert not isinstance(status, Exception), status
    assert status.is_ready
    assert elapsed < 4 * 2.0 + SLACK
    assert not [t for t in threading.enumerate() if t.name.startswith("watch-")]


def test_401_mid_run_ends_the_wait_at_once(server):
    server.on_list(DEPLOYMENT, NS, not_ready_listing())
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 1, version="11"))]),
                    status_error(401, "Unauthorized", "Unauthorized"))
    no_pods(server)
    caught, elapsed = timed(lambda: Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=30)).wait())
    assert isinstance(caught, ClusterError)
    assert str(caught) == "unauthorized: the API server rejected the credentials: Unauthorized"
    assert elapsed < 5
    assert_paced(server, elapsed)


def test_the_timeout_report_reads_only_warning_events_and_a_bounded_number(server):
    server.on_list(DEPLOYMENT, NS, not_ready_listing())
    no_pods(server)
    server.on_list(EVENT, NS, listing([]))
    with pytest.raises(WaitTimeout):
        Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=1)).wait()
    (events,) = server.requests_to(EVENT.path(NS))
    assert events["fieldSelector"] == "type=Warning" and events["limit"] == "500"


def test_a_server_ending_every_watch_at_once_is_paced_too(server):
    server.always(DEPLOYMENT, NS, not_ready_listing())
    server.always(DEPLOYMENT, NS, stream([], delay=0), watch=True)  # 200, no event, ends at once
    clock = VirtualTime(jitter=0.999)
    watch = watch_of(server, clock, 120)
    watch._run()
    assert watch.delays == clock.slept
    assert clock.slept[:5] == pytest.approx([0.999, 1.998, 3.996, 7.992, 15.984])
    assert len(server.log) == 1 + len(clock.slept)  # one list, then one watch per pause


def test_close_cuts_an_open_watch_and_the_thread_ends_at_once(server):
    server.on_list(DEPLOYMENT, NS, not_ready_listing())  # the watch then idles (held open)
    watch = KindWatch(server.api(), DEPLOYMENT, NS, ObjectCache(), threading.Event())
    watch.first_list()
    watch.start()
    assert watch._thread is not None and watch._thread.daemon is False
    deadline = time.monotonic() + 10
    while not server.requests_to(DEPLOYMENT.path(NS), watch=True) or watch._response is None:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert watch.alive
    closed = time.monotonic()
    watch.close()
    watch.join(5)
    assert not watch.alive and time.monotonic() - closed < 2
    assert len(server.requests_to(DEPLOYMENT.path(NS), watch=True)) == 1  # no retry after a close


def test_without_a_deadline_delays_are_not_bounded_and_never_pass():
    open_ended = Deadline(Pace(), None)
    assert open_ended.left() is None and open_ended.passed() is False and open_ended.bound(5.0) == 5.0
    clock = VirtualTime()
    bounded = Deadline.after(clock.pace, 3)
    assert bounded.bound(5.0) == 3.0 and bounded.bound(1.0) == 1.0
    clock.now = 4
    assert bounded.bound(5.0) == 0.0 and bounded.passed()


def test_the_cache_keeps_kinds_apart_and_forgets_deleted_objects():
    cache = ObjectCache()
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    cache.replace_kind(DEPLOYMENT, NS, [deployment("llm-frontend", "Frontend", 0)])
    cache.apply(POD, NS, "ADDED", pod)
    assert [o["metadata"]["name"] for o in cache.of_kind("v1", "Pod", NS)] == ["p"]
    assert cache.get("v1", "Pod", NS, "p") == pod and cache.get("v1", "Pod", "other", "p") is None
    before = cache.version
    cache.apply(POD, NS, "MODIFIED", {**pod, "status": {"phase": "Running"}})
    assert cache.get("v1", "Pod", NS, "p")["status"] == {"phase": "Running"} and cache.version == before + 1
    cache.apply(POD, NS, "DELETED", pod)
    assert cache.of_kind("v1", "Pod", NS) == [] and len(cache.of_kind("apps/v1", "Deployment", NS)) == 1
