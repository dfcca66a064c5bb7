"""Numbers as the user wrote them, after Pulumi's wire format.

The engine's protocol carries every number as a protobuf double, so ``replicas: 1`` arrives as
``1.0`` at the mock monitor and at the provider plugin alike. A whole-number double is the integer
the user wrote (the schema validates ``replicas`` as an integer, and JSON shows ``1``, not
``1.0``); a fractional number stays a float. One rule for both doors.
"""

from __future__ import annotations

from typing import Any


def as_written(value: Any) -> Any:
    """``value`` with a whole-number float turned back into the integer it stands for."""
    return int(value) if isinstance(value, float) and value.is_integer() else value
