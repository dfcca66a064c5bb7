"""dynamo-pulumi preview [FILE|PROGRAM] [-p PLATFORM] [-n NS] [--mode render|operator] [--stack S] [--config K=V] [-o tree|json]

What ``pulumi up`` would create, without a cluster or the Pulumi CLI. The real program
(:func:`dynamo_pulumi.program.graph_program.deploy`) runs in-process under Pulumi mocks in preview mode, and the
registered resources are printed as a tree (type, name, Kubernetes object name), parents above
children, then per graph its namespace, URL, GPUs per component (with the GPU product the
placement names) and warnings. Without FILE the embedded example graph is previewed; ``-`` reads
the graph from standard input. A file with several graphs previews them all in one program (each
with the documents beside it), as a program deploying each would.

PROGRAM (a ``.py`` file, or a project directory with ``Pulumi.yaml``) is your own Pulumi program:
it runs under mocks with placeholder outputs for cloud resources (EKS, GKE, IAM), its stack
configuration from ``Pulumi.<stack>.yaml`` (``--stack``, default dev) and ``--config key=value``;
the tree shows every resource it registers. ``-p``, ``-n`` and ``--mode`` apply to a YAML FILE
only (a program says them itself).

``-o json`` prints ``{"resources": [...], "graphs": [...]}``, the same bytes on every run:
``resources`` one object per resource sorted by parent, type and name (operation, type, name,
parent, parentType, object, inputs, ignoreChanges, replaceOnChanges, deleteBeforeReplace,
protect, customTimeouts, and the provider: ``provider`` of a custom resource, the URN of its
explicit provider or ``default``, ``providers`` of a component, package -> URN; inputs as plain
JSON: whole numbers as integers, unknown values as "(unknown)", secrets as "[secret]", no
engine internals); ``graphs`` one object per graph (kind, name, namespace, mode,
dynamoNamespace, frontendUrl when it has one, gpus, warnings, and in operator mode expansion: the
objects the operator will create, ``{apiVersion, kind, name, digest}``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dynamo_pulumi.cli.common import (
    Given,
    add_common,
    add_mode,
    add_output,
    given,
    read_input,
    subcommand_parser,
    warn,
)
from dynamo_pulumi.cli.exits import UsageError
from dynamo_pulumi.cli.validate_report import errors_also_as_json
from dynamo_pulumi.diff.gpu_delta import gpu_delta, summary_lines, total_text
from dynamo_pulumi.floor.kube_names import check_namespace
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.floor.sources import SourceText
from dynamo_pulumi.mocks import Recording, Registration, provider_urn, run_program, shown_inputs
from dynamo_pulumi.planning.operator_mode import operator_expansion
from dynamo_pulumi.planning.outputs import gpu_count_warnings, summarize
from dynamo_pulumi.planning.plan import GraphPlan
from dynamo_pulumi.planning.settled import settle
from dynamo_pulumi.program.graph_program import default_graph_path, deploy
from dynamo_pulumi.user_program import (
    DEFAULT_STACK,
    looks_like_program,
    program_log_lines,
    run_program_argument,
)

#: Every resource of a fresh preview is created (there is no stack state offline).
OPERATION = "create"


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "preview", __doc__)
    parser.add_argument(
        "file", nargs="?",
        help="DGD/DCD YAML ('-': stdin; default: the embedded example graph), or a Pulumi program "
        "(a .py file or a project directory with Pulumi.yaml)",
    )
    add_common(parser)
    add_mode(parser)
    add_program_flags(parser)
    add_output(parser, ("tree", "json"))
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


#: How ``preview -o json`` names the provider of a custom resource that has no explicit one.
DEFAULT_PROVIDER = "default"


def _timeouts(registration: Registration) -> dict[str, str]:
    """``customTimeouts`` as ``{create, update, delete}``, the ones set."""
    return {key: value for key, value in zip(("create", "update", "delete"), registration.custom_timeouts, strict=True)
            if value}


def _provider(registration: Registration) -> dict[str, Any]:
    """Which provider a resource goes through: a custom resource's own (its URN, or ``default``),
    a component's map of what its children inherit (package -> URN)."""
    if registration.custom:
        return {"provider": registration.provider_urn or DEFAULT_PROVIDER}
    return {"providers": {pkg: provider_urn(ref) for pkg, ref in sorted(registration.providers.items())}}


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
            "protect": r.protect,
            "customTimeouts": _timeouts(r),
            **_provider(r),
            "inputs": shown_inputs(r.inputs),
        }
        for r in sorted(recording.resources, key=_sort_key)
    ]


def graph_sources(source: SourceText) -> list[SourceText]:
    """One source per graph of a file: the file itself when it holds one (or none: loading then
    says so), else the same text naming each graph's document, so every graph keeps its file
    positions and the documents beside it."""
    from dynamo_pulumi.loading.documents import load_documents

    graphs = load_documents(source).graphs
    if len(graphs) < 2:
        return [source]
    return [replace(source, document=g.document) for g in graphs]


def add_program_flags(parser: argparse.ArgumentParser) -> None:
    """``--stack`` and ``--config`` of a PROGRAM argument (shared with ``diff``)."""
    parser.add_argument("--stack", default=DEFAULT_STACK, action=Given,
                        help=f"a program's stack: its config is read from Pulumi.<stack>.yaml (default: {DEFAULT_STACK})")
    parser.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                        help="a program's stack config value (repeatable; a key without 'project:' is the project's)")


def _run_file(args: argparse.Namespace) -> tuple[Recording, list[GraphPlan]]:
    sources: list[Any] = graph_sources(read_input(args.file, args.inline)) if args.file else [default_graph_path()]
    recording, tops = run_program(
        lambda: [deploy(source, args.namespace, args.platform, export=False, mode=args.mode) for source in sources]
    )
    return recording, [settle(top.plan) for top in tops]


def is_program(argument: str | None, args: argparse.Namespace) -> bool:
    return bool(argument) and not args.inline and argument != "-" and looks_like_program(str(argument))


def refuse_flags_that_do_not_apply(args: argparse.Namespace, programs: bool, files: bool) -> None:
    """``-n``, ``-p`` and ``--mode`` apply to YAML input, ``--stack`` and ``--config`` to a Pulumi
    program: given where no input of their kind is (``programs``/``files``: there is one) they
    would be ignored, so they are a usage error."""
    file_flags = [flag for flag, on in (("-n/--namespace", args.namespace is not None),
                                        ("-p/--platform", args.platform is not None),
                                        ("--mode", given(args, "mode"))) if on]
    program_flags = [flag for flag, on in (("--stack", given(args, "stack")), ("--config", bool(args.config))) if on]
    if not files and file_flags:
        raise UsageError(f"{', '.join(file_flags)} {_apply(file_flags)} to a YAML file; a Pulumi program says "
                         "them itself (the namespace=, platform= and mode= of its components)")
    if not programs and program_flags:
        raise UsageError(f"{', '.join(program_flags)} {_apply(program_flags)} to a Pulumi program (a .py file or a "
                         "project directory); a YAML file has no stack")


def _apply(flags: list[str]) -> str:
    return "applies" if len(flags) == 1 else "apply"


def previewed(args: argparse.Namespace) -> tuple[Recording, list[GraphPlan]]:
    """What a preview shows: the registrations and the graphs' plans, of a YAML file or a program."""
    program = is_program(args.file, args)
    refuse_flags_that_do_not_apply(args, programs=program, files=not program)
    if program:
        run = run_program_argument(args.file, args.stack, args.config)
        for note in run.notes:
            warn(note)
        return run.recording, run.plans
    return _run_file(args)


def plan_warnings(plan: GraphPlan) -> list[str]:
    """The plan's warnings, then any GPU the outputs cannot count (each once)."""
    return list(dict.fromkeys([*plan.warnings, *gpu_count_warnings(plan)]))


def plan_notes(plan: GraphPlan) -> list[str]:
    """What the preview shows that a reader may not expect, and why: the planner's ServiceAccount
    and RoleBinding of a graph without a planner (the operator, cluster-wide, creates them for every
    graph in the namespace, planner or not: rendering-core 2.9)."""
    from dynamo_pulumi.floor.constants import COMPONENT_TYPE_PLANNER, PLANNER_SERVICE_ACCOUNT_NAME

    has_planner = any(c.type == COMPONENT_TYPE_PLANNER for c in plan.components)
    planner_rbac = any(o.kind == "ServiceAccount" and o.name == PLANNER_SERVICE_ACCOUNT_NAME for o in plan.all_objects())
    if planner_rbac and not has_planner:
        return [f"{PLANNER_SERVICE_ACCOUNT_NAME} and its RoleBinding are created although the graph has no planner: "
                "a cluster-wide operator creates them for every graph in the namespace (shared, so several graphs "
                "co-own them); a namespace-restricted operator (platform namespace.restricted) does not"]
    return []


def graph_json(plan: GraphPlan) -> dict[str, Any]:
    """One graph of ``preview -o json``: every field filled or absent."""
    summary = summarize(plan)
    entry: dict[str, Any] = {
        "kind": plan.kind, "name": plan.name, "namespace": plan.namespace, "mode": plan.mode,
        "dynamoNamespace": summary.dynamo_namespace, "gpus": gpu_delta(None, plan).requested_json(),
        "warnings": plan_warnings(plan), "notes": plan_notes(plan),
    }
    if summary.frontend_url:
        entry["frontendUrl"] = summary.frontend_url
    if plan.mode == "operator":
        entry["expansion"] = operator_expansion(plan)
    return entry


def run(args: argparse.Namespace) -> int:
    """The command; with ``-o json`` an error is also a JSON document on stdout (the text stays
    on stderr)."""
    return errors_also_as_json(_run, args)


def _run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    recording, plans = previewed(args)
    for line in program_log_lines(recording, plans):
        print(line, file=sys.stderr)
    if args.output == "json":
        document = {"resources": as_json(recording), "graphs": [graph_json(plan) for plan in plans]}
        print(json.dumps(document, indent=2, sort_keys=True))
        return 0
    print(format_tree(recording))
    for plan in plans:
        _print_summary(plan, several=len(plans) > 1)
    return 0


def _print_summary(plan: GraphPlan, several: bool) -> None:
    """The graph's predicted expansion (operator mode), namespace, URL and GPUs; warnings."""
    if several:
        print(f"\n{plan.kind} {plan.name}:")
    if plan.mode == "operator":
        print("\npredicted expansion (created by the operator, not by Pulumi):")
        for entry in operator_expansion(plan):
            print(f"  {entry['kind']} {entry['name']} ({entry['apiVersion']}) digest {entry['digest']}")
    summary, gpus = summarize(plan), gpu_delta(None, plan)
    print(f"dynamo namespace: {summary.dynamo_namespace}")
    print(f"frontend URL:     {summary.frontend_url or '-'}")
    partial = " (partial: some counts depend on a pulumi.Output not known at preview)" if gpus.partial_after else ""
    print(f"GPUs requested:   {total_text(gpus.after, gpus.partial_after)}{partial}")
    for line in summary_lines(gpus):
        print(line)
    for note in plan_notes(plan):
        print(f"note: {note}")
    for warning in plan_warnings(plan):
        warn(warning)
