"""dynamo-pulumi diff OLD NEW [-p PLATFORM] [-n NS] [--mode render|operator] [-o text|json] [--detailed-exitcode]

What ``pulumi up`` from OLD to NEW would do to each object (either may be ``-`` for stdin).

One line per resource naming the action (create / update / replace / delete / same) and the
object, then the changed fields, and for a replace the reason and whether the old object goes
first. Offline: both graphs are validated and rendered in Python, no cluster, no Pulumi CLI.
``-o json`` prints one object per resource: operation, kind, type, name, object, component, paths
(the changed fields), reasons (why a replace), deleteBeforeReplace, managedBy (``pulumi``, or
``operator`` for an object of the operator's predicted expansion). ``--mode operator`` diffs the
DGD/DCD custom resource (replaced exactly when the operator's update webhook would refuse the
change, naming the rule) and lists which predicted objects the operator will create, change or
delete; in render mode the webhook's update rules are listed as planned replacements. With
``--detailed-exitcode`` the exit status is 2 when anything would change, 0 when nothing would;
a usage error exits 64, never 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dynamo_pulumi.cli.common import (
    add_common,
    add_mode,
    add_output,
    check_stdin_once,
    read_input,
    subcommand_parser,
)
from dynamo_pulumi.cli.exits import EXIT_CHANGES, EXIT_OK
from dynamo_pulumi.diffing import MISSING, GraphDiff, ObjectChange
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.loading import load_documents
from dynamo_pulumi.mode_diff import ModeDiff, diff_for_mode
from dynamo_pulumi.platform import load_platform
from dynamo_pulumi.program import plan
from dynamo_pulumi.sources import SourceText
from dynamo_pulumi.validation.update_verdict import update_verdict

SYMBOLS = {"create": "+ ", "update": "~ ", "replace": "+-", "delete": "- ", "same": "  "}
MAX_FIELDS = 25


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "diff", __doc__)
    parser.add_argument("old", help="the graph as deployed now")
    parser.add_argument("new", help="the graph you want")
    add_common(parser)
    add_mode(parser)
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


def _change_json(change: ObjectChange) -> dict[str, Any]:
    return {
        "operation": change.action,
        "kind": change.type.rsplit(":", 1)[-1],
        "type": change.type,
        "name": change.pulumi_name,
        "object": change.object_name,
        "component": change.owner,
        "paths": [item.path for item in change.fields],
        "reasons": list(change.reasons),
        "deleteBeforeReplace": change.delete_before_replace,
        "managedBy": "pulumi",
    }


def as_json(diff: GraphDiff, show_all: bool = False) -> list[dict[str, Any]]:
    """One entry per resource (unchanged ones only with ``show_all``), in the diff's order."""
    return [_change_json(change) for change in diff.changes if change.action != "same" or show_all]


def mode_as_json(mode_diff: ModeDiff, show_all: bool = False) -> list[dict[str, Any]]:
    """Operator mode: the custom resource's entry, then one per predicted object that changes."""
    change = mode_diff.custom_resource
    entries = [_change_json(change)] if change is not None and (change.action != "same" or show_all) else []
    entries += [
        {
            "operation": item.action, "kind": item.kind, "type": item.api_version, "name": item.name,
            "object": item.name, "component": None, "paths": [], "reasons": [],
            "deleteBeforeReplace": False, "managedBy": "operator",
        }
        for item in mode_diff.expansion
    ]
    return entries


def format_planned_replacements(mode_diff: ModeDiff) -> list[str]:
    """Render mode: the webhook rules OLD -> NEW breaks (they do not apply without a DGD)."""
    return [
        f"planned replacement (render mode; the operator's webhook would refuse this in place): {rule}"
        for rule in mode_diff.verdict.replacements
    ]


def format_operator_diff(mode_diff: ModeDiff, show_all: bool = False) -> str:
    change = mode_diff.custom_resource
    assert change is not None
    lines = format_change(change) if change.action != "same" or show_all else []
    lines.append("\nPredicted expansion (created by the operator, not by Pulumi):")
    for item in mode_diff.expansion:
        lines.append(f"{SYMBOLS[item.action]} {item.action:<8} {item.kind} {item.name}")
    if not mode_diff.expansion:
        lines.append("  no object changes")
    lines.append(f"\nCustom resource: {change.action}; operator objects: {len(mode_diff.expansion)} to change")
    return "\n".join(lines)


def _first_graph(source: SourceText) -> Any:
    graphs = load_documents(source).graphs
    if not graphs:
        raise InputError("holds no DynamoGraphDeployment or DynamoComponentDeployment", source.name)
    return graphs[0]


def _changed(mode_diff: ModeDiff) -> bool:
    if mode_diff.objects is None:
        return mode_diff.custom_resource is not None and mode_diff.custom_resource.action != "same"
    return any(c.action != "same" for c in mode_diff.objects.changes)


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    check_stdin_once([args.old, args.new], args.inline)
    old_source, new_source = read_input(args.old, args.inline), read_input(args.new, args.inline)
    old = plan(old_source, args.namespace, args.platform, mode=args.mode)
    new = plan(new_source, args.namespace, args.platform, mode=args.mode)
    # The same OLD -> NEW verdict `validate --old` gives (validation.update_verdict).
    verdict = update_verdict(_first_graph(old_source).object, _first_graph(new_source), load_platform(args.platform),
                             args.mode)
    mode_diff = diff_for_mode(old, new, verdict)
    if args.output == "json":
        entries = as_json(mode_diff.objects, args.all) if mode_diff.objects is not None else mode_as_json(
            mode_diff, args.all
        )
        print(json.dumps(entries, indent=2, sort_keys=True))
    elif mode_diff.objects is None:
        print(format_operator_diff(mode_diff, args.all))
    else:
        print("\n".join([*format_planned_replacements(mode_diff), format_diff(mode_diff.objects, args.all)]))
    return EXIT_CHANGES if args.detailed_exitcode and _changed(mode_diff) else EXIT_OK
