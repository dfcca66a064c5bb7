"""dynamo-pulumi validate FILE... [--old FILE] [-p PLATFORM] [-n NS] [-o text|json|github]

Every Dynamo object in every FILE (``-`` for standard input) goes through what the API server
would run on CREATE: defaulting, CEL, the operator's validating webhook. With ``--old``, an
object whose kind and name also appear in the old file is checked as an UPDATE of that object.

Text output: one summary line per valid object on stdout; warnings, kubectl's header and one
``file:line:col: path: type: value: detail`` line per error on stderr (the position of the
field, or of its nearest parent written in the file). ``-o json`` prints one object per graph,
``-o github`` prints GitHub Actions annotations. Documents are loaded one by one, so one bad
document does not hide the others. Exit status 1 if anything was invalid or unreadable.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from dynamo_pulumi.cli.common import add_common, add_output, check_stdin_once, read_input, subcommand_parser
from dynamo_pulumi.cli.exits import EXIT_ERROR, EXIT_OK
from dynamo_pulumi.cli.validate_report import ObjectReport, Problem, write_github, write_json, write_text
from dynamo_pulumi.errors import GraphValidationError, InputError
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.loading import LoadedObject, load_each, locate, validate_loaded
from dynamo_pulumi.platform import Platform, load_platform

KINDS_TEXT = "DynamoGraphDeployment, DynamoComponentDeployment or DynamoGraphDeploymentScalingAdapter"
OUTPUTS = ("text", "json", "github")


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "validate", __doc__)
    parser.add_argument("files", nargs="+", metavar="FILE", help="YAML files with Dynamo objects ('-': stdin)")
    parser.add_argument("--old", default=None, help="the previously applied objects: validate as an update")
    add_common(parser)
    add_output(parser, OUTPUTS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    check_stdin_once([*args.files, args.old], args.inline)
    try:
        check_namespace(args.namespace)
        platform = load_platform(args.platform)
    except InputError as exc:
        print(_one_line(str(exc)), file=err)
        return EXIT_ERROR
    old_objects: dict[tuple[str, str], Any] = {}
    if args.old is not None:
        old_reports, old_loaded = _load(args.old, args.inline)
        if old_reports:
            write_text(old_reports, out, err)
            return EXIT_ERROR
        old_objects = {(lo.object.kind, lo.object.name): lo.object for _, lo in old_loaded}
    reports: list[ObjectReport] = []
    for name in args.files:
        reports += _check_file(name, args.inline, platform, args.namespace, old_objects)
    _write(reports, args.output, out, err)
    return EXIT_OK if all(r.valid for r in reports) else EXIT_ERROR


def _write(reports: list[ObjectReport], output: str, out: TextIO, err: TextIO) -> None:
    if output == "json":
        write_json(reports, out)
    elif output == "github":
        write_github(reports, out)
    else:
        write_text(reports, out, err)


def _load(name: str, inline: bool) -> tuple[list[ObjectReport], list[tuple[int | None, LoadedObject]]]:
    """Reports for the documents of one input that failed to load, and every Dynamo object of
    it with its 1-based document number (None in a single-document input)."""
    label = "<inline>" if inline else name
    try:
        outcomes = list(load_each(read_input(name, inline)))
    except InputError as exc:
        return [ObjectReport(label, label, problems=[Problem.of_input(exc, label)])], []
    multi = len(outcomes) > 1
    failed: list[ObjectReport] = []
    loaded: list[tuple[int | None, LoadedObject]] = []
    for outcome in outcomes:
        document = outcome.index + 1 if multi else None
        exc = outcome.error
        if isinstance(exc, GraphValidationError):
            problems = [Problem.of(e) for e in exc.errors]
            failed.append(ObjectReport(label, outcome.label, document, exc.kind, exc.name, problems=problems))
        elif exc is not None:
            problem = Problem.of_input(exc, outcome.label)
            failed.append(ObjectReport(label, outcome.label, document, problems=[problem]))
        elif outcome.loaded is not None:
            loaded.append((document, outcome.loaded))
    return failed, loaded


def _check_file(
    name: str, inline: bool, platform: Platform, namespace: str | None, old_objects: dict[tuple[str, str], Any]
) -> list[ObjectReport]:
    """One report per document of the file, in document order."""
    reports, loaded_objects = _load(name, inline)
    if not reports and not loaded_objects:
        label = "<inline>" if inline else name
        return [ObjectReport(label, label, problems=[Problem(f"no {KINDS_TEXT} found")])]
    for document, loaded in loaded_objects:
        reports.append(_check_object(loaded, platform, namespace, old_objects, document))
    return sorted(reports, key=lambda r: r.document or 0)


def _check_object(
    loaded: LoadedObject,
    platform: Platform,
    namespace: str | None,
    old_objects: dict[tuple[str, str], Any],
    document: int | None,
) -> ObjectReport:
    from dynamo_pulumi.validation import validate_update

    obj = loaded.object
    old = old_objects.get((obj.kind, obj.name))
    if old is None:
        # Create admission with the v1alpha1 compatibility pass and alpha error paths.
        findings = validate_loaded(loaded, platform, namespace)
        errors = findings.errors
    else:
        findings = validate_update(
            old, obj, platform, source_api_version=loaded.source_api_version, namespace=namespace
        )
        errors = [loaded.path_map.map_error(e) for e in findings.errors] if loaded.is_alpha else findings.errors
        errors = locate(loaded, errors)
    return ObjectReport(
        file=loaded.positions.file if loaded.positions else loaded.source,
        label=loaded.source,
        document=document,
        kind=obj.kind,
        name=obj.name,
        operation="update" if old is not None else "create",
        summary=f"{_component_count(obj)}, {_plural(len(findings.warnings), 'warning')}",
        warnings=list(findings.warnings),
        problems=[Problem.of(e) for e in errors],
    )


def _component_count(obj: Any) -> str:
    from dynamo_pulumi.api.v1beta1 import DCD_KIND, DynamoGraphDeployment

    if isinstance(obj, DynamoGraphDeployment):
        return _plural(len(obj.components), "component")
    return _plural(1, "component") if obj.kind == DCD_KIND else "scaling adapter"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _one_line(message: str) -> str:
    """Multi-line parser messages folded onto one line, so each problem is one line."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
