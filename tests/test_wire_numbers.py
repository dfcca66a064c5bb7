"""The one wire-number rule both doors (the mock monitor, the plugin) apply (issue 17/18: the
engine sends ``replicas: 1`` as the double ``1.0``)."""

from __future__ import annotations

import pytest

from dynamo_pulumi.floor.wire_numbers import as_written


@pytest.mark.parametrize(("sent", "written"), [(1.0, 1), (0.0, 0), (-3.0, -3), (8000.0, 8000)])
def test_a_whole_number_double_is_the_integer_written(sent: float, written: int) -> None:
    assert as_written(sent) == written and type(as_written(sent)) is int


@pytest.mark.parametrize("value", [0.5, 1.25, float("inf"), "1.0", True, None, 3])
def test_anything_else_is_left_as_it_is(value: object) -> None:
    assert as_written(value) is value
