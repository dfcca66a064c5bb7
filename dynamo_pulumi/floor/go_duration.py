"""Go ``time.Duration`` text, read and written as Go's ``time`` package does.

One grammar for every duration: :func:`go_parse_duration` and :func:`go_duration_string` are
``time.ParseDuration`` and ``Duration.String`` to the nanosecond, errors included. The operator
reads ``orchestrators.grove.terminationDelay`` and re-encodes the EPP config's
``metricsStalenessThreshold`` with them; the readiness deadline users give as ``30m``,
``1h30m`` or ``90s`` (``dynamo-pulumi wait --timeout``, the readiness options) is the same
grammar read in seconds (:func:`parse_go_duration`).
"""

from __future__ import annotations

from typing import Final


def parse_go_duration(text: str) -> float:
    """Seconds in a Go duration a user typed (``15m``, ``1h30m``, ``90s``, ``0``), spaces around
    it and an empty text (zero) allowed, a sign not; ValueError otherwise."""
    value = text.strip()
    if not value:
        return 0.0
    if value[0] in "+-":
        raise ValueError(f"invalid duration {text!r}")
    try:
        return go_parse_duration(value) / _SECOND
    except ValueError:
        raise ValueError(f"invalid duration {text!r}") from None


def format_go_duration(seconds: float) -> str:
    """Go's ``Duration.String`` for whole seconds: ``15m0s``, ``1h0m0s``, ``45s``."""
    return go_duration_string(int(seconds) * _SECOND)


_SECOND: Final = 10**9
_MAX_NANOS: Final = 2**63 - 1
#: time.ParseDuration's units in nanoseconds (both spellings of the micro sign).
_GO_UNITS: Final = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "\u03bcs": 10**3, "ms": 10**6, "s": _SECOND,
                    "m": 60 * _SECOND, "h": 3600 * _SECOND}


def _go_quote(text: str) -> str:
    """The ``time`` package's own ``quote``: ASCII printable as is (``"`` and ``\\`` escaped), any
    other character as the ``\\xNN`` of each of its UTF-8 bytes."""
    out = []
    for char in text:
        if ord(char) >= 0x80 or ord(char) < 0x20:
            out.extend(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + char if char in '"\\' else char)
    return '"' + "".join(out) + '"'


def _is_digit(char: str) -> bool:
    return "0" <= char <= "9"


def _leading_int(text: str) -> tuple[int, str]:
    """``leadingInt``: the leading digits' value, ValueError past 1<<63."""
    value, end = 0, 0
    while end < len(text) and _is_digit(text[end]):
        if value > (1 << 63) // 10:
            raise ValueError("overflow")
        value = value * 10 + int(text[end])
        if value > 1 << 63:
            raise ValueError("overflow")
        end += 1
    return value, text[end:]


def _leading_fraction(text: str) -> tuple[int, float, str]:
    """``leadingFraction``: the digits' value and scale, digits past 63 bits ignored."""
    value, scale, end, overflow = 0, 1.0, 0, False
    while end < len(text) and _is_digit(text[end]):
        digit, end = int(text[end]), end + 1
        if overflow:
            continue
        if value > ((1 << 63) - 1) // 10 or value * 10 + digit > 1 << 63:
            overflow = True
            continue
        value, scale = value * 10 + digit, scale * 10
    return value, scale, text[end:]


def _duration_error(message: str, text: str) -> ValueError:
    return ValueError(f"time: {message} {_go_quote(text)}")


def _duration_part(rest: str, text: str) -> tuple[int, str]:
    """One ``<number><unit>`` of ``text``: its nanoseconds (unsigned, at most 1<<63) and what follows."""
    if not (rest[0] == "." or _is_digit(rest[0])):
        raise _duration_error("invalid duration", text)
    try:
        whole, after = _leading_int(rest)
    except ValueError:
        raise _duration_error("invalid duration", text) from None
    before_dot = len(after) != len(rest)
    fraction, scale, after_dot = 0, 1.0, False
    if after[:1] == ".":
        fraction, scale, tail = _leading_fraction(after[1:])
        after_dot, after = len(tail) != len(after) - 1, tail
    if not before_dot and not after_dot:
        raise _duration_error("invalid duration", text)
    end = 0
    while end < len(after) and after[end] != "." and not _is_digit(after[end]):
        end += 1
    if end == 0:
        raise _duration_error("missing unit in duration", text)
    unit = _GO_UNITS.get(after[:end])
    if unit is None:
        raise _duration_error(f"unknown unit {_go_quote(after[:end])} in duration", text)
    if whole > (1 << 63) // unit:
        raise _duration_error("invalid duration", text)
    nanos = whole * unit
    if fraction > 0:  # float64 arithmetic, truncated, as Go's
        nanos += int(float(fraction) * (float(unit) / scale))
        if nanos > 1 << 63:
            raise _duration_error("invalid duration", text)
    return nanos, after[end:]


def go_parse_duration(text: str) -> int:
    """Nanoseconds in ``text`` as ``time.ParseDuration`` reads it; ValueError with Go's message."""
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise _duration_error("invalid duration", text)
    total = 0
    while rest:
        nanos, rest = _duration_part(rest, text)
        total += nanos
        if total > 1 << 63:
            raise _duration_error("invalid duration", text)
    if negative:
        return -total
    if total > _MAX_NANOS:
        raise _duration_error("invalid duration", text)
    return total


def _with_fraction(value: int, digits: int) -> str:
    """``value`` / 10**digits with the fraction's trailing zeros (and a bare dot) left out."""
    whole, fraction = divmod(value, 10**digits)
    tail = f"{fraction:0{digits}d}".rstrip("0")
    return f"{whole}.{tail}" if tail else str(whole)


def go_duration_string(nanos: int) -> str:
    """Go's ``Duration.String``: ``0s``, ``250ms``, ``1.5s``, ``1h30m0s``, ``-2m0s``."""
    magnitude = abs(nanos)
    sign = "-" if nanos < 0 else ""
    if magnitude == 0:
        return "0s"
    if magnitude < _SECOND:
        if magnitude < 10**3:
            return f"{sign}{magnitude}ns"
        if magnitude < 10**6:
            return f"{sign}{_with_fraction(magnitude, 3)}\u00b5s"
        return f"{sign}{_with_fraction(magnitude, 6)}ms"
    seconds = _with_fraction(magnitude % (60 * _SECOND), 9)
    minutes, hours = magnitude // (60 * _SECOND) % 60, magnitude // (3600 * _SECOND)
    if hours:
        return f"{sign}{hours}h{minutes}m{seconds}s"
    if magnitude >= 60 * _SECOND:
        return f"{sign}{minutes}m{seconds}s"
    return f"{sign}{seconds}s"
