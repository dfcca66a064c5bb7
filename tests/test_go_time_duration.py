"""``floor.go_duration``'s ``time.ParseDuration`` and ``Duration.String``, translated from Go's tests.

Source: the Go 1.26.8 toolchain's ``src/time/time_test.go`` (the toolchain this machine builds
the operators with; the operator re-encodes the EPP config's ``metricsStalenessThreshold`` with
it): ``durationTests`` (line 614, ``TestDurationString``), ``parseDurationTests`` (line 945) and
``parseDurationErrorTests`` (line 1016, ``TestParseDurationErrors``: the error contains the quoted
input). Three error cases are left out: their inputs are invalid UTF-8 byte strings
(``"\\x85\\x85"``, ``"\\xffff"``, ``"hello \\xffff world"``), which no YAML or JSON text can hold.
"""

from __future__ import annotations

import pytest

from dynamo_pulumi.floor.go_duration import go_duration_string, go_parse_duration

NS, US, MS, S = 1, 10**3, 10**6, 10**9
MIN, HOUR = 60 * S, 3600 * S

# time_test.go durationTests: (String(), nanoseconds)
DURATION_STRINGS = [
    ("0s", 0),
    ("1ns", 1 * NS),
    ("1.1\u00b5s", 1100 * NS),
    ("2.2ms", 2200 * US),
    ("3.3s", 3300 * MS),
    ("4m5s", 4 * MIN + 5 * S),
    ("4m5.001s", 4 * MIN + 5001 * MS),
    ("5h6m7.001s", 5 * HOUR + 6 * MIN + 7001 * MS),
    ("8m0.000000001s", 8 * MIN + 1 * NS),
    ("2562047h47m16.854775807s", (1 << 63) - 1),
    ("-2562047h47m16.854775808s", -(1 << 63)),
]

# time_test.go parseDurationTests: (input, nanoseconds)
PARSED = [
    ("0", 0), ("5s", 5 * S), ("30s", 30 * S), ("1478s", 1478 * S),
    ("-5s", -5 * S), ("+5s", 5 * S), ("-0", 0), ("+0", 0),
    ("5.0s", 5 * S), ("5.6s", 5 * S + 600 * MS), ("5.s", 5 * S), (".5s", 500 * MS), ("1.0s", 1 * S),
    ("1.00s", 1 * S), ("1.004s", 1 * S + 4 * MS), ("1.0040s", 1 * S + 4 * MS), ("100.00100s", 100 * S + 1 * MS),
    ("10ns", 10 * NS), ("11us", 11 * US), ("12\u00b5s", 12 * US), ("12\u03bcs", 12 * US), ("13ms", 13 * MS),
    ("14s", 14 * S), ("15m", 15 * MIN), ("16h", 16 * HOUR),
    ("3h30m", 3 * HOUR + 30 * MIN), ("10.5s4m", 4 * MIN + 10 * S + 500 * MS), ("-2m3.4s", -(2 * MIN + 3 * S + 400 * MS)),
    ("1h2m3s4ms5us6ns", 1 * HOUR + 2 * MIN + 3 * S + 4 * MS + 5 * US + 6 * NS),
    ("39h9m14.425s", 39 * HOUR + 9 * MIN + 14 * S + 425 * MS),
    ("52763797000ns", 52763797000 * NS),
    ("0.3333333333333333333h", 20 * MIN),
    ("9007199254740993ns", ((1 << 53) + 1) * NS),
    ("9223372036854775807ns", (1 << 63) - 1), ("9223372036854775.807us", (1 << 63) - 1),
    ("9223372036s854ms775us807ns", (1 << 63) - 1),
    ("-9223372036854775808ns", -(1 << 63)), ("-9223372036854775.808us", -(1 << 63)),
    ("-9223372036s854ms775us808ns", -(1 << 63)),
    ("-2562047h47m16.854775808s", -(1 << 63)),
    ("0.100000000000000000000h", 6 * MIN),
    ("0.830103483285477580700h", 49 * MIN + 48 * S + 372539827 * NS),
    # ours, not Go's table: digits well past leadingFraction's 63 bits are read and ignored
    ("0.1000000000000000000000000000h", 6 * MIN),
]

# time_test.go parseDurationErrorTests: (input, what the error contains)
ERRORS = [
    ("", '""'), ("3", '"3"'), ("-", '"-"'), ("s", '"s"'), (".", '"."'), ("-.", '"-."'), (".s", '".s"'),
    ("+.s", '"+.s"'), ("1d", '"1d"'),
    ("\ufffd", '"\\xef\\xbf\\xbd"'), ("\ufffd hello \ufffd world", '"\\xef\\xbf\\xbd hello \\xef\\xbf\\xbd world"'),
    ("9223372036854775810ns", '"9223372036854775810ns"'), ("9223372036854775808ns", '"9223372036854775808ns"'),
    ("-9223372036854775809ns", '"-9223372036854775809ns"'), ("9223372036854776us", '"9223372036854776us"'),
    ("3000000h", '"3000000h"'), ("9223372036854775.808us", '"9223372036854775.808us"'),
    ("9223372036854ms775us808ns", '"9223372036854ms775us808ns"'),
]


@pytest.mark.parametrize(("text", "nanos"), DURATION_STRINGS, ids=[t for t, _ in DURATION_STRINGS])
def test_duration_string(text: str, nanos: int) -> None:
    """TestDurationString, negation included."""
    assert go_duration_string(nanos) == text
    if nanos > 0:
        assert go_duration_string(-nanos) == "-" + text


@pytest.mark.parametrize(("text", "nanos"), PARSED, ids=[t for t, _ in PARSED])
def test_parse_duration(text: str, nanos: int) -> None:
    """TestParseDuration."""
    assert go_parse_duration(text) == nanos


@pytest.mark.parametrize(("text", "quoted"), ERRORS, ids=[repr(t) for t, _ in ERRORS])
def test_parse_duration_errors(text: str, quoted: str) -> None:
    """TestParseDurationErrors: an error containing the input as Go's time package quotes it."""
    with pytest.raises(ValueError) as raised:
        go_parse_duration(text)
    assert quoted in str(raised.value)


def test_the_messages_are_gos() -> None:
    """The texts of ``parseDurationError.Error`` (format.go) for the three failures: the first as
    the operator's webhook answered in the probe of tests/fixtures/operator_probes."""
    assert _message("soon") == 'time: invalid duration "soon"'
    assert _message("5") == 'time: missing unit in duration "5"'
    assert _message("1d") == 'time: unknown unit "d" in duration "1d"'


def _message(text: str) -> str:
    with pytest.raises(ValueError) as raised:
        go_parse_duration(text)
    return str(raised.value)
