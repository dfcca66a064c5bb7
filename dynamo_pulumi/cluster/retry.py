"""When to ask the API server again: full-jitter backoff, Retry-After, and the deadline.

Every retry of the watch layer (a 5xx or 429 answer, a truncated or undecodable body, a dropped
or timed-out connection, a 410 Gone relist) sleeps first, for a random time between 0 and a
ceiling that doubles per consecutive failure up to :data:`BACKOFF_CAP` ("full jitter": many
clients failing together do not retry in step, and a server answering 410 to every resume is
asked at most a few times a second, never hundreds). A ``Retry-After`` the server sent is a
floor. Nothing sleeps past the deadline.

The clock, the sleep and the random source are injectable (:class:`Pace`) so tests assert the
delays themselves: the cap, the jitter range, the reset after progress.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from typing import Final

from dynamo_pulumi.floor.records import field, record

#: Ceiling of the first retry's delay (seconds); it doubles per consecutive failure.
BACKOFF_BASE: Final = 1.0
#: Largest ceiling: a server that keeps failing is asked again at least every 30 s.
BACKOFF_CAP: Final = 30.0

Clock = Callable[[], float]
#: ``sleep(seconds, stop)``: sleep unless ``stop`` is set first; True when stopped.
Sleep = Callable[[float, threading.Event], bool]


def _stop_wait(seconds: float, stop: threading.Event) -> bool:
    return stop.wait(seconds)


@record
class Pace:
    """Time as the watch layer sees it: ``clock`` (monotonic seconds), ``sleep``, ``random``
    (uniform in [0, 1)). The defaults are the real ones."""

    clock: Clock = time.monotonic
    sleep: Sleep = _stop_wait
    random: Callable[[], float] = random.random


@record(frozen=False)
class Backoff:
    """Consecutive-failure counter turned into full-jitter delays."""

    pace: Pace = field(default_factory=Pace)
    base: float = BACKOFF_BASE
    cap: float = BACKOFF_CAP
    failures: int = 0

    def ceiling(self) -> float:
        """The largest delay the next retry may get."""
        return min(self.cap, self.base * 2.0 ** min(self.failures, 32))

    def next_delay(self, retry_after: float | None = None) -> float:
        """The delay before the next retry (uniform in [0, ceiling), at least ``retry_after``);
        counts one more failure."""
        delay = self.ceiling() * self.pace.random()
        self.failures += 1
        return max(delay, retry_after or 0.0)

    def reset(self) -> None:
        """Progress was made (events arrived, a watch ran its course): start small again."""
        self.failures = 0


@record
class Deadline:
    """An absolute end on ``pace.clock``; ``None`` end means no deadline."""

    pace: Pace
    end: float | None

    @classmethod
    def after(cls, pace: Pace, seconds: float | None) -> Deadline:
        """``seconds`` from now; infinite is no deadline. NaN is refused: a deadline it made would
        never pass (``nan <= 0`` is false) and its wait would spin for ever."""
        if seconds is not None and math.isnan(seconds):
            raise ValueError("a deadline cannot be NaN seconds")
        return cls(pace, None if seconds is None or seconds == math.inf else pace.clock() + seconds)

    def left(self) -> float | None:
        """Seconds left (may be negative), None without a deadline."""
        return None if self.end is None else self.end - self.pace.clock()

    def passed(self) -> bool:
        left = self.left()
        return left is not None and left <= 0

    def bound(self, seconds: float) -> float:
        """``seconds``, or less when the deadline is nearer (never below 0)."""
        left = self.left()
        return max(0.0, seconds if left is None else min(seconds, left))


def retry_after_seconds(value: object) -> float | None:
    """A ``Retry-After`` header in seconds (the API server sends delta-seconds); None when absent
    or not a number (an HTTP date is rare from the API server and treated as absent)."""
    if value is None:
        return None
    try:
        seconds = float(str(value).strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
