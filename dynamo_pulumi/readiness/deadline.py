"""How long a graph may take to become ready, as users write it (``30m``, ``1h30m``, ``90s``, 600).

One default for every front end (the readiness resource, child await timeouts, ``dynamo-pulumi
wait``): 60 minutes, because a large model loads for tens of minutes and pulumi-kubernetes'
10-minute default would fail an update that is merely slow.
"""

from __future__ import annotations

import re
from typing import Final

from dynamo_pulumi.go_duration import parse_go_duration

DEFAULT_TIMEOUT_SECONDS: Final = 3600


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
    if seconds <= 0:
        raise ValueError(f"timeout must be positive, not {value!r}")
    return max(1, round(seconds))
