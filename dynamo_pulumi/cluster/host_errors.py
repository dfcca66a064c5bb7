"""Our errors reach a ``pulumi up`` user from the dynamic-provider host as their message alone.

The SDK's host (``python -m pulumi.dynamic``, started by the engine for every dynamic resource)
answers any exception a provider method raises with ``traceback.format_exc()``: the engine
prints that text as the resource's error. For a readiness wait that timed out, the user read a
``Traceback (most recent call last):`` block of the host's frames and ours before the one line
that matters (seen with the real engine, tests/e2e/test_engine_failure.py). A
:class:`~dynamo_pulumi.errors.DynamoPulumiError` is such a line, a verdict about the user's graph
or cluster, never a bug, so the host is given a ``traceback`` whose ``format_exc`` returns the
message of our errors and the full traceback of anything else (a bug still shows where it is).

:func:`install` changes nothing outside that host: it acts only when ``__main__`` is the SDK's
``pulumi.dynamic.__main__`` and still holds the standard ``traceback`` module. The readiness
provider calls it when the host imports it (unpickling the provider imports its module).
"""

from __future__ import annotations

import sys
import traceback
from types import ModuleType
from typing import Any, Final

from dynamo_pulumi.errors import DynamoPulumiError

#: The module name of the SDK's dynamic-provider host when it runs (``python -m pulumi.dynamic``).
HOST_MODULE: Final = "pulumi.dynamic.__main__"


class HostTraceback:
    """``traceback`` as the host reads it: our errors formatted as their message."""

    def __getattr__(self, name: str) -> Any:
        return getattr(traceback, name)

    @staticmethod
    def format_exc(limit: int | None = None, chain: bool = True) -> str:
        error = sys.exc_info()[1]
        if isinstance(error, DynamoPulumiError):
            return str(error)
        return traceback.format_exc(limit, chain)


def _host() -> ModuleType | None:
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return main if spec is not None and spec.name == HOST_MODULE else None


def install() -> bool:
    """Give the running dynamic-provider host our ``traceback``; True when it has it now."""
    host = _host()
    if host is None:
        return False
    current = getattr(host, "traceback", None)
    if current is traceback:
        host.traceback = HostTraceback()  # type: ignore[attr-defined]
        return True
    return isinstance(current, HostTraceback)
