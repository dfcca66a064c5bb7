"""The one spelling of a parked ``pulumi.Output``: ``__dynamo_pulumi_output_<12 hex>__``.

:mod:`dynamo_pulumi.planning.unknowns` writes and restores these tokens; schema checks
(:mod:`dynamo_pulumi.api.pod_schema`) treat a leaf that is one token as unknown until deploy
time. Both import the pattern from here, so they cannot drift apart.
"""

from __future__ import annotations

import re
from typing import Any

#: A parked Output token; group 1 is its id (12 hex digits of a hash of the Output's spec path).
OUTPUT_TOKEN_RE = re.compile(r"__dynamo_pulumi_output_([0-9a-f]{12})__")


def is_output_token(value: Any) -> bool:
    """``value`` is exactly one parked Output token (its whole value is unknown)."""
    return isinstance(value, str) and OUTPUT_TOKEN_RE.fullmatch(value) is not None


def contains_output_token(value: Any) -> bool:
    """``value`` is a string with a parked Output somewhere in it (its text is unknown)."""
    return isinstance(value, str) and OUTPUT_TOKEN_RE.search(value) is not None
