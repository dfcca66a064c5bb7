"""dynamo-pulumi validate FILE... [--old FILE] [-p PLATFORM] [-n NS] [--mode render|operator] [-o text|json|github]

Every Dynamo object in every FILE (``-`` for standard input) gets the deployability verdict every
other command and the Pulumi components use (dynamo_pulumi.verdict.deployability): what the API server would
run on CREATE (object metadata and size, defaulting, CEL, the operator's validating webhook),
then every refusal rendering would make (rendered names and labels, backend detection,
orchestrator availability). With ``--old``, an object whose kind and name also appear in the old
file is checked as an UPDATE of that object, sent as ``--client`` sends it: ``kubectl`` (the
default) sends the file as written, so a direct change of replicas a ``scalingAdapter`` owns is
refused as the webhook refuses it; ``pulumi`` leaves those replicas out, as the components do
(``diff`` answers that question: what Pulumi will do). ``--mode operator`` refuses exactly what the
operator's webhooks refuse; ``--mode render`` (the default) also refuses what needs the operator
(a Kubernetes-API planner, LPX, checkpoints) and reports the webhook's update rules as planned
replacements instead of errors.

Text output: one summary line per valid object on stdout; warnings, kubectl's header and one
``file:line:col: path: type: value: detail`` line per error on stderr (the position of the
field, or of its nearest parent written in the file). ``-o json`` prints one object per graph,
``-o github`` prints GitHub Actions annotations. Documents are loaded one by one, so one bad
document does not hide the others. Exit status 1 if anything was invalid or unreadable.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from dynamo_pulumi.cli.common import (
    add_common,
    add_mode,
    add_output,
    check_stdin_once,
    read_input,
    subcommand_parser,
)
from dynamo_pulumi.cli.exits import EXIT_ERROR, EXIT_OK
from dynamo_pulumi.cli.validate_report import ObjectReport, Problem, write_github, write_json, write_text
from dynamo_pulumi.errors import GraphValidationError, InputError
from dynamo_pulumi.floor.kube_names import check_namespace
from dynamo_pulumi.floor.records import field, record, replace
from dynamo_pulumi.loading.documents import (
    LoadedObject,
    companion_note,
    is_companion,
    load_each,
    object_name_of,
)
from dynamo_pulumi.model.platform_file import PlatformError, load_platform

if TYPE_CHECKING:
    from dynamo_pulumi.floor.sources import SourceText
    from dynamo_pulumi.platform import Platform

KINDS_TEXT = "DynamoGraphDeployment, DynamoComponentDeployment or DynamoGraphDeploymentScalingAdapter"
OUTPUTS = ("text", "json", "github")


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "validate", __doc__)
    parser.add_argument("files", nargs="+", metavar="FILE", help="YAML files with Dynamo objects ('-': stdin)")
    parser.add_argument("--old", default=None, help="the previously applied objects: validate as an update")
    parser.add_argument(
        "--client", choices=("kubectl", "pulumi"), default="kubectl",
        help="who sends the update (with --old): kubectl sends the file as written (default); pulumi never "
             "sends the replicas a scalingAdapter owns",
    )
    add_common(parser)
    add_mode(parser)
    add_output(parser, OUTPUTS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    check_stdin_once([*args.files, args.old], args.inline)
    try:
        check_namespace(args.namespace)
    except InputError as exc:
        _write([_settings_report(exc, "", "--namespace")], args.output, out, err)
        return EXIT_ERROR
    try:
        platform = load_platform(args.platform, twins=True)
    except InputError as exc:
        _write([_settings_report(exc, args.platform, args.platform)], args.output, out, err)
        return EXIT_ERROR
    old_objects: dict[tuple[str, str], Any] = {}
    if args.old is not None:
        old_contents = load_file(args.old, args.inline)
        if old_contents.failed:
            write_text(old_contents.failed, out, err)
            return EXIT_ERROR
        old_objects = {(lo.object.kind, lo.object.name): lo.object for _, lo in old_contents.loaded}
    reports: list[ObjectReport] = []
    for name in args.files:
        reports += _check_file(name, args.inline, platform, args.namespace, old_objects, args.mode, args.client)
    _write(reports, args.output, out, err)
    return EXIT_OK if all(r.valid for r in reports) else EXIT_ERROR


def _settings_report(exc: InputError, file: str, label: str) -> ObjectReport:
    """A bad ``--platform`` file (or ``--namespace``, ``file`` "") as a report of its own, so
    ``-o json`` and ``-o github`` say it in their format: one problem per platform field, at
    its line."""
    if isinstance(exc, PlatformError):
        problems = [replace(Problem.of(e), message=f"invalid platform settings: {e.message}",
                            words=f"invalid platform settings: {e}") for e in exc.errors]
        return ObjectReport(file, label, problems=problems)
    problem = Problem.of_input(exc, label)
    return ObjectReport(file, label, problems=[replace(problem, message=_one_line(problem.message))])


def _write(reports: list[ObjectReport], output: str, out: TextIO, err: TextIO) -> None:
    if output == "json":
        write_json(reports, out)
    elif output == "github":
        write_github(reports, out)
    else:
        write_text(reports, out, err)


@record(frozen=False)
class FileContents:
    """One input: reports for documents that failed to load, every Dynamo object with its
    1-based document number (None in a single-document input), and the other kinds beside them."""

    failed: list[ObjectReport] = field(default_factory=list)
    loaded: list[tuple[int | None, LoadedObject]] = field(default_factory=list)
    others: list[dict[str, Any]] = field(default_factory=list)
    #: The companion nvidia.com kinds among ``others`` (a DynamoModel), with document number and label.
    companions: list[tuple[int | None, str, dict[str, Any]]] = field(default_factory=list)


def load_file(name: str, inline: bool) -> FileContents:
    """Every document of one input loaded on its own; an unreadable input or bad YAML is one
    report."""
    label = "<inline>" if inline else name
    try:
        return load_contents(read_input(name, inline), label)
    except InputError as exc:
        return FileContents([ObjectReport(label, label, problems=[Problem.of_input(exc, label)])])


def load_contents(text: SourceText, label: str) -> FileContents:
    """Every document of ``text`` loaded on its own, so one bad document never hides another's
    errors (``render`` reads its file this way too). Reading and YAML errors raise InputError.
    Valid objects load as pydantic-free twins (:mod:`dynamo_pulumi.model.twin`): a check or a
    rendering never hands them to a program, and a small graph is checked before pydantic could
    even be imported."""
    outcomes = list(load_each(text, twins=True))
    multi = len(outcomes) > 1
    contents = FileContents()
    for outcome in outcomes:
        document = outcome.index + 1 if multi else None
        exc = outcome.error
        if isinstance(exc, GraphValidationError):
            problems = [Problem.of(e) for e in exc.errors]
            contents.failed.append(ObjectReport(label, outcome.label, document, exc.kind, exc.name, problems=problems))
        elif exc is not None:
            problem = Problem.of_input(exc, outcome.label)
            contents.failed.append(ObjectReport(label, outcome.label, document, problems=[problem]))
        elif outcome.loaded is not None:
            contents.loaded.append((document, outcome.loaded))
        elif outcome.other is not None:
            contents.others.append(outcome.other)
            if is_companion(outcome.other):
                contents.companions.append((document, outcome.label, outcome.other))
    return contents


def _check_file(
    name: str,
    inline: bool,
    platform: Platform,
    namespace: str | None,
    old_objects: dict[tuple[str, str], Any],
    mode: str,
    client: str = "kubectl",
) -> list[ObjectReport]:
    """One report per document of the file, in document order."""
    contents = load_file(name, inline)
    label = "<inline>" if inline else name
    if not contents.failed and not contents.loaded and not contents.companions:
        return [ObjectReport(label, label, problems=[Problem(f"no {KINDS_TEXT} found")])]
    reports = [_with_operation(r, old_objects) for r in contents.failed]
    reports += [_companion_report(label, *companion) for companion in contents.companions]
    for document, loaded in contents.loaded:
        reports.append(_check_object(loaded, platform, namespace, old_objects, document, mode, contents.others,
                                     client))
    return sorted(reports, key=lambda r: r.document or 0)


def _companion_report(file: str, document: int | None, label: str, doc: dict[str, Any]) -> ObjectReport:
    """A companion kind passes with a note saying it was not checked (and what render and the
    components do with it), never an "unknown kind" error."""
    return ObjectReport(file, label, document, kind=str(doc.get("kind")), name=object_name_of(doc),
                        note=companion_note(doc))


def _with_operation(report: ObjectReport, old_objects: dict[tuple[str, str], Any]) -> ObjectReport:
    """A Dynamo object refused while loading still has an operation: what applying it would be."""
    if report.kind is None:
        return report
    return replace(report, operation=_operation((report.kind, report.name or ""), old_objects))


def _operation(key: tuple[str, str], old_objects: dict[tuple[str, str], Any]) -> str:
    return "update" if key in old_objects else "create"


def _check_object(
    loaded: LoadedObject,
    platform: Platform,
    namespace: str | None,
    old_objects: dict[tuple[str, str], Any],
    document: int | None,
    mode: str,
    others: list[dict[str, Any]],
    client: str = "kubectl",
) -> ObjectReport:
    from dynamo_pulumi.verdict.deployability import judge

    obj = loaded.object
    old = old_objects.get((obj.kind, obj.name))
    # The one deployability verdict: admission (create, or the update verdict of ``old``) at the
    # paths and positions the user wrote, then every refusal rendering would make.
    verdict = judge(loaded, platform, namespace, old=old, mode=mode, objects=others, client=client)
    planned = [] if mode == "operator" else verdict.replacements
    summary = f"{_component_count(obj)}, {_plural(len(verdict.warnings), 'warning')}"
    if planned:
        summary += f", {_plural(len(planned), 'planned replacement')}"
    return ObjectReport(
        file=loaded.positions.file if loaded.positions else loaded.source,
        label=loaded.source,
        document=document,
        kind=obj.kind,
        name=obj.name,
        operation=_operation((obj.kind, obj.name), old_objects),
        summary=summary,
        warnings=list(verdict.warnings),
        problems=[Problem.of(e) for e in verdict.validate_errors()],
        replacements=[Problem.of(e) for e in planned],
    )


def _component_count(obj: Any) -> str:
    from dynamo_pulumi.api.kinds import DCD_KIND
    from dynamo_pulumi.api.v1beta1_helpers import GraphHelpers

    if isinstance(obj, GraphHelpers):
        return _plural(len(obj.components), "component")
    return _plural(1, "component") if obj.kind == DCD_KIND else "scaling adapter"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _one_line(message: str) -> str:
    """Multi-line parser messages folded onto one line, so each problem is one line."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
