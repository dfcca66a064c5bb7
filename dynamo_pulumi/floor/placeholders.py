"""The one spelling of a parked ``pulumi.Output``: ``__dynamo_pulumi_output_<12 hex>__``.

:mod:`dynamo_pulumi.planning.unknowns` writes and restores these tokens; schema checks
(:mod:`dynamo_pulumi.api.pod_schema`) treat a leaf that is one token as unknown until deploy
time. Both import the pattern from here, so they cannot drift apart. The typed models
(:mod:`dynamo_pulumi.api.base`) and the parking recognise a deploy-time value by
:func:`is_deploy_time_value`.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Awaitable
from typing import Any

#: A parked Output token; group 1 is its id (12 hex digits of a hash of the Output's spec path).
OUTPUT_TOKEN_RE = re.compile(r"__dynamo_pulumi_output_([0-9a-f]{12})__")


def is_output_token(value: Any) -> bool:
    """``value`` is exactly one parked Output token (its whole value is unknown)."""
    return isinstance(value, str) and OUTPUT_TOKEN_RE.fullmatch(value) is not None


def contains_output_token(value: Any) -> bool:
    """``value`` is a string with a parked Output somewhere in it (its text is unknown), or a
    settled plan's :class:`UnknownValue`."""
    return isinstance(value, UnknownValue) or (isinstance(value, str) and OUTPUT_TOKEN_RE.search(value) is not None)


class UnknownValue(str):
    """A leaf of a *settled* plan whose ``pulumi.Output`` is not known at preview: it reads
    ``(unknown)`` (as the Pulumi CLI shows such a value; never a token or a stand-in integer) and
    remembers which Output it waits for (``ident``), so a count built from it says so."""

    ident: str

    def __new__(cls, ident: str) -> UnknownValue:
        value = super().__new__(cls, "(unknown)")
        value.ident = ident
        return value


def is_deploy_time_value(value: Any) -> bool:
    """``value`` is known only at deploy time: a ``pulumi.Output`` or another awaitable Input.

    Recognised without importing ``pulumi``: an Output can exist only once the user's program
    has imported it, so the module is looked up, never loaded, here."""
    pulumi = sys.modules.get("pulumi")
    if pulumi is not None and isinstance(value, pulumi.Output):
        return True
    return is_awaitable(value)


#: ``CO_ITERABLE_COROUTINE``: a generator made a coroutine by ``types.coroutine``.
_ITERABLE_COROUTINE = 0x100


def is_awaitable(value: Any) -> bool:
    """``inspect.isawaitable`` without importing ``inspect`` (which brings ``ast``, ``dis`` and
    ``tokenize`` into every start); ``tests/test_placeholders.py`` holds the two equal."""
    if isinstance(value, types.GeneratorType):
        return bool(value.gi_code.co_flags & _ITERABLE_COROUTINE)
    return isinstance(value, Awaitable)
