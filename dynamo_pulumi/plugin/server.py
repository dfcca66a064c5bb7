"""The plugin's gRPC server: the SDK's experimental servicer, with our errors shown as ours.

The SDK's servicer (``pulumi.provider.experimental.server``) does the wire work: an asyncio
``grpc.aio`` server on 127.0.0.1, the port on stdout for the engine, property values, and the
monitor connection ``Construct`` registers children through. What it does with errors is wrong
for us: it re-raises every failure as ``Exception("<message>:\n<stack listing>")`` (and gRPC
then shows ``Unexpected <class 'Exception'>: ...``). The user must see our message alone (the
field path and rule of a refused graph, or one line per unready component), so
:class:`DynamoServicer` answers failures itself: the original error (the SDK raises its copy
while handling it, so the original is the copy's ``__context__``), its message as the gRPC status
message, its kind as the status code (:func:`status_of`): ``INVALID_ARGUMENT`` for a refused
input, ``DEADLINE_EXCEEDED`` for a wait past its deadline, ``CANCELLED`` for a cancelled one,
``FAILED_PRECONDITION`` for a cluster that refused us or a graph the operator failed, and
``INTERNAL`` (with the error's type only, its traceback on stderr) for a bug of ours.

SIGINT (what the engine sends a plugin it closes, and Ctrl-C) and SIGTERM cancel every wait in
flight, give their answers :data:`GRACE_SECONDS` to go out, remove the decoded credential files
and exit within :data:`EXIT_SECONDS` more (:func:`exit_promptly`), whatever thread is still
inside a request. The engine kills a plugin 5 s after its SIGINT; nothing is left on disk by then.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import Any, TypeVar

import grpc
import grpc.aio
from pulumi.provider.experimental.server import ProviderServicer
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import provider_pb2_grpc

from dynamo_pulumi.cluster.errors import ClusterError, WaitCancelled, WaitFailed, WaitTimeout
from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.plugin.provider import DynamoProvider

T = TypeVar("T")

#: Seconds the calls in flight get to answer after a signal cancelled their waits.
GRACE_SECONDS = 1.0
#: Seconds the wait and watch threads then get to end before the process exits regardless.
EXIT_SECONDS = 1.0
#: Exit code per signal: SIGINT is how the engine closes a plugin (a normal end), SIGTERM as a shell reports it.
EXIT_CODES = {signal.SIGINT: 0, signal.SIGTERM: 128 + signal.SIGTERM}


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


def status_of(exc: BaseException) -> grpc.StatusCode:
    """The gRPC status of a failure (see the module docstring)."""
    from dynamo_pulumi.plugin.readiness import ReadinessFailure

    exc = original(exc)
    cause = exc.cause if isinstance(exc, ReadinessFailure) and exc.cause is not None else exc
    if isinstance(cause, WaitCancelled):
        return grpc.StatusCode.CANCELLED
    if isinstance(cause, WaitTimeout):
        return grpc.StatusCode.DEADLINE_EXCEEDED
    if isinstance(cause, (ClusterError, WaitFailed)):
        return grpc.StatusCode.FAILED_PRECONDITION
    if isinstance(cause, DynamoPulumiError):
        return grpc.StatusCode.INVALID_ARGUMENT
    return grpc.StatusCode.INTERNAL


def message_of(exc: BaseException) -> str:
    """What the user reads for ``exc``: our message, or for anything else its type alone (an
    exception's own text is Python's words, not the user's: its traceback goes to stderr)."""
    exc = original(exc)
    if isinstance(exc, DynamoPulumiError):
        return str(exc)
    return (f"internal error in the dynamo provider plugin ({type(exc).__name__}); its traceback is in the "
            "plugin's stderr output: please report it")


async def answered(call: Awaitable[T], context: Any) -> T:
    """``call``'s answer, or a gRPC error whose message is the error's text alone."""
    try:
        return await call
    except grpc.aio.AbortError:
        raise
    except Exception as exc:  # any failure of a step is the user's one message
        if not isinstance(original(exc), DynamoPulumiError):
            import traceback

            traceback.print_exception(original(exc), file=sys.stderr)  # for a bug report; the engine shows the message
        await context.abort(status_of(exc), message_of(exc))
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


async def serve(engine_address: str | None, args: list[str]) -> int:
    """Serve until the engine stops the server or a signal arrives; the exit code."""
    server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
    provider = DynamoProvider(version(), engine_address)
    servicer = DynamoServicer(args, version(), provider, engine_address=engine_address or "")
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    stopped = asyncio.Event()
    received: list[signal.Signals] = []

    def on_signal(signum: signal.Signals) -> None:
        received.append(signum)
        provider.cancel_all(f"the dynamo plugin was stopped ({signum.name})")
        stopped.set()

    loop = asyncio.get_running_loop()
    for signum in EXIT_CODES:
        with contextlib.suppress(NotImplementedError):  # Windows: Ctrl-C stays a KeyboardInterrupt
            loop.add_signal_handler(signum, on_signal, signum)
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    ended = asyncio.ensure_future(server.wait_for_termination())
    stopping = asyncio.ensure_future(stopped.wait())
    await asyncio.wait({ended, stopping}, return_when=asyncio.FIRST_COMPLETED)
    await server.stop(grace=GRACE_SECONDS)  # the cancelled waits answer "cancelled" meanwhile
    for task in (ended, stopping):
        task.cancel()
    return EXIT_CODES[received[0]] if received else 0


def _remove_credentials() -> None:
    """Remove the decoded credential files for good (only when a kubeconfig was ever loaded)."""
    if "dynamo_pulumi.cluster.credentials" in sys.modules:
        from dynamo_pulumi.cluster.credentials import remove_all

        remove_all(final=True)


def exit_promptly(code: int) -> None:
    """End the process with ``code`` within :data:`EXIT_SECONDS`: the credential files removed
    first, the wait and watch threads (cancelled: they end within moments) joined until then, and
    then ``os._exit``. Nothing is left for the interpreter's own teardown to do, and it took
    seconds (module finalizers, the gRPC runtime); a thread still stuck (a connect nothing
    answers, a first import of the Kubernetes client) must not hold the exit either."""
    _remove_credentials()
    if "dynamo_pulumi.cluster.aio" in sys.modules:
        from dynamo_pulumi.cluster import aio

        if aio._pool is not None:
            aio._pool.shutdown(wait=False, cancel_futures=True)
    end = time.monotonic() + EXIT_SECONDS
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, end - time.monotonic()))
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> None:
    """``pulumi-resource-dynamo [engine-address] [--logtostderr] [-v=N] ...`` (as the engine runs it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="pulumi-resource-dynamo", description="The dynamo Pulumi provider plugin")
    parser.add_argument("engine", nargs="?", default=None, help="the engine's gRPC address")
    known, _ = parser.parse_known_args(args)
    code = EXIT_CODES[signal.SIGINT]
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C before the loop took over its signals
        code = asyncio.run(serve(known.engine, args))
    exit_promptly(code)
