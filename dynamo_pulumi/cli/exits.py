"""Exit codes a CI gate can trust, and what happens when the reader of our output goes away.

| code | meaning |
|---|---|
| 0 | success: every object valid, rendered, previewed; ``diff`` without ``--detailed-exitcode`` |
| 1 | invalid input or any other error (bad file, bad YAML, admission errors, render errors) |
| 2 | ``diff --detailed-exitcode`` only: changes are present |
| 64 | usage error: unknown subcommand or option, missing argument, ``-`` twice (``EX_USAGE`` of sysexits.h) |
| 130 | interrupted (Ctrl-C, SIGINT) |
| 143 | terminated (SIGTERM, as CI runners and ``timeout`` send), ended like an interrupt |
| 141 | standard output was closed early (``... | head``), as for a process ended by SIGPIPE |

argparse's own usage exit code is 2, which would make a typo'd ``diff --detailed-exitcode``
command line look like "changes pending"; :class:`dynamo_pulumi.cli.common.CliParser` exits
with :data:`EXIT_USAGE` instead.

SIGTERM is turned into :class:`Terminated` (:func:`terminate_like_interrupt`) so it unwinds like
Ctrl-C: ``finally`` blocks close the watches and the client's decoded credentials (written to
``$TMPDIR`` by its kubeconfig loader, deleted only at a normal exit) are removed; the default
action would kill the process with the private key left on disk.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from types import FrameType

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_CHANGES = 2
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
EXIT_TERMINATED = 143


class Terminated(BaseException):
    """SIGTERM arrived (a BaseException, like KeyboardInterrupt: no ``except Exception`` eats it)."""


def _raise_terminated(_signum: int, _frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def terminate_like_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Terminated` in the main thread (the previous handler
    comes back afterwards; elsewhere than the main thread nothing changes)."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread: only the main thread may handle signals
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class UsageError(Exception):
    """A command line that parses but cannot be carried out (``-`` named for two inputs)."""


def stdout_closed() -> int:
    """End quietly after the reader closed our standard output.

    Anything still buffered can never be delivered, and Python would report the failed flush at
    interpreter exit; pointing stdout at /dev/null lets the process end without that noise."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a real file (e.g. captured in tests)
        pass
    return EXIT_BROKEN_PIPE
