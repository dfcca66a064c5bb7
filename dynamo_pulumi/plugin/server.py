"""The plugin's gRPC server: the SDK's experimental servicer, with our errors shown as ours.

The SDK's servicer (``pulumi.provider.experimental.server``) does the wire work: an asyncio
``grpc.aio`` server on 127.0.0.1, the port on stdout for the engine, property values, and the
monitor connection ``Construct`` registers children through. What it does with errors is wrong
for us: it re-raises every failure as ``Exception("<message>:\n<stack listing>")`` (and gRPC
then shows ``Unexpected <class 'Exception'>: ...``). The user must see our message alone (the
field path and rule of a refused graph, or one line per unready component), so
:class:`DynamoServicer` answers failures itself: the original error (the SDK raises its copy
while handling it, so the original is the copy's ``__context__``), its message as the gRPC status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import Any, TypeVar

import grpc
import grpc.aio
from pulumi.provider.experimental.server import ProviderServicer
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import provider_pb2_grpc

from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.plugin.provider import DynamoProvider

T = TypeVar("T")


def version() -> str:
    try:
        return metadata.version("dynamo-pulumi")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def original(exc: BaseException) -> BaseException:
    """The error the SDK's stack-listing copy was made from (``exc`` itself when not a copy)."""
    inner = exc.__context__
    if inner is not None and str(exc).startswith(f"{inner}:\n"):
        return inner
    return exc


def message_of(exc: BaseException) -> str:
    """What the user reads for ``exc``: our message, or the type and message of anything else
    (never a traceback: the plugin's stderr keeps those for a bug report)."""
    exc = original(exc)
    if isinstance(exc, DynamoPulumiError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


async def answered(call: Awaitable[T], context: Any) -> T:
    """``call``'s answer, or a gRPC error whose message is the error's text alone."""
    try:
        return await call
    except grpc.aio.AbortError:
        raise
    except Exception as exc:  # any failure of a step is the user's one message
        if not isinstance(original(exc), DynamoPulumiError):
            import traceback

            traceback.print_exc(file=sys.stderr)  # for a bug report; the engine shows the message
        await context.abort(grpc.StatusCode.UNKNOWN, message_of(exc))
        raise  # abort raises; this keeps type checkers content


def _wrapped(name: str) -> Callable[..., Awaitable[Any]]:
    method = getattr(ProviderServicer, name)

    async def serve(self: ProviderServicer, request: Any, context: Any) -> Any:
        return await answered(method(self, request, context), context)

    serve.__name__ = name
    return serve


#: The servicer methods whose failures are a user's message.
ANSWERED = ("Construct", "Check", "Diff", "Create", "Read", "Update", "Delete", "Configure")


async def _construct_plain(self: ProviderServicer, request: Any, context: Any) -> Any:
    """``Construct`` without the SDK's stack listing: its inner ``_construct`` is wrapped."""
    return await answered(self._construct(request, context), context)


DynamoServicer = type(
    "DynamoServicer", (ProviderServicer,),
    {**{name: _wrapped(name) for name in ANSWERED}, "Construct": _construct_plain,
     "__doc__": "The SDK's servicer with our failures answered as their message alone."},
)


async def serve(engine_address: str | None, args: list[str]) -> None:
    server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
    provider = DynamoProvider(version(), engine_address)
    servicer = DynamoServicer(args, version(), provider, engine_address=engine_address or "")
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    await server.wait_for_termination()


def main(argv: list[str] | None = None) -> None:
    """``pulumi-resource-dynamo [engine-address] [--logtostderr] [-v=N] ...`` (as the engine runs it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="pulumi-resource-dynamo", description="The dynamo Pulumi provider plugin")
    parser.add_argument("engine", nargs="?", default=None, help="the engine's gRPC address")
    known, _ = parser.parse_known_args(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(known.engine, args))
