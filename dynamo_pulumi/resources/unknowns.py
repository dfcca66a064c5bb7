"""``pulumi.Output`` leaves in a graph spec: park them as tokens, put them back after rendering.

Validation and rendering are pure functions over plain data; they must not await anything. So
each Output found at a leaf of the user's spec is replaced by a unique token string before
loading, and after rendering every string holding a token becomes the Output again (a string
that only *contains* a token, e.g. ``"--model=<token>"``, becomes an ``Output.concat``).

Consequence, stated in the README: a value known only at deploy time does not take part in the
worker hash, so when such a value changes the worker workload is updated in place (Kubernetes'
own rolling update) instead of being recreated under a new hash-suffixed name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi

from dynamo_pulumi.errors import InputError

_TOKEN_RE = re.compile(r"__dynamo_pulumi_output_(\d+)__")


@dataclass
class OutputTable:
    """The Outputs taken out of a spec, by token number."""

    outputs: list[pulumi.Output[Any]] = field(default_factory=list)

    def token_for(self, value: pulumi.Output[Any]) -> str:
        self.outputs.append(value)
        return f"__dynamo_pulumi_output_{len(self.outputs) - 1}__"

    def __bool__(self) -> bool:
        return bool(self.outputs)


def _is_output(value: Any) -> bool:
    return isinstance(value, pulumi.Output)


def park(value: Any, table: OutputTable, path: str = "spec") -> Any:
    """A copy of ``value`` with every Output leaf replaced by a token string."""
    if _is_output(value):
        return table.token_for(value)
    if isinstance(value, Mapping):
        result = {}
        for key, item in value.items():
            if _is_output(key):
                raise InputError(f"{path}: a pulumi.Output cannot be used as a mapping key")
            result[key] = park(item, table, f"{path}.{key}")
        return result
    if isinstance(value, (list, tuple)):
        return [park(item, table, f"{path}[{i}]") for i, item in enumerate(value)]
    return value


def _restore_string(text: str, table: OutputTable) -> Any:
    parts = _TOKEN_RE.split(text)
    if len(parts) == 1:
        return text
    pieces: list[Any] = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            if part:
                pieces.append(part)
        else:
            pieces.append(table.outputs[int(part)])
    if len(pieces) == 1:
        return pieces[0]
    return pulumi.Output.concat(*pieces)


def restore(value: Any, table: OutputTable) -> Any:
    """A copy of ``value`` with every token put back as its Output."""
    if not table:
        return value
    if isinstance(value, str):
        return _restore_string(value, table)
    if isinstance(value, Mapping):
        return {key: restore(item, table) for key, item in value.items()}
    if isinstance(value, list):
        return [restore(item, table) for item in value]
    return value


def has_token(value: Any) -> bool:
    """Does ``value`` (a rendered leaf) still carry a parked Output?"""
    return isinstance(value, str) and bool(_TOKEN_RE.search(value))
