"""Durations: one Go ``time.Duration`` grammar for the Grove termination delay and the readiness
deadline; a deadline may also be a plain number of seconds, and must be positive."""

from __future__ import annotations

import pytest

from dynamo_pulumi.floor.go_duration import format_go_duration, parse_go_duration
from dynamo_pulumi.readiness.deadline import DEFAULT_TIMEOUT_SECONDS, parse_duration


@pytest.mark.parametrize(("value", "seconds"), [
    ("30m", 1800), ("1h30m", 5400), ("90s", 90), ("1.5h", 5400), ("2500ms", 2), (600, 600), ("600", 600), (0.4, 1),
])
def test_a_deadline_is_seconds_or_a_go_duration(value: object, seconds: int) -> None:
    assert parse_duration(value) == seconds  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["thirty minutes", "", "1d", "15 m", True])
def test_a_deadline_that_is_no_duration_is_refused_naming_the_rule(value: object) -> None:
    with pytest.raises(ValueError, match="timeout must be a duration like 30m"):
        parse_duration(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["0", "0s", 0, -5])
def test_a_deadline_must_be_positive(value: object) -> None:
    with pytest.raises(ValueError, match="timeout must be positive"):
        parse_duration(value)  # type: ignore[arg-type]


def test_the_default_deadline_is_sixty_minutes_and_prints_as_go_does() -> None:
    assert DEFAULT_TIMEOUT_SECONDS == 3600
    assert format_go_duration(DEFAULT_TIMEOUT_SECONDS) == "1h0m0s"
    assert format_go_duration(parse_go_duration("90s")) == "1m30s"


@pytest.mark.parametrize(("text", "seconds"), [("0", 0.0), ("", 0.0), ("1h30m", 5400.0), ("250ms", 0.25), (" 90s ", 90.0)])
def test_the_user_grammar_reads_seconds(text: str, seconds: float) -> None:
    assert parse_go_duration(text) == seconds


@pytest.mark.parametrize("text", ["15 m", "1d", "s", "1h 30m", "-5s"])
def test_the_user_grammar_refuses_what_is_no_duration_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match=f"invalid duration {text!r}"):
        parse_go_duration(text)
