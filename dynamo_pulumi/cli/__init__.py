"""The ``dynamo-pulumi`` command: validate | render | preview | diff | wait | status.

Each subcommand lives in its own module exposing ``add_parser(subparsers)`` and
``run(args) -> int``. Errors a user can cause (bad file, bad YAML, invalid graph) are printed
as one clear message per problem with exit status 1; they never surface as tracebacks.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from dynamo_pulumi.errors import DynamoPulumiError

SUBCOMMANDS = ("validate", "render", "preview", "diff", "wait", "status")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dynamo-pulumi",
        description="Validate, render, preview and diff NVIDIA Dynamo graphs offline.",
    )
    sub = parser.add_subparsers(dest="command", metavar="{" + ",".join(SUBCOMMANDS) + "}")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"dynamo_pulumi.cli.{name}_cmd")
        except ModuleNotFoundError as exc:
            if exc.name != f"dynamo_pulumi.cli.{name}_cmd":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except DynamoPulumiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
