"""``floor/placeholders.is_awaitable`` is ``inspect.isawaitable`` (which the hot path no longer imports)."""

from __future__ import annotations

import asyncio
import inspect
import types

import pytest


def _generator():
    yield 1


@types.coroutine
def _generator_coroutine():
    yield


async def _native() -> None:
    return None


class _HasAwait:
    def __await__(self):
        return iter(())


def _cases():
    native = _native()
    loop = asyncio.new_event_loop()
    future = loop.create_future()
    yield from [native, _generator(), _generator_coroutine(), _HasAwait(), future, 1, "x", None, [], _HasAwait, _native]
    native.close()
    loop.close()


@pytest.mark.parametrize("value", list(_cases()), ids=lambda v: type(v).__name__)
def test_is_awaitable_agrees_with_inspect(value: object) -> None:
    from dynamo_pulumi.floor.placeholders import is_awaitable

    assert is_awaitable(value) == inspect.isawaitable(value)
