"""dynamo-pulumi diff OLD NEW [-p PLATFORM] [-n NS] [-o text|json] [--detailed-exitcode]

What ``pulumi up`` from OLD to NEW would do to each object (either may be ``-`` for stdin).

One line per resource naming the action (create / update / replace / delete / same) and the
object, then the changed fields, and for a replace the reason and whether the old object goes
first. Offline: both graphs are validated and rendered in Python, no cluster, no Pulumi CLI.
``-o json`` prints one object per resource: operation, kind, type, name, object, component, paths
(the changed fields), reasons (why a replace), deleteBeforeReplace. With
``--detailed-exitcode`` the exit status is 2 when anything would change, 0 when nothing would;
a usage error exits 64, never 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dynamo_pulumi.cli.common import add_common, add_output, check_stdin_once, read_input, subcommand_parser
from dynamo_pulumi.cli.exits import EXIT_CHANGES, EXIT_OK
from dynamo_pulumi.diffing import MISSING, GraphDiff, ObjectChange, diff_plans
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.program import plan

SYMBOLS = {"create": "+ ", "update": "~ ", "replace": "+-", "delete": "- ", "same": "  "}
MAX_FIELDS = 25


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "diff", __doc__)
    parser.add_argument("old", help="the graph as deployed now")
    parser.add_argument("new", help="the graph you want")
    add_common(parser)
    add_output(parser, ("text", "json"))
    parser.add_argument("--all", action="store_true", help="also list unchanged resources")
    parser.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 2 when anything would change (0 when nothing would), for CI gates",
    )
    parser.set_defaults(run=run)


def _value(value: Any) -> str:
    if value is MISSING:
        return "<none>"
    return json.dumps(value, sort_keys=True, default=str)


def format_change(change: ObjectChange) -> list[str]:
    lines = [f"{SYMBOLS[change.action]} {change.action:<8} {change.type} {change.pulumi_name} ({change.object_name})"]
    for reason in change.reasons:
        lines.append(f"      reason: {reason}")
    for item in change.fields[:MAX_FIELDS]:
        lines.append(f"      {item.path}: {_value(item.old)} => {_value(item.new)}")
    if len(change.fields) > MAX_FIELDS:
        lines.append(f"      ... {len(change.fields) - MAX_FIELDS} more fields")
    return lines


def format_diff(diff: GraphDiff, show_all: bool = False) -> str:
    lines: list[str] = []
    for change in diff.changes:
        if change.action != "same" or show_all:
            lines.extend(format_change(change))
    counts = diff.counts()
    lines.append(
        f"\nResources: {counts['create']} to create, {counts['update']} to update, "
        f"{counts['replace']} to replace, {counts['delete']} to delete, {counts['same']} unchanged"
    )
    return "\n".join(lines)


def as_json(diff: GraphDiff, show_all: bool = False) -> list[dict[str, Any]]:
    """One entry per resource (unchanged ones only with ``show_all``), in the diff's order."""
    return [
        {
            "operation": change.action,
            "kind": change.type.rsplit(":", 1)[-1],
            "type": change.type,
            "name": change.pulumi_name,
            "object": change.object_name,
            "component": change.owner,
            "paths": [item.path for item in change.fields],
            "reasons": list(change.reasons),
            "deleteBeforeReplace": change.delete_before_replace,
        }
        for change in diff.changes
        if change.action != "same" or show_all
    ]


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    check_stdin_once([args.old, args.new], args.inline)
    old = plan(read_input(args.old, args.inline), args.namespace, args.platform)
    new = plan(read_input(args.new, args.inline), args.namespace, args.platform)
    diff = diff_plans(old, new)
    if args.output == "json":
        print(json.dumps(as_json(diff, args.all), indent=2, sort_keys=True))
    else:
        print(format_diff(diff, args.all))
    changed = any(c.action != "same" for c in diff.changes)
    return EXIT_CHANGES if args.detailed_exitcode and changed else EXIT_OK
