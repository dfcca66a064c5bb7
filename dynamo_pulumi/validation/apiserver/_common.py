"""Small readers shared by the API-server rules: typed views of wire mappings that never raise.

Rendered objects are plain JSON-shaped data; a value of the wrong type was already refused by
the schema stage, so here it is simply skipped. Parked ``pulumi.Output`` tokens are values not
known yet: no rule judges them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.floor.placeholders import contains_output_token


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def text(value: Any) -> str | None:
    """A known string (None for other types and for parked Outputs)."""
    if isinstance(value, str) and not contains_output_token(value):
        return value
    return None


def integer(value: Any) -> int | None:
    """A known integer (booleans are not integers on the wire)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
