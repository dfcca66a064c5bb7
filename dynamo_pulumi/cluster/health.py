"""Whether the API server is answering, for a heartbeat line while it does not.

A wait against a hung or failing API server is silent for as long as its retries last: the
watch layer backs off and asks again within the deadline, and nothing reaches the user until the
deadline's one line. :class:`Health` records every request of one :class:`~.api.ClusterApi` (it
started, it got an answer, it failed) so a caller on another thread can ask, at any moment,
"since when has the server not answered, and what is being retried?" (:meth:`Health.silence`).

An answer is any response the server sent, except a 429 or 5xx (the server is there, but what is
retried is still not served): those count as failures, like a timeout, a refused connection, a
truncated body or a stream cut short. A long watch that receives no event is not silence: its
response headers were the answer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from itertools import count
from typing import Final

from dynamo_pulumi.floor.records import record

#: How long the server may be silent before it is worth a line (and how often one is repeated).
HEARTBEAT_SECONDS: Final = 5.0
#: How often a caller looks (so a line comes within a second of the silence reaching its length).
HEARTBEAT_CHECK_SECONDS: Final = 1.0


@record
class Silence:
    """The server has not answered since ``since`` (monotonic; ``since_wall`` the same moment as
    wall-clock time): ``what`` is the request retried or waited on, ``failures`` the failed
    attempts since the last answer, ``last`` the latest failure's message ("" when none failed
    yet: the first attempt is still waiting)."""

    host: str
    since: float
    since_wall: float
    what: str
    failures: int
    last: str

    def seconds(self, now: float) -> float:
        return max(0.0, now - self.since)

    def line(self, now: float) -> str:
        """``no successful answer from the API server at https://... since 14:02:11Z (25s):
        retrying list of deployments (apps/v1) in team-a (3 failed attempts; last: HTTP 503: ...)``."""
        clock = time.strftime("%H:%M:%SZ", time.gmtime(self.since_wall))
        head = f"no successful answer from the API server at {self.host} since {clock} ({self.seconds(now):.0f}s)"
        if not self.failures:
            return f"{head}: waiting for its answer to {self.what}"
        attempts = "1 failed attempt" if self.failures == 1 else f"{self.failures} failed attempts"
        return f"{head}: retrying {self.what} ({attempts}; last: {self.last})"


class Health:
    """Requests of one API client and their outcome (thread-safe). ``clock`` is monotonic time,
    ``wall`` the wall clock the heartbeat line prints."""

    def __init__(self, host: str = "", clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.host = host
        self._clock, self._wall = clock, wall
        self._lock = threading.Lock()
        self._ids = count()
        #: Requests sent and not yet answered: id -> (what, started).
        self._open: dict[int, tuple[str, float]] = {}
        #: The first failure since the last answer (monotonic, wall), the count, the latest one.
        self._failing_since: tuple[float, float] | None = None
        self._failures = 0
        self._last = ("", "")

    def started(self, what: str) -> int:
        with self._lock:
            token = next(self._ids)
            self._open[token] = (what, self._clock())
            return token

    def answered(self, token: int | None = None) -> None:
        """The server answered (``token``'s request, or a stream it was reading): not silent."""
        with self._lock:
            if token is not None:
                self._open.pop(token, None)
            self._failing_since, self._failures, self._last = None, 0, ("", "")

    def failed(self, what: str, message: str, token: int | None = None) -> None:
        """``what`` failed with ``message`` (its request ``token`` ends, when given)."""
        with self._lock:
            now_mono, now_wall = self._clock(), self._wall()
            opened = self._open.pop(token, None) if token is not None else None
            started = opened[1] if opened is not None else now_mono  # silent since the request went out
            if self._failing_since is None:
                self._failing_since = (started, now_wall - (now_mono - started))
            self._failures += 1
            self._last = (what, message)

    def finished(self, token: int) -> None:
        """``token``'s request ended without telling anything about the server (cancelled)."""
        with self._lock:
            self._open.pop(token, None)

    def silence(self) -> Silence | None:
        """Since when the server has not answered, or None when it answers."""
        with self._lock:
            now_mono, now_wall = self._clock(), self._wall()
            moments: list[tuple[float, str, str]] = []
            if self._failing_since is not None:
                mono, _ = self._failing_since
                moments.append((mono, self._last[0], self._last[1]))
            moments.extend((started, what, "") for what, started in self._open.values())
            if not moments:
                return None
            since = min(moment for moment, _, _ in moments)
            what = self._last[0] if self._failures else min(moments)[1]
            return Silence(self.host, since, now_wall - (now_mono - since), what, self._failures, self._last[1])
