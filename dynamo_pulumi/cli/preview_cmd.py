"""``dynamo-pulumi preview [FILE]``: what ``pulumi up`` would create, without a cluster or the CLI.

The real program (:func:`dynamo_pulumi.program.deploy`) runs in-process under Pulumi mocks in
preview mode, and the registered resources are printed as a tree (type, name, Kubernetes object
name), parents above children. Without FILE the embedded example graph is previewed.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dynamo_pulumi.deploy_mode import DEFAULT_MODE, MODES
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.mocks import Recording, Registration, run_program
from dynamo_pulumi.program import default_graph_path, deploy
from dynamo_pulumi.resources.operator_mode import operator_expansion
from dynamo_pulumi.resources.outputs import summarize


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "preview",
        help="print the resources `pulumi up` would create (offline, under Pulumi mocks)",
        description=__doc__,
    )
    parser.add_argument("file", nargs="?", help="DGD/DCD YAML (default: the embedded example graph)")
    parser.add_argument("--platform", help="platform YAML (operator configuration and cluster facts)")
    parser.add_argument("--namespace", help="Kubernetes namespace (default: metadata.namespace or 'default')")
    parser.add_argument("--format", choices=("tree", "json"), default="tree", help="output format")
    parser.add_argument(
        "--mode", choices=MODES, default=DEFAULT_MODE,
        help="render (default): the rendered objects; operator: the DGD custom resource, and the expansion "
        "the operator is predicted to create",
    )
    parser.set_defaults(run=run)


def _tree_lines(recording: Recording) -> list[tuple[str, Registration]]:
    """(indent prefix, registration) in depth-first order, children in registration order."""
    urns = {r.urn for r in recording.resources}
    lines: list[tuple[str, Registration]] = []

    def walk(node: Registration, prefix: str, last: bool, depth: int) -> None:
        branch = "" if depth == 0 else ("└─ " if last else "├─ ")
        lines.append((prefix + branch, node))
        kids = sorted(recording.children_of(node.urn), key=lambda r: (not r.custom, r.name, r.type))
        child_prefix = prefix + ("" if depth == 0 else ("   " if last else "│  "))
        for i, kid in enumerate(kids):
            walk(kid, child_prefix, i == len(kids) - 1, depth + 1)

    for root in (r for r in recording.resources if r.parent_urn not in urns):
        walk(root, "", True, 0)
    return lines


def format_tree(recording: Recording) -> str:
    lines = _tree_lines(recording)
    width = max((len(p) + len(r.type) for p, r in lines), default=4) + 2
    name_width = max((len(r.name) for _, r in lines), default=4) + 2
    out = [f"{'TYPE'.ljust(width)}{'NAME'.ljust(name_width)}OBJECT"]
    for prefix, reg in lines:
        out.append(f"{(prefix + reg.type).ljust(width)}{reg.name.ljust(name_width)}{reg.object_name}".rstrip())
    out.append(f"\n{len(recording.resources)} resources to create")
    return "\n".join(out)


def as_json(recording: Recording) -> list[dict[str, Any]]:
    return [
        {
            "type": r.type,
            "name": r.name,
            "parent": r.parent_name,
            "parentType": r.parent_type,
            "object": r.object_name,
            "ignoreChanges": list(r.ignore_changes),
            "replaceOnChanges": list(r.replace_on_changes),
            "deleteBeforeReplace": r.delete_before_replace,
        }
        for r in recording.resources
    ]


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    source = args.file or default_graph_path()
    mode = getattr(args, "mode", DEFAULT_MODE)
    recording, top = run_program(lambda: deploy(source, args.namespace, args.platform, export=False, mode=mode))
    expansion = operator_expansion(top.plan)
    if args.format == "json":
        document: Any = as_json(recording)
        print(json.dumps({"resources": document, "expansion": expansion} if mode == "operator" else document, indent=2))
        return 0
    print(format_tree(recording))
    if mode == "operator":
        print("\npredicted expansion (created by the operator, not by Pulumi):")
        for entry in expansion:
            print(f"  {entry['kind']} {entry['name']} ({entry['apiVersion']}) digest {entry['digest']}")
    summary = summarize(top.plan)
    print(f"dynamo namespace: {summary.dynamo_namespace}")
    print(f"frontend URL:     {summary.frontend_url or '-'}")
    print(f"GPUs requested:   {summary.total_gpus}")
    for warning in top.plan.warnings:
        print(f"warning: {warning}")
    return 0
