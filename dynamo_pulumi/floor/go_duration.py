"""Go ``time.Duration`` text, read and written the way the operator's configuration and users write it.

One grammar for every duration we accept: ``orchestrators.grove.terminationDelay`` (rendered
into the PodCliqueSet in Go's ``Duration.String`` form) and the readiness deadline users give
as ``30m``, ``1h30m`` or ``90s`` (``dynamo-pulumi wait --timeout``, the readiness options).
"""

from __future__ import annotations

import re
from typing import Final

_PART: Final = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS: Final = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_go_duration(text: str) -> float:
    """Seconds in a Go duration string (``15m``, ``1h30m``, ``90s``, ``0``); ValueError otherwise."""
    value = text.strip()
    if value in ("0", ""):
        return 0.0
    parts = _PART.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        raise ValueError(f"invalid duration {text!r}")
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)


def format_go_duration(seconds: float) -> str:
    """Go's ``Duration.String`` for whole seconds: ``15m0s``, ``1h0m0s``, ``45s``."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"
