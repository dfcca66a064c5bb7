"""The ``dynamo-pulumi`` command: validate | render | preview | diff | wait | status.

Each subcommand lives in its own module exposing ``add_parser(subparsers)`` and
``run(args) -> int``, and is listed in :data:`SUBCOMMANDS` with its one-line help. Start-up is
what a pre-commit hook over many files pays on every call, so a subcommand's module (and with it
pydantic models, the renderer or Pulumi) is imported only when that subcommand runs; ``--help``
lists every subcommand from the table without importing any of them.

Errors a user can cause (bad file, bad YAML, invalid graph) are printed as one clear message per
problem; they never surface as tracebacks. Exit codes are in :mod:`dynamo_pulumi.cli.exits`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module

from dynamo_pulumi.cli.common import CliParser
from dynamo_pulumi.cli.exits import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_USAGE,
    Terminated,
    UsageError,
    stdout_closed,
    terminate_like_interrupt,
)

#: ``typing.TYPE_CHECKING`` without importing typing, which ``--help`` would otherwise load for
#: nothing (type checkers take this spelling for the real one).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from dynamo_pulumi.errors import GraphValidationError

#: subcommand -> (module under dynamo_pulumi.cli, one-line help). Add a row to add a subcommand.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate_cmd", "check DGD/DCD files exactly as the operator's admission would"),
    "render": ("render_cmd", "render DGDs/DCDs to the Kubernetes objects the operator would create"),
    "preview": ("preview_cmd", "print the resources `pulumi up` would create (offline, under Pulumi mocks)"),
    "diff": ("diff_cmd", "per object: create / update / replace / delete between two graph files or Pulumi programs"),
    "wait": ("wait_cmd", "wait until a deployed graph serves; exit 1 with each unready component's reason"),
    "status": ("status_cmd", "print a deployed graph's readiness per component once, without waiting"),
}

DESCRIPTION = "Validate, render, preview and diff NVIDIA Dynamo graphs offline; wait for them on a cluster."


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dynamo-pulumi")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        return "unknown"


def _chosen(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in SUBCOMMANDS else None
    return None


def build_parser(argv: Sequence[str] = ()) -> CliParser:
    """The parser, with full arguments for the subcommand named in ``argv`` only. Without one,
    every subcommand is listed (for ``--help``, and to answer a typo with the nearest name), but
    no subcommand module is imported; with one, the others are left out (argparse builds a
    parser per name, a share of every start)."""
    parser = CliParser(prog="dynamo-pulumi", description=DESCRIPTION)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="{" + ",".join(SUBCOMMANDS) + "}")
    chosen = _chosen(argv)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        if name == chosen:
            import_module(f"dynamo_pulumi.cli.{module_name}").add_parser(sub)
        elif chosen is None:
            sub.add_parser(name, help=help_text, add_help=False)
    parser.subcommands = dict(sub.choices)
    return parser


def _refuse_unknown(parser: CliParser, args: argparse.Namespace, extras: list[str]) -> None:
    """Words the chosen subcommand does not take: its own usage and error (exit 64), with the
    nearest option for a misspelt or abbreviated one (``--plat`` -> ``--platform``)."""
    from dynamo_pulumi.floor.suggest import did_you_mean

    owner = parser.subcommands.get(getattr(args, "command", None) or "", parser)
    options = [o for action in owner._actions for o in action.option_strings]
    hints = [did_you_mean(word.split("=", 1)[0], options) for word in extras if word.startswith("-")]
    owner.error(f"unrecognized arguments: {' '.join(extras)}{''.join(hints)}")


def _refuse_unknown_long_options(parser: CliParser, argv: list[str]) -> None:
    """An unknown ``--option`` is named before argparse can complain about something else
    (``wait --hel`` said "the following arguments are required: file"): with its nearest option."""
    from dynamo_pulumi.floor.suggest import did_you_mean

    chosen = _chosen(argv)
    owner = parser.subcommands.get(chosen or "", parser)
    options = [o for action in owner._actions for o in action.option_strings]
    for word in argv:
        if word == "--":
            return
        name = word.split("=", 1)[0]
        if word.startswith("---") or any(c.isspace() for c in name):
            continue  # YAML text given --inline ("---\napiVersion: ..."), not an option
        if word.startswith("--") and name not in options:
            owner.error(f"unrecognized arguments: {word}{did_you_mean(name, options)}")


def _dispatch(argv: list[str]) -> int:
    parser = build_parser(argv)
    try:
        _refuse_unknown_long_options(parser, argv)
        args, extras = parser.parse_known_args(argv)
        if extras:
            _refuse_unknown(parser, args, extras)
    except SystemExit as exc:  # --help (0) or a usage error (EXIT_USAGE): a code, not an exception
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.version:
        print(f"dynamo-pulumi {_version()}")
        return 0
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from dynamo_pulumi.errors import DynamoPulumiError, GraphValidationError

    try:
        code = int(args.run(args))
        sys.stdout.flush()  # a closed pipe surfaces here, inside the handler, not at exit
        return code
    except UsageError as exc:
        print(f"dynamo-pulumi {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except GraphValidationError as exc:
        _print_invalid(exc)
        return EXIT_ERROR
    except DynamoPulumiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR


def _print_invalid(exc: GraphValidationError) -> None:
    """kubectl's header, then one line per error, led by its file position when it has one."""
    print(f"error: {exc.header}", file=sys.stderr)
    for error in exc.errors:
        print(f"{error.position}: {error.message}" if error.position else f"* {error.message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        with terminate_like_interrupt():
            return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        return stdout_closed()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Terminated:
        return EXIT_TERMINATED
    finally:
        _remove_client_files()


def _remove_client_files() -> None:
    """Delete the decoded client key/certificate files the Kubernetes client wrote (only when a
    cluster command loaded it)."""
    if "kubernetes.config.kube_config" in sys.modules:
        from dynamo_pulumi.cluster.connection import remove_client_files

        remove_client_files()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
