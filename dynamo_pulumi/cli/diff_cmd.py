"""dynamo-pulumi diff OLD NEW | --old-ref REF NEW [-p PLATFORM] [-n NS] [--mode render|operator] [-o text|json] [--detailed-exitcode]

What ``pulumi up`` from OLD to NEW would do to each object (either may be ``-`` for stdin).

OLD and NEW are graph YAML files, or Pulumi programs (a ``.py`` file or a project directory with
``Pulumi.yaml``, run under mocks as ``preview PROGRAM`` runs them, ``--stack``/``--config`` for
both): a pull request's Dynamo changes reviewed in CI without a cloud account. ``--old-ref REF``
takes OLD from git: NEW as it was at REF (a branch, tag or commit), e.g. ``diff --old-ref
origin/main examples/eks-gpu-node-group``. Graphs of two programs are paired by kind, namespace and
name (a graph on one side only is created or deleted).

One line per resource naming the action (create / update / replace / delete / same) and the
object, then the changed fields, and for a replace the reason and whether the old object goes
first. Then, per graph: why the worker revision moved (every worker's name includes it, so one
component's change renames all of them), the GPU delta per component with the GPU product the
placement names (``+8 nvidia.com/gpu (NVIDIA-H100-80GB-HBM3) on decode: replicas 2 => 4``) and in
total, and every replacement that deletes first (downtime). Offline: both sides are validated and
rendered in Python, no cluster, no Pulumi CLI.

``--mode operator`` diffs the DGD/DCD custom resource (replaced, deleting first, exactly when the
operator's update webhook would refuse the change, naming the rule) and lists what the operator
will create, update, replace or delete; in render mode the webhook's update rules are listed as
planned replacements. ``-o json``: ``{"changes", "gpus", "workerRevisions"?, "plannedReplacements"?,
"downtime"?}`` (README, "diff -o json"). With ``--detailed-exitcode`` the exit status is 2 when
anything would change, 0 when nothing would; a usage error exits 64, never 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any

from dynamo_pulumi.cli.common import (
    add_common,
    add_mode,
    add_output,
    check_stdin_once,
    read_input,
    subcommand_parser,
    warn,
)
from dynamo_pulumi.cli.diff_report import GraphChange, format_report, report_json
from dynamo_pulumi.cli.exits import EXIT_CHANGES, EXIT_OK, UsageError
from dynamo_pulumi.cli.preview_cmd import add_program_flags, is_program, refuse_flags_that_do_not_apply
from dynamo_pulumi.cli.validate_report import errors_also_as_json
from dynamo_pulumi.diff.gpu_delta import gpu_delta
from dynamo_pulumi.diff.mode_diff import diff_for_mode
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.kube_names import check_namespace
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.floor.sources import SourceText
from dynamo_pulumi.loading.documents import LoadedObject, load_documents
from dynamo_pulumi.planning.plan import GraphPlan
from dynamo_pulumi.program.graph_program import plan
from dynamo_pulumi.readiness.plan_inputs import (
    PLUGIN_READINESS_TYPE,
    READINESS_TYPE,
    readiness_changes,
    readiness_name,
)
from dynamo_pulumi.user_program import program_log_lines, run_program_argument
from dynamo_pulumi.verdict.update import UpdateVerdict, update_verdict


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "diff", __doc__)
    parser.add_argument("old", help="the graph (YAML) or program as deployed now; with --old-ref: NEW")
    parser.add_argument("new", nargs="?", help="the graph (YAML) or program you want")
    parser.add_argument("--old-ref", metavar="REF",
                        help="OLD is NEW as it was at this git revision (branch, tag or commit)")
    add_common(parser)
    add_mode(parser)
    add_output(parser, ("text", "json"))
    add_program_flags(parser)
    parser.add_argument("--all", action="store_true", help="also list unchanged resources")
    parser.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 2 when anything would change (0 when nothing would), for CI gates",
    )
    parser.set_defaults(run=run, usage=parser.format_usage)


@record
class Side:
    """The graphs of one side: their plans, each graph as loaded (for the update verdict), and
    the type of each graph's readiness resource where a program registered one on the plugin."""

    plans: list[GraphPlan]
    loaded: list[LoadedObject]
    readiness_types: dict[str, str] = field(default_factory=dict)


def _file_side(argument: str, args: argparse.Namespace) -> Side:
    source: SourceText = read_input(argument, args.inline)
    graphs = load_documents(source).graphs
    if not graphs:
        raise InputError("holds no DynamoGraphDeployment or DynamoComponentDeployment", source.name)
    return Side([plan(source, args.namespace, args.platform, mode=args.mode)], [graphs[0]])


def _side(argument: str, args: argparse.Namespace) -> Side:
    if is_program(argument, args):
        program = run_program_argument(argument, args.stack, args.config)
        for note in program.notes:
            warn(note, argument)
        for line in program_log_lines(program.recording, ()):  # its graphs' warnings included: diff prints no other
            print(f"{argument}: {line}", file=sys.stderr)
        types = {r.name: r.type for r in program.recording.resources
                 if r.type in (READINESS_TYPE, PLUGIN_READINESS_TYPE)}
        return Side(program.plans, [LoadedObject(p.graph) for p in program.plans], types)
    return _file_side(argument, args)


def _key(plan: GraphPlan) -> tuple[str, str, str]:
    return (plan.kind, plan.namespace, plan.name)


def _pairs(old: Side, new: Side) -> Iterator[tuple[int | None, int | None]]:
    """Indexes of the graphs paired OLD -> NEW: one graph on each side is one pair whatever its
    name (the YAML files' rule); else by kind, namespace and name, NEW's order, then OLD-only ones."""
    if len(old.plans) == 1 and len(new.plans) == 1:
        yield 0, 0
        return
    before = {_key(p): i for i, p in enumerate(old.plans)}
    after = {_key(p): i for i, p in enumerate(new.plans)}
    for key, index in after.items():
        yield before.get(key), index
    for key, index in before.items():
        if key not in after:
            yield index, None


def _verdict(old: Side, new: Side, i: int | None, j: int | None) -> UpdateVerdict:
    shown = new.plans[j] if j is not None else old.plans[i]  # type: ignore[index]
    if i is None or j is None:
        return UpdateVerdict(shown.mode)
    # The same OLD -> NEW verdict `validate --old` gives (validation.update_verdict).
    return update_verdict(old.loaded[i].object, new.loaded[j], shown.platform, shown.mode)


def _readiness_type(side: Side, plan: GraphPlan | None) -> str:
    """The readiness resource's type token as the program registered it ("" when unknown)."""
    return side.readiness_types.get(readiness_name(plan), "") if plan is not None else ""


def graph_changes(old: Side, new: Side) -> list[GraphChange]:
    changes = []
    for i, j in _pairs(old, new):
        old_plan = old.plans[i] if i is not None else None
        new_plan = new.plans[j] if j is not None else None
        mode_diff = diff_for_mode(old_plan, new_plan, _verdict(old, new, i, j))
        readiness = readiness_changes(old_plan, new_plan,
                                      _readiness_type(new, new_plan) or _readiness_type(old, old_plan) or READINESS_TYPE)
        changes.append(GraphChange(old_plan, new_plan, mode_diff, gpu_delta(old_plan, new_plan), readiness))
    return changes


@contextlib.contextmanager
def _inputs(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """OLD and NEW as paths (or ``-``/inline text); with ``--old-ref``, OLD exported from git."""
    if args.old_ref is None:
        if args.new is None:
            raise UsageError(f"give OLD and NEW, or --old-ref REF and NEW\n{args.usage().rstrip()}")
        yield args.old, args.new
        return
    if args.new is not None:
        raise UsageError(f"with --old-ref give one input, NEW (OLD is NEW as it was at REF)\n{args.usage().rstrip()}")
    if args.inline or args.old == "-":
        raise UsageError("--old-ref needs a file or program path, not standard input or inline text")
    from dynamo_pulumi.program.git_revision import at_revision

    with at_revision(args.old, args.old_ref) as old:
        yield str(old), args.old


def run(args: argparse.Namespace) -> int:
    """The command; with ``-o json`` an error is also a JSON document on stdout (the text stays
    on stderr)."""
    return errors_also_as_json(_run, args)


def _run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    with _inputs(args) as (old_argument, new_argument):
        check_stdin_once([old_argument, new_argument], args.inline)
        programs = [is_program(a, args) for a in (old_argument, new_argument)]
        refuse_flags_that_do_not_apply(args, programs=any(programs), files=not all(programs))  # one side may use them
        old, new = _side(old_argument, args), _side(new_argument, args)
        graphs = graph_changes(old, new)
    if not graphs:
        raise InputError("neither side deploys a DynamoGraphDeployment or DynamoComponentDeployment")
    if args.output == "json":
        print(json.dumps(report_json(graphs, args.all), indent=2, sort_keys=True))
    else:
        print(format_report(graphs, args.all))
    return EXIT_CHANGES if args.detailed_exitcode and any(g.changed for g in graphs) else EXIT_OK
