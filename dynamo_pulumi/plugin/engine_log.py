"""Log lines sent to the engine, attributed to a resource: what the dynamic host cannot do.

The engine passes its address to every plugin it starts (the first argument). A line sent with
the resource's URN shows under that resource in ``pulumi up``; with ``ephemeral`` it is a status
line that the next one replaces and that disappears when the step ends, as pulumi-kubernetes
shows its "Waiting for ..." lines. The waiter reports progress from its own thread, so
:meth:`EngineLog.from_thread` hands each line to the event loop (:class:`ThreadProgress`).

Logging is best effort: a line the engine cannot take is written to stderr (which the engine
also shows, unattributed); it never fails the step it describes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
from typing import Any, Final

from pulumi.runtime.proto import engine_pb2

INFO: Final = engine_pb2.LogSeverity.INFO
WARNING: Final = engine_pb2.LogSeverity.WARNING


class EngineLog:
    """One connection to the engine's Log service, opened on first use."""

    def __init__(self, address: str | None) -> None:
        self.address = address or None
        self._stub: Any = None

    def _engine(self) -> Any:
        if self._stub is None and self.address:
            import grpc.aio
            from pulumi.runtime.proto import engine_pb2_grpc

            self._stub = engine_pb2_grpc.EngineStub(grpc.aio.insecure_channel(self.address))
        return self._stub

    async def log(self, message: str, urn: str = "", *, severity: int = INFO, ephemeral: bool = False) -> None:
        engine = self._engine()
        if engine is None:
            print(message, file=sys.stderr)
            return
        request = engine_pb2.LogRequest(severity=severity, message=message, urn=urn, ephemeral=ephemeral)
        try:
            await engine.Log(request)
        except Exception:  # the engine went away or refused: the line still reaches stderr
            print(message, file=sys.stderr)

    def from_thread(self, loop: asyncio.AbstractEventLoop, urn: str, prefix: str) -> ThreadProgress:
        """A progress callback for a waiter thread: each line an ephemeral status of ``urn``."""
        return ThreadProgress(self, loop, urn, prefix)


class ThreadProgress:
    """Progress lines from a waiter thread, sent on the loop; :meth:`drain` before answering, so
    every line reaches the engine before the step it describes ends."""

    def __init__(self, log: EngineLog, loop: asyncio.AbstractEventLoop, urn: str, prefix: str) -> None:
        self.log, self.loop, self.urn, self.prefix = log, loop, urn, prefix
        self._sent: list[concurrent.futures.Future[None]] = []

    def __call__(self, line: str) -> None:
        coroutine = self.log.log(f"{self.prefix}: {line}", self.urn, ephemeral=True)
        self._sent.append(asyncio.run_coroutine_threadsafe(coroutine, self.loop))

    async def drain(self) -> None:
        sent, self._sent = self._sent, []
        await asyncio.gather(*(asyncio.wrap_future(f) for f in sent), return_exceptions=True)
