"""What ``dynamo-pulumi validate`` found, and its three ways of saying it: text, JSON, GitHub.

Validation first collects one :class:`ObjectReport` per object (or per document or file that
could not be loaded), then one formatter prints them all, so every output format says exactly
the same thing. JSON schema (a list, in input order; a key whose value is not known is left
out, never ``null``)::

    {"file": str, "document"?: int, "kind"?: str, "name"?: str,
     "operation"?: "create" | "update", "valid": bool, "warnings": [str],
     "errors": [{"path"?: str, "type": str, "value"?: any, "message": str, "fix"?: str,
                 "line"?: int, "column"?: int}],
     "plannedReplacements": [same shape as errors], "note"?: str}

``document`` is 1-based, present in multi-document files only; ``kind``, ``name`` and
``operation`` are present for every Dynamo object, valid or not (``operation`` is ``update`` when
``--old`` holds an object of the same kind and name), absent for a file or document that could
not be read as one. ``value`` is the offending value as written (numbers stay numbers), absent
where the error carries none (Required, Forbidden); ``message`` is in the operator's or the API
server's own words and ``fix`` our advice beside them (the text output joins the two); ``line``
and ``column`` are absent when the input was not YAML text. ``type`` is the API server's error type, or ``InputError`` for a file
or document that could not be read. ``plannedReplacements`` (render mode, ``--old``) are the
operator's update rules the change breaks: no error there, since no DGD is sent, but the objects
they touch are replaced. ``note``: a companion nvidia.com kind the operator serves (DynamoModel,
DynamoGraphDeploymentRequest, DynamoCheckpoint, DynamoWorkerMetadata), passed through unchecked
(``valid`` true, no errors), and what render and the components do with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TextIO

from dynamo_pulumi.errors import OMITTED, FieldError, InputError, SourcePosition, shorten
from dynamo_pulumi.floor.records import field, record

PLANNED = "planned replacement (render mode; the operator's webhook would refuse this in place)"


@record
class Problem:
    """One error line: a field error, or a whole-input message (``path`` None)."""

    message: str
    type: str = "InputError"
    path: str | None = None
    value: Any = OMITTED  # OMITTED: the error carries no value
    position: SourcePosition | None = None
    #: Where a whole-input problem happened, when no line is known ("file (document 2)").
    where: str | None = None
    #: The error in the operator's or API server's own words, when ``message`` adds our advice.
    words: str | None = None
    #: Our advice alone ("" when we have none): JSON keeps it out of ``message``, so a tool can
    #: match the API server's text exactly.
    fix: str = ""

    @classmethod
    def of_input(cls, exc: InputError, label: str) -> Problem:
        """A file or document that could not be read or loaded."""
        text = str(exc)
        if exc.source and text.startswith(f"{exc.source}: "):
            text = text[len(exc.source) + 2:]
        text = " ".join(part.strip() for part in text.splitlines() if part.strip())
        return cls(text, position=getattr(exc, "position", None), where=exc.source or label)

    @classmethod
    def of(cls, error: FieldError) -> Problem:
        value = shorten(error.value) if isinstance(error.value, str) else error.value
        return cls(error.message, error.type.value, error.path, value, error.position,
                   words=str(error), fix=error.advice)


@record(frozen=False)
class ObjectReport:
    """The verdict on one object, or on one input that never became an object."""

    file: str
    label: str  # file, or "file (document N)"
    document: int | None = None
    kind: str | None = None
    name: str | None = None
    operation: str | None = None
    summary: str = ""  # "2 components, 0 warnings"
    warnings: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: Render mode with ``--old``: update rules of the operator's webhook the change breaks.
    replacements: list[Problem] = field(default_factory=list)
    #: A companion kind (DynamoModel, ...): passed through unchecked, and why.
    note: str = ""

    @property
    def valid(self) -> bool:
        return self.kind is not None and not self.problems

    @property
    def shown_name(self) -> str:
        """The name as echoed: cut to a readable length (a 1 MB name is not printed back)."""
        return shorten(self.name or "")


def _where(problem: Problem, label: str) -> str:
    if problem.position is not None:
        return str(problem.position)
    return problem.where or label


def write_text(reports: list[ObjectReport], out: TextIO, err: TextIO) -> None:
    """Summaries of valid objects on ``out``; warnings, kubectl's header (``error: The ... is
    invalid:``) and one ``file:line:col: path: type: value: detail`` line per error on ``err``."""
    for report in reports:
        for warning in report.warnings:
            print(f"{report.label}: warning: {warning}", file=err)
        if report.note:
            print(f"{report.label}: note: {report.note}", file=out)
            continue
        if report.valid:
            for planned in report.replacements:
                print(f"{_where(planned, report.label)}: {PLANNED}: {planned.message}", file=out)
            print(
                f'{report.label}: {report.kind} "{report.shown_name}" is valid ({report.operation}; {report.summary})',
                file=out,
            )
            continue
        if report.kind is not None:  # as every command prints it; a document of several is named
            where = f"{report.label}: " if report.document is not None else ""
            print(f'error: {where}The {report.kind} "{report.shown_name}" is invalid:', file=err)
        for problem in report.problems:
            print(f"{_where(problem, report.label)}: {problem.message}", file=err)


def _problem_json(p: Problem) -> dict[str, Any]:
    data: dict[str, Any] = {"type": p.type, "message": p.message if p.words is None else p.words}
    if p.fix:
        data["fix"] = p.fix
    if p.path is not None:
        data["path"] = p.path
    if p.value is not OMITTED:
        data["value"] = p.value
    if p.position is not None:
        data["line"], data["column"] = p.position.line, p.position.column
    return data


def _report_json(r: ObjectReport) -> dict[str, Any]:
    name = shorten(r.name) if r.name else r.name
    known = {"document": r.document, "kind": r.kind, "name": name, "operation": r.operation}
    return {
        "file": r.file,
        **{key: value for key, value in known.items() if value is not None},
        "valid": r.valid,
        "warnings": list(r.warnings),
        "errors": [_problem_json(p) for p in r.problems],
        "plannedReplacements": [_problem_json(p) for p in r.replacements],
        **({"note": r.note} if r.note else {}),
    }


def error_document(exc: Exception) -> dict[str, Any]:
    """``{"errors": [...]}``: what ``preview``/``diff -o json`` print on stdout when they stop at
    an error (a refused graph, an unreadable file, a failing program), so a tool reading JSON gets
    JSON; each entry is a validate error (``type``, ``message``, ``fix``?, ``path``?, ``value``?,
    ``line``?, ``column``?) with the object's ``kind`` and ``name`` when there is one."""
    from dynamo_pulumi.errors import GraphValidationError

    if isinstance(exc, GraphValidationError):
        subject = {"kind": exc.kind, **({"name": shorten(exc.name)} if exc.name else {})}
        return {"errors": [{**subject, **_problem_json(Problem.of(e)), **({"file": e.position.file} if e.position else {})}
                           for e in exc.errors]}
    if isinstance(exc, InputError):
        return {"errors": [_problem_json(Problem.of_input(exc, exc.source))]}
    return {"errors": [{"type": type(exc).__name__, "message": str(exc)}]}


def errors_also_as_json(command: Callable[[Any], int], args: Any) -> int:
    """Run ``command(args)``; with ``-o json`` an error it stops at is also printed on stdout as
    :func:`error_document` before it propagates (its text still goes to stderr), so a tool that
    reads ``preview``/``diff`` JSON always gets JSON."""
    from dynamo_pulumi.errors import DynamoPulumiError

    try:
        return command(args)
    except DynamoPulumiError as exc:
        if getattr(args, "output", None) == "json":
            print(json.dumps(error_document(exc), indent=2, sort_keys=True, default=str))
        raise


def as_json(reports: list[ObjectReport]) -> list[dict[str, Any]]:
    return [_report_json(r) for r in reports]


def write_json(reports: list[ObjectReport], out: TextIO) -> None:
    print(json.dumps(as_json(reports), indent=2, sort_keys=True, default=str), file=out)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(level: str, file: str, position: SourcePosition | None, title: str, message: str) -> str:
    where = position.file if position else file
    props = [f"file={_escape_property(where)}"] if where else []  # --namespace names no file
    if position is not None:
        props += [f"line={position.line}", f"col={position.column}"]
    props.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(props)}::{_escape_data(message)}"


def write_github(reports: list[ObjectReport], out: TextIO) -> None:
    """GitHub Actions workflow commands: one ``::error`` per error, one ``::warning`` per
    warning, at the field's line; valid objects get their summary line."""
    for report in reports:
        title = f'{report.kind} "{report.shown_name}"' if report.kind else report.label
        for warning in report.warnings:
            print(_annotation("warning", report.file, None, title, warning), file=out)
        if report.note:
            print(_annotation("notice", report.file, None, title, report.note), file=out)
            continue
        for problem in report.problems:
            print(_annotation("error", report.file, problem.position, title, problem.message), file=out)
        for planned in report.replacements:
            print(_annotation("notice", report.file, planned.position, title, f"{PLANNED}: {planned.message}"), file=out)
        if report.valid:
            print(f'{report.label}: {report.kind} "{report.shown_name}" is valid ({report.operation}; {report.summary})',
                  file=out)
