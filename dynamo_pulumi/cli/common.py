"""What every subcommand shares: the parser class, plain help, the common flags, the inputs.

A subcommand builds its parser with :func:`subcommand_parser` and adds the flags it takes with
the ``add_*`` helpers, so ``-n/--namespace``, ``-p/--platform``, ``-o/--output`` and ``--inline``
mean the same everywhere. Positional inputs are file paths, ``-`` for standard input, or, with
``--inline``, YAML text; :func:`read_input` turns each into a :class:`SourceText` without guessing.
Warnings are printed by :func:`warn`, always spelled ``warning:``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

from dynamo_pulumi.cli.exits import EXIT_USAGE, UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing for --help
if TYPE_CHECKING:
    from typing import Any, NoReturn, TextIO

    from dynamo_pulumi.floor.sources import SourceText

STDIN = "-"
_ROLE = re.compile(r":(?:func|class|mod|meth|data|attr):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
#: argparse's "invalid choice: 'x' (choose from 'a', 'b')" (3.11 quotes each choice).
_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` without importing shutil (and its compression
    modules): ``COLUMNS`` when it is a positive number, else the terminal's, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Width:
    """argparse's help width, known without shutil: argparse imports shutil for it whenever a
    formatter is made, which is on every ``add_argument``, for every command."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,  # type: ignore[call-arg]
                         terminal_columns() - 2 if width is None else width)


class HelpFormatter(_Width, argparse.HelpFormatter):
    """argparse's default help format."""


class RawDescriptionHelpFormatter(_Width, argparse.RawDescriptionHelpFormatter):
    """A subcommand's help: its description (the module docstring) as written."""


class CliParser(argparse.ArgumentParser):
    """argparse with a usage-error exit code that can never mean "changes present", and no
    abbreviated options (a CI script's ``--detailed-exitcod`` must fail, not silently match)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        #: The subcommands' parsers by name (the top-level parser only), for their usage lines.
        self.subcommands: dict[str, argparse.ArgumentParser] = {}

    def error(self, message: str) -> NoReturn:
        choice = _INVALID_CHOICE.search(message)
        if choice:  # a misspelt subcommand or flag value: the nearest accepted one
            from dynamo_pulumi.floor.suggest import did_you_mean

            message += did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def plain_help(doc: str | None) -> str:
    """A module docstring as terminal text: reStructuredText roles and literals unwrapped."""
    text = _ROLE.sub(lambda m: m.group(1).rpartition(".")[2], doc or "")
    return _LITERAL.sub(r"\1", text).strip()


def subcommand_parser(subparsers: Any, name: str, doc: str | None) -> argparse.ArgumentParser:
    """The parser of one subcommand: its table help line, its module docstring as plain text."""
    from dynamo_pulumi.cli import SUBCOMMANDS

    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=SUBCOMMANDS[name][1],
        description=plain_help(doc),
        formatter_class=RawDescriptionHelpFormatter,
    )
    return parser


def add_namespace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-n", "--namespace", default=None, help="target namespace (default: the object's, else 'default')"
    )


def add_platform(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p", "--platform", default=None, help="platform YAML (operator configuration and cluster facts)"
    )


def add_output(parser: argparse.ArgumentParser, choices: Sequence[str]) -> None:
    """``-o/--output`` (also spelt ``--format``, in every subcommand that has it) with
    ``choices`` (the first is the default)."""
    parser.add_argument(
        "-o", "--output", "--format", dest="output", choices=tuple(choices), default=choices[0],
        help=f"output format (default: {choices[0]})",
    )


def add_inline(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--inline", action="store_true",
        help="the positional arguments are YAML text, not file paths",
    )


class Given(argparse.Action):
    """Store the value and note that the flag was given (``<dest>_given``): a flag that does not
    apply to an input (``--mode`` with a Pulumi program) is refused, not silently ignored."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{self.dest}_given", True)


def given(args: argparse.Namespace, dest: str) -> bool:
    """Was the flag storing ``dest`` on the command line (for :class:`Given` flags)?"""
    return bool(getattr(args, f"{dest}_given", False))


def add_mode(parser: argparse.ArgumentParser) -> None:
    """``--mode render|operator`` (:mod:`dynamo_pulumi.model.deploy_mode`): which objects Pulumi creates."""
    from dynamo_pulumi.model.deploy_mode import DEFAULT_MODE, MODES

    parser.add_argument(
        "--mode", choices=MODES, default=DEFAULT_MODE, action=Given,
        help="render (default): Pulumi creates the rendered objects; operator: Pulumi creates the "
        "DGD/DCD custom resource and an installed Dynamo operator expands it",
    )


def add_common(parser: argparse.ArgumentParser) -> None:
    """The flags every subcommand has: namespace, platform and ``--inline``."""
    add_namespace(parser)
    add_platform(parser)
    add_inline(parser)


def read_input(argument: str, inline: bool = False) -> SourceText:
    """One positional input as text: YAML text with ``--inline``, standard input for ``-``,
    else a file path (a directory, a device or an unreadable path is an InputError)."""
    from dynamo_pulumi.floor.sources import SourceText, read_text_file

    if inline:
        return SourceText(argument, "<inline>")
    if argument == STDIN:
        return SourceText(_read_stdin(), "<stdin>")
    return SourceText(read_text_file(argument), argument)


def check_stdin_once(arguments: Sequence[str | None], inline: bool = False) -> None:
    """Standard input can be read once: ``-`` may stand for one input of a command only."""
    if not inline and sum(1 for a in arguments if a == STDIN) > 1:
        raise UsageError("'-' (standard input) can be given for one input only")


def _read_stdin() -> str:
    """Standard input, at most :data:`~dynamo_pulumi.floor.sources.MAX_INPUT_BYTES` of it (``validate -
    < /dev/zero`` is refused after 16 MiB instead of growing until memory runs out)."""
    from dynamo_pulumi.errors import InputError
    from dynamo_pulumi.floor.sources import MAX_INPUT_BYTES, read_bounded, too_large

    if hasattr(sys.stdin, "buffer"):
        data = read_bounded(sys.stdin.buffer, "<stdin>")
    else:
        data = sys.stdin.read(MAX_INPUT_BYTES + 1).encode()
        if len(data) > MAX_INPUT_BYTES:
            raise too_large("<stdin>")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", "<stdin>") from None


def warn(message: str, source: str = "", stream: TextIO | None = None) -> None:
    """One warning line, the one spelling every subcommand uses."""
    prefix = f"{source}: " if source else ""
    print(f"{prefix}warning: {message}", file=stream or sys.stderr)
