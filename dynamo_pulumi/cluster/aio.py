"""The one waiter, reachable from an asyncio server: the plugin's entry point to readiness.

The :class:`~dynamo_pulumi.cluster.waiter.Waiter` blocks (its watches are threads feeding a
Condition). The dynamic provider host runs it on one of its four worker threads; the plugin
serves every call on one event loop, so each wait runs on a thread of its own pool here.
``asyncio.to_thread`` would use the loop's default pool (CPU count + 4 threads: 6 on a 2-core
machine), so ten graphs would wait in two batches; :data:`WAIT_THREADS` is sized for the graphs
a program can hold, and a thread that only sleeps on a Condition costs a stack, not a core.

Beyond :data:`WAIT_THREADS` waits at once (each also runs a watch thread per kind), a wait queues
for a slot (:class:`WaitSlots`) and is told its place in the queue, and told again as it moves,
rather than sitting silent behind the pool.

Every wait and read is a :class:`WaitJob`: the event loop can cancel it at any moment (queued,
building its client, listing, watching) and ask its client since when the API server has not
answered (:meth:`WaitJob.silence`, the heartbeat). A job's client is closed when it ends, which
releases its decoded credential files (:mod:`.credentials`).

The connection is the resource's own ``kubeconfig``/``context``/``cluster`` when given (a
component's readiness carries its children's), else the ambient one when the resource says its
children use it (``ambient``), else the provider's configuration (``dynamo:kubeconfig``,
``dynamo:context``), else the ambient one (:func:`dynamo_pulumi.cluster.connection.api_client`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from dynamo_pulumi.cluster.drift_check import operator_drift
from dynamo_pulumi.cluster.errors import WaitCancelled
from dynamo_pulumi.cluster.health import Silence
from dynamo_pulumi.cluster.session import connection_of, open_waiter
from dynamo_pulumi.cluster.waiter import Progress, Waiter
from dynamo_pulumi.floor.go_duration import format_go_duration
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.readiness.drift import drift_summary
from dynamo_pulumi.readiness.targets import WaitRequest

#: Waits that may run at once before the next one queues (one thread each, mostly asleep).
WAIT_THREADS: Final = 256
#: Seconds between two looks at a queued wait's place (a new line only when it moved).
QUEUE_REFRESH_SECONDS: Final = 5.0
#: Why a job ends when the call that started it is dropped (asyncio cancels its task).
DROPPED: Final = "the call was dropped (the engine went away or the call's deadline passed)"
#: Seconds a dropped call waits for its job's thread to end (it holds the slot meanwhile).
DROP_SECONDS: Final = 2.0
#: Seconds a cancelled job's answer waits for its thread's own "cancelled" (with its elapsed time).
CANCEL_SECONDS: Final = 0.5

_pool: ThreadPoolExecutor | None = None


def wait_pool() -> ThreadPoolExecutor:
    """The process's wait pool, made on first use (importing this module starts no thread)."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=WAIT_THREADS, thread_name_prefix="dynamo-wait")
    return _pool


@record
class ProviderConnection:
    """The provider-level connection (``dynamo:kubeconfig``, ``dynamo:context``); plain data."""

    kubeconfig: str | Mapping[str, Any] | None = None
    context: str | None = None

    def __repr__(self) -> str:  # never print a kubeconfig (it holds credentials)
        return f"ProviderConnection(kubeconfig={'<given>' if self.kubeconfig else None}, context={self.context!r})"

    def applied_to(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """``props`` with the provider's connection filled in where the resource names none and
        does not say its children use the ambient one."""
        own = connection_of(props)
        if own.kubeconfig or own.context or own.cluster or props.get("ambient") is True:
            return dict(props)
        return {**props, "kubeconfig": self.kubeconfig, "context": self.context}


class WaitJob:
    """One wait or read: cancellable from any thread, whatever stage it is at (thread-safe).

    The pool thread :meth:`bind`\\ s its waiter once the client is built; a cancel that came
    first reaches the waiter as it binds. Callbacks registered with :meth:`on_cancel` (a queued
    wait leaving the queue) run with the reason.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.cancelled: str | None = None
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._waiter: Waiter | None = None
        self._callbacks: list[Callable[[str], None]] = []

    def cancel(self, reason: str) -> None:
        with self._lock:
            if self.cancelled is not None:
                return
            self.cancelled = reason
            waiter, callbacks = self._waiter, list(self._callbacks)
        if waiter is not None:
            waiter.cancel(reason)
        for callback in callbacks:
            callback(reason)

    def on_cancel(self, callback: Callable[[str], None]) -> None:
        with self._lock:
            reason = self.cancelled
            if reason is None:
                self._callbacks.append(callback)
        if reason is not None:
            callback(reason)

    def bind(self, waiter: Waiter | None) -> None:
        """The job's waiter from now on (None when it ended); cancelled already: cancel it now."""
        with self._lock:
            self._waiter = waiter
            reason = self.cancelled
        if waiter is not None and reason is not None:
            waiter.cancel(reason)

    def check(self) -> None:
        """Raise :class:`WaitCancelled` when cancelled before the wait started."""
        if self.cancelled is not None:
            raise WaitCancelled(f"{self.label}: cancelled before it started: {self.cancelled}")

    def error(self) -> WaitCancelled:
        """The "cancelled" answer of a job whose thread did not end in time to give its own (the
        same words as the waiter's)."""
        elapsed = format_go_duration(max(0, round(time.monotonic() - self._started)))
        return WaitCancelled(f"{self.label}: cancelled after {elapsed}: {self.cancelled}")

    def silence(self) -> Silence | None:
        """Since when the job's API server has not answered (None: it answers, or no client yet)."""
        with self._lock:
            waiter = self._waiter
        return waiter.api.health.silence() if waiter is not None else None


@record
class Settled:
    """What a finished wait yields: the status outputs, drift findings, and the drift warning."""

    status: dict[str, Any]
    drift: list[dict[str, Any]] = field(default_factory=list)
    warning: str = ""


def drift_warning(label: str, findings: list[dict[str, Any]], unread: list[str]) -> str:
    """The one warning the drift check gives ("" when the operator did as predicted)."""
    if not findings and not unread:
        return ""
    text = drift_summary(findings)
    lines = [text] if text else []
    return (f"{label}: the operator's objects differ from the prediction ({len(findings)} findings):\n"
            + "\n".join([*lines, *unread]))


@contextlib.contextmanager
def _bound(job: WaitJob, waiter: Waiter) -> Any:
    """``waiter`` bound to ``job`` while inside; its client closed afterwards, whatever happened."""
    try:
        job.bind(waiter)
        yield waiter
    finally:
        job.bind(None)
        waiter.api.close()


def settle(props: Mapping[str, Any], request: WaitRequest, progress: Progress | None = None,
           job: WaitJob | None = None, deadline_by: str = "") -> Settled:
    """Block until the graph is ready (raising the waiter's one-message errors otherwise)."""
    job = job or WaitJob(request.label)
    job.check()
    with _bound(job, open_waiter(props, request, progress, deadline_by=deadline_by)) as waiter:
        status = waiter.wait()
        report = operator_drift(waiter, props.get("predicted") or [])
    return Settled(status.outputs(), report.findings, drift_warning(request.label, report.findings, report.unread))


def observe(props: Mapping[str, Any], request: WaitRequest, job: WaitJob | None = None) -> dict[str, Any]:
    """The graph's status now, without waiting (refresh)."""
    job = job or WaitJob(request.label)
    job.check()
    with _bound(job, open_waiter(props, request)) as waiter:
        return waiter.status().outputs()


#: Told a queued wait's place: (position from 1, waits running).
Queued = Callable[[int, int], None]


class WaitSlots:
    """At most ``size`` waits hold a pool thread; the rest queue in order. Event-loop only."""

    def __init__(self, size: int = WAIT_THREADS) -> None:
        self.size = size
        self.running = 0
        self._queue: deque[asyncio.Future[None]] = deque()

    @property
    def queued(self) -> int:
        return len(self._queue)

    @contextlib.asynccontextmanager
    async def slot(self, job: WaitJob, queued: Queued) -> AsyncIterator[None]:
        """Hold a slot while inside (queued until one is free, ``queued`` told the place)."""
        await self._acquire(job, queued)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, job: WaitJob, queued: Queued) -> None:
        if self.running < self.size and not self._queue:
            self.running += 1
            return
        loop = asyncio.get_running_loop()
        ticket: asyncio.Future[None] = loop.create_future()
        self._queue.append(ticket)
        def withdraw(_reason: str) -> None:  # any thread may cancel: the queue is the loop's
            loop.call_soon_threadsafe(self._withdraw, ticket, job)

        job.on_cancel(withdraw)
        shown = 0
        try:
            while not ticket.done():
                position = self._queue.index(ticket) + 1
                if position != shown:
                    queued(position, self.running)
                    shown = position
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(ticket), QUEUE_REFRESH_SECONDS)
            ticket.result()
        except asyncio.CancelledError:
            if ticket in self._queue:
                self._queue.remove(ticket)
            elif ticket.done() and not ticket.cancelled() and ticket.exception() is None:
                self._release()  # the slot was handed to this wait as it was dropped: pass it on
            raise

    def _withdraw(self, ticket: asyncio.Future[None], job: WaitJob) -> None:
        """A queued wait was cancelled: it leaves the queue with the cancel's message."""
        if ticket in self._queue and not ticket.done():
            self._queue.remove(ticket)
            ticket.set_exception(WaitCancelled(f"{job.label}: cancelled while queued: {job.cancelled}"))

    def _release(self) -> None:
        while self._queue:
            ticket = self._queue.popleft()
            if not ticket.done():
                ticket.set_result(None)  # the slot passes straight to the next in line
                return
        self.running -= 1


_slots: WaitSlots | None = None


def wait_slots() -> WaitSlots:
    """The process's slots (one event loop serves the plugin)."""
    global _slots
    if _slots is None:
        _slots = WaitSlots()
    return _slots


def _ignore_queue(_position: int, _running: int) -> None:
    return None


async def _on_pool(job: WaitJob, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` on the wait pool, answered as soon as the job is cancelled.

    A cancelled job's thread normally ends within moments with its own :class:`WaitCancelled`
    (its connections are cut); one still busy after :data:`CANCEL_SECONDS` (importing the client,
    a connect nothing answers) ends in the background, and the call answers "cancelled" now. When
    the awaiting call itself is dropped (its task cancelled), the job is cancelled too and its
    thread given :data:`DROP_SECONDS` to end: a dropped call leaves neither a connection nor a
    thread behind.
    """
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(wait_pool(), call, *args)
    cancelled: asyncio.Future[None] = loop.create_future()

    def on_cancel(_reason: str) -> None:
        loop.call_soon_threadsafe(lambda: cancelled.done() or cancelled.set_result(None))

    job.on_cancel(on_cancel)
    try:
        await asyncio.wait({future, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        if not future.done():
            await asyncio.wait({future}, timeout=CANCEL_SECONDS)
    except asyncio.CancelledError:
        job.cancel(DROPPED)
        await asyncio.wait({future}, timeout=DROP_SECONDS)
        if future.done() and not future.cancelled():
            future.exception()  # the job's own WaitCancelled: nobody is left to read it
        raise
    finally:
        cancelled.cancel()
    if future.done():
        return future.result()
    future.add_done_callback(lambda f: f.cancelled() or f.exception())  # ends in the background, unread
    raise job.error()


async def settle_async(props: Mapping[str, Any], request: WaitRequest, progress: Progress | None = None,
                       job: WaitJob | None = None, deadline_by: str = "", queued: Queued = _ignore_queue) -> Settled:
    """:func:`settle` on the wait pool: the event loop keeps serving other graphs meanwhile."""
    job = job or WaitJob(request.label)
    async with wait_slots().slot(job, queued):
        settled: Settled = await _on_pool(job, settle, props, request, progress, job, deadline_by)
        return settled


async def observe_async(props: Mapping[str, Any], request: WaitRequest, job: WaitJob | None = None,
                        queued: Queued = _ignore_queue) -> dict[str, Any]:
    job = job or WaitJob(request.label)
    async with wait_slots().slot(job, queued):
        status: dict[str, Any] = await _on_pool(job, observe, props, request, job)
        return status
