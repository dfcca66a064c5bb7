"""``dynamo-pulumi diff OLD NEW``: what ``pulumi up`` from OLD to NEW would do to each object.

One line per resource naming the action (create / update / replace / delete / same) and the
object, then the changed fields, and for a replace the reason and whether the old object goes
first. Offline: both graphs are validated and rendered in Python, no cluster, no Pulumi CLI.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dynamo_pulumi.diffing import MISSING, GraphDiff, ObjectChange, diff_plans
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.program import plan

SYMBOLS = {"create": "+ ", "update": "~ ", "replace": "+-", "delete": "- ", "same": "  "}
MAX_FIELDS = 25


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="per object: create / update / replace / delete between two graph files",
        description=__doc__,
    )
    parser.add_argument("old", help="the graph as deployed now")
    parser.add_argument("new", help="the graph you want")
    parser.add_argument("--platform", help="platform YAML (operator configuration and cluster facts)")
    parser.add_argument("--namespace", help="Kubernetes namespace (default: metadata.namespace or 'default')")
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


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    old = plan(args.old, args.namespace, args.platform)
    new = plan(args.new, args.namespace, args.platform)
    diff = diff_plans(old, new)
    print(format_diff(diff, args.all))
    changed = any(c.action != "same" for c in diff.changes)
    return 2 if args.detailed_exitcode and changed else 0
