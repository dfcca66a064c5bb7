"""Log lines sent to the engine, attributed to a resource: what the dynamic host cannot do.

The engine passes its address to every plugin it starts (the first argument). A line sent with
the resource's URN shows under that resource in ``pulumi up``; with ``ephemeral`` it is a status
line that the next one replaces and that disappears when the step ends, as pulumi-kubernetes
shows its "Waiting for ..." lines. The waiter reports progress from its own thread, so
:meth:`EngineLog.from_thread` hands each line to the event loop (:class:`ThreadProgress`).

Logging is best effort and bounded: it never delays or fails the step it describes.

* A line is queued (:meth:`EngineLog.send` returns at once) and one sender task delivers the
  queue in order, each ``Log`` call with a deadline of :data:`LOG_SECONDS`: a stalled engine
  (``Log`` never returns) or an address that never answers costs that sender time, never a wait.
* The queue holds :data:`QUEUE_LINES`; a line beyond it is dropped and counted.
* Before a step answers, its lines get at most :data:`DRAIN_SECONDS` to reach the engine
  (:meth:`ThreadProgress.drain`); the answer does not wait longer.
* A line the engine refused or did not take in time is written to stderr (which the engine also
  shows, unattributed) and counted; without an engine address every line goes to stderr.
* The counts (:attr:`EngineLog.dropped`, :attr:`EngineLog.undelivered`) are reported on stderr
  in one line when they grew, at the end of a step.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from typing import Any, Final, TextIO

from pulumi.runtime.proto import engine_pb2

from dynamo_pulumi.floor.records import field, record

INFO: Final = engine_pb2.LogSeverity.INFO
WARNING: Final = engine_pb2.LogSeverity.WARNING
#: Deadline of one ``Log`` call.
LOG_SECONDS: Final = 1.0
#: The longest a step's answer waits for its lines to be delivered.
DRAIN_SECONDS: Final = 0.25
#: Lines waiting for the engine before the next one is dropped.
QUEUE_LINES: Final = 1000


@record(frozen=False)
class Line:
    """One line to send; ``sent`` is set once it was delivered, written to stderr, or dropped."""

    message: str
    urn: str = ""
    severity: int = INFO
    ephemeral: bool = False
    sent: asyncio.Event = field(default_factory=asyncio.Event)


class EngineLog:
    """One connection to the engine's Log service (opened on first use), one sender task, and
    the counts of lines that did not reach the engine. Event-loop only, except :meth:`from_thread`."""

    def __init__(self, address: str | None, stderr: TextIO | None = None) -> None:
        self.address = address or None
        self._stderr = stderr
        self._stub: Any = None
        self._queue: asyncio.Queue[Line] | None = None
        self._sender: asyncio.Task[None] | None = None
        #: Lines dropped because the queue was full; lines the engine refused or did not take in time.
        self.dropped = 0
        self.undelivered = 0
        self._reported = (0, 0)

    @property
    def stderr(self) -> TextIO:
        return self._stderr or sys.stderr

    def _engine(self) -> Any:
        if self._stub is None and self.address:
            import grpc.aio
            from pulumi.runtime.proto import engine_pb2_grpc

            self._stub = engine_pb2_grpc.EngineStub(grpc.aio.insecure_channel(self.address))
        return self._stub

    def _write(self, message: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # stderr closed: there is nowhere left to say it
            print(message, file=self.stderr, flush=True)

    def send(self, message: str, urn: str = "", *, severity: int = INFO, ephemeral: bool = False) -> Line:
        """Queue a line (never blocks); the returned line's ``sent`` is set once it is handled."""
        line = Line(message, urn, severity, ephemeral)
        if self.address is None:
            self._write(message)
            line.sent.set()
            return line
        queue = self._started()
        try:
            queue.put_nowait(line)
        except asyncio.QueueFull:
            self.dropped += 1
            line.sent.set()
        return line

    async def log(self, message: str, urn: str = "", *, severity: int = INFO, ephemeral: bool = False) -> None:
        """:meth:`send`, then wait (at most :data:`DRAIN_SECONDS`) for the line to be handled."""
        await settle_lines([self.send(message, urn, severity=severity, ephemeral=ephemeral)])

    def _started(self) -> asyncio.Queue[Line]:
        if self._queue is None:
            self._queue = asyncio.Queue(QUEUE_LINES)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._deliver(self._queue))
        return self._queue

    async def _deliver(self, queue: asyncio.Queue[Line]) -> None:
        while True:
            line = await queue.get()
            try:
                severity: Any = line.severity  # the proto's enum type is an int at run time
                request = engine_pb2.LogRequest(severity=severity, message=line.message, urn=line.urn,
                                                ephemeral=line.ephemeral)
                await self._engine().Log(request, timeout=LOG_SECONDS)
            except asyncio.CancelledError:
                raise
            except Exception:  # the engine went away, refused, or did not answer in time
                self.undelivered += 1
                self._write(line.message)
            finally:
                line.sent.set()

    def report(self) -> None:
        """One stderr line when lines were dropped or not delivered since the last report."""
        counts = (self.dropped, self.undelivered)
        if counts != self._reported:
            self._reported = counts
            self._write(f"dynamo: {self.dropped} log lines dropped (the engine's queue was full), "
                        f"{self.undelivered} not delivered to the engine in {LOG_SECONDS:g}s (written here instead)")

    def from_thread(self, loop: asyncio.AbstractEventLoop, urn: str, prefix: str) -> ThreadProgress:
        """A progress callback for a waiter thread: each line an ephemeral status of ``urn``."""
        return ThreadProgress(self, loop, urn, prefix)


async def settle_lines(lines: list[Line], seconds: float = DRAIN_SECONDS) -> None:
    """Wait until ``lines`` were handled, at most ``seconds``. The sender handles lines in the
    order they were queued, so the last one unhandled is the only one to wait for."""
    pending = [line for line in lines if not line.sent.is_set()]
    if pending:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(pending[-1].sent.wait(), seconds)


class ThreadProgress:
    """Progress lines from a waiter thread (or the loop), queued on the loop without blocking;
    :meth:`drain` before answering gives them a bounded moment to reach the engine."""

    def __init__(self, log: EngineLog, loop: asyncio.AbstractEventLoop, urn: str, prefix: str) -> None:
        self.log, self.loop, self.urn, self.prefix = log, loop, urn, prefix
        self._lines: list[Line] = []

    def __call__(self, line: str) -> None:
        """From the waiter's thread: hand the line to the loop (returns at once)."""
        with contextlib.suppress(RuntimeError):  # the loop closed (the plugin is exiting): no reader left
            self.loop.call_soon_threadsafe(self.say, line)

    def say(self, line: str) -> None:
        """On the loop: queue the line."""
        sent = self.log.send(f"{self.prefix}: {line}", self.urn, ephemeral=True)
        self._lines = [*(old for old in self._lines if not old.sent.is_set()), sent]

    async def drain(self) -> None:
        lines, self._lines = self._lines, []
        await settle_lines(lines)
        self.log.report()


#: What a caller gives for "tell the user": a progress callback or ``ThreadProgress.say``.
Say = Callable[[str], None]
