"""How long a graph may take to become ready, as users write it (``30m``, ``1h30m``, ``90s``, 600).

One default for every front end (the readiness resource, child await timeouts, ``dynamo-pulumi
wait``): 60 minutes, because a large model loads for tens of minutes and pulumi-kubernetes'
10-minute default would fail an update that is merely slow.
"""

from __future__ import annotations

import math
import re
from typing import Final

from dynamo_pulumi.floor.go_duration import parse_go_duration

DEFAULT_TIMEOUT_SECONDS: Final = 3600
#: The longest wait anyone means: a week (a larger number is a unit mistake, or ``inf``).
MAX_TIMEOUT_SECONDS: Final = 7 * 24 * 3600


def timeout_problem(seconds: float) -> str | None:
    """Why ``seconds`` cannot be a wait's deadline (None when it can): it must be a finite number
    above zero and at most :data:`MAX_TIMEOUT_SECONDS` (NaN compares false with everything, so it
    is tested first: ``nan <= 0`` let it through once and the wait never ended)."""
    if math.isnan(seconds) or math.isinf(seconds):
        return "must be a finite number of seconds"
    if seconds <= 0:
        return "must be positive"
    if seconds > MAX_TIMEOUT_SECONDS:
        return f"must be at most {MAX_TIMEOUT_SECONDS} seconds (7 days)"
    return None


def parse_duration(value: float | int | str) -> int:
    """Seconds in ``value``: a number of seconds or a Go duration (``1h30m``, ``45m``, ``90s``).

    Raises ValueError naming the rule when the text is not a positive duration.
    """
    if isinstance(value, bool):
        raise ValueError(f"timeout must be a duration like 30m or 1h, not {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        text = value.strip()
        try:
            if not text:
                raise ValueError(text)
            seconds = float(text) if re.fullmatch(r"\d+(\.\d+)?", text) else parse_go_duration(text)
        except ValueError:
            raise ValueError(f"timeout must be a duration like 30m, 1h30m or 90s, not {value!r}") from None
    problem = timeout_problem(seconds)
    if problem is not None:
        raise ValueError(f"timeout {problem}, not {value!r}")
    return max(1, round(seconds))
