"""``dynamo-pulumi diff OLD NEW``: what ``pulumi up`` from OLD to NEW would do to each object.

One line per resource naming the action (create / update / replace / delete / same) and the
object, then the changed fields, and for a replace the reason and whether the old object goes
first. Offline: both graphs are validated and rendered in Python, no cluster, no Pulumi CLI.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dynamo_pulumi.deploy_mode import DEFAULT_MODE, MODES
from dynamo_pulumi.diffing import MISSING, GraphDiff, ObjectChange
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.loading import load_documents
from dynamo_pulumi.mode_diff import ModeDiff, diff_for_mode
from dynamo_pulumi.platform import load_platform
from dynamo_pulumi.program import plan
from dynamo_pulumi.validation.update_verdict import update_verdict

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
        "--mode", choices=MODES, default=DEFAULT_MODE,
        help="render (default): the rendered objects; operator: the DGD custom resource and the operator's "
        "predicted expansion",
    )
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


def _verdict_input(old_path: str, new_path: str) -> tuple[object, object]:
    """OLD as a model and NEW as loaded (source version kept), as ``validate --old`` reads them."""
    old_graphs, new_graphs = load_documents(old_path).graphs, load_documents(new_path).graphs
    if not old_graphs or not new_graphs:
        raise InputError("both files must hold a DynamoGraphDeployment or DynamoComponentDeployment")
    return old_graphs[0].object, new_graphs[0]


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    mode = getattr(args, "mode", DEFAULT_MODE)
    old = plan(args.old, args.namespace, args.platform, mode=mode)
    new = plan(args.new, args.namespace, args.platform, mode=mode)
    old_model, new_loaded = _verdict_input(args.old, args.new)
    verdict = update_verdict(old_model, new_loaded, load_platform(args.platform), mode)  # type: ignore[arg-type]
    mode_diff = diff_for_mode(old, new, verdict)
    if mode_diff.objects is None:
        print(format_operator_diff(mode_diff, args.all))
        changed = mode_diff.custom_resource is not None and mode_diff.custom_resource.action != "same"
    else:
        lines = format_planned_replacements(mode_diff)
        print("\n".join([*lines, format_diff(mode_diff.objects, args.all)]))
        changed = any(c.action != "same" for c in mode_diff.objects.changes)
    return 2 if args.detailed_exitcode and changed else 0
