"""dynamo-pulumi preview [FILE] [-p PLATFORM] [-n NS] [--mode render|operator] [-o tree|json]

What ``pulumi up`` would create, without a cluster or the Pulumi CLI. The real program (:func:`dynamo_pulumi.program.deploy`) runs in-process under Pulumi mocks in
preview mode, and the registered resources are printed as a tree (type, name, Kubernetes object
name), parents above children. Without FILE the embedded example graph is previewed; ``-``
reads the graph from standard input. A file with several graphs previews them all in one
program (each with the documents beside it), as a program deploying each would. ``-o json``
prints one object per resource, sorted by
parent, type and name, the same bytes on every run: operation, type, name, parent, parentType,
object, inputs, ignoreChanges, replaceOnChanges, deleteBeforeReplace. With ``--mode operator``
the DGD/DCD custom resource is what Pulumi creates, and the operator's predicted expansion is
printed after it (JSON: ``{"resources": [...], "expansion": [{apiVersion, kind, name, digest}]}``).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from dynamo_pulumi.cli.common import add_common, add_mode, add_output, read_input, subcommand_parser, warn
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.mocks import Recording, Registration, run_program
from dynamo_pulumi.planning.operator_mode import operator_expansion
from dynamo_pulumi.planning.outputs import summarize
from dynamo_pulumi.program import default_graph_path, deploy
from dynamo_pulumi.sources import SourceText

#: Every resource of a fresh preview is created (there is no stack state offline).
OPERATION = "create"


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "preview", __doc__)
    parser.add_argument("file", nargs="?", help="DGD/DCD YAML ('-': stdin; default: the embedded example graph)")
    add_common(parser)
    add_mode(parser)
    add_output(parser, ("tree", "json"), "--format")
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


def _sort_key(r: Registration) -> tuple[str, str, str, str]:
    return (r.parent_type, r.parent_name, r.type, r.name)


def as_json(recording: Recording) -> list[dict[str, Any]]:
    """One entry per resource, in an order that depends on nothing but the resources
    (registration order follows the runtime's threads)."""
    return [
        {
            "operation": OPERATION,
            "type": r.type,
            "name": r.name,
            "parent": r.parent_name,
            "parentType": r.parent_type,
            "object": r.object_name,
            "ignoreChanges": list(r.ignore_changes),
            "replaceOnChanges": list(r.replace_on_changes),
            "deleteBeforeReplace": r.delete_before_replace,
            "inputs": r.inputs,
        }
        for r in sorted(recording.resources, key=_sort_key)
    ]


def graph_sources(source: SourceText) -> list[SourceText]:
    """One source per graph of a file: the file itself when it holds one (or none: loading then
    says so), else the same text naming each graph's document, so every graph keeps its file
    positions and the documents beside it."""
    from dynamo_pulumi.loading import load_documents

    graphs = load_documents(source).graphs
    if len(graphs) < 2:
        return [source]
    return [replace(source, document=g.document) for g in graphs]


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    sources: list[Any] = graph_sources(read_input(args.file, args.inline)) if args.file else [default_graph_path()]
    mode = args.mode
    recording, tops = run_program(
        lambda: [deploy(source, args.namespace, args.platform, export=False, mode=mode) for source in sources]
    )
    if args.output == "json":
        document: Any = as_json(recording)
        if mode == "operator":
            document = {"resources": document, "expansion": [e for top in tops for e in operator_expansion(top.plan)]}
        print(json.dumps(document, indent=2, sort_keys=True, default=str))
        return 0
    print(format_tree(recording))
    for top in tops:
        _print_summary(top, mode, several=len(tops) > 1)
    return 0


def _print_summary(top: Any, mode: str, several: bool) -> None:
    """The graph's predicted expansion (operator mode), namespace, URL and GPUs; warnings."""
    plan = top.plan
    if several:
        print(f"\n{plan.kind} {plan.name}:")
    if mode == "operator":
        print("\npredicted expansion (created by the operator, not by Pulumi):")
        for entry in operator_expansion(plan):
            print(f"  {entry['kind']} {entry['name']} ({entry['apiVersion']}) digest {entry['digest']}")
    summary = summarize(plan)
    print(f"dynamo namespace: {summary.dynamo_namespace}")
    print(f"frontend URL:     {summary.frontend_url or '-'}")
    print(f"GPUs requested:   {summary.total_gpus}")
    for warning in plan.warnings:
        warn(warning)
