"""``dynamo-pulumi validate FILE... [--old FILE] [--platform FILE] [--mode render|operator]``: admission, offline.

Every Dynamo object in every FILE gets the deployability verdict every other command and the
Pulumi components use (:mod:`dynamo_pulumi.verdict`): what the API server would run on CREATE
(object metadata and size, defaulting, CEL, the operator's validating webhook), then every refusal
rendering would make (rendered names and labels, backend detection, orchestrator availability).
With ``--old``, an object whose kind and name also appear in the old file is checked as an UPDATE
of that object instead. ``--mode`` gives the answer for one deployment mode
(:mod:`dynamo_pulumi.validation.update_verdict`): ``operator`` refuses exactly what the
operator's webhooks refuse; ``render`` (the default) refuses what needs the operator (a
Kubernetes-API planner, LPX, checkpoints) and reports the webhook's update rules as planned
replacements.

Valid objects print one summary line each on stdout; warnings go to stderr. An invalid object
prints kubectl's header and then one line per error on stderr, each prefixed with the file name
(and ``(document N)`` in a multi-document file). Documents are loaded one by one, so one bad
document does not hide the others. The exit status is 1 if anything was invalid or unreadable.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TextIO

from dynamo_pulumi.api.v1beta1 import DCD_KIND, DynamoGraphDeployment
from dynamo_pulumi.deploy_mode import DEFAULT_MODE, MODES
from dynamo_pulumi.errors import FieldError, GraphValidationError, InputError
from dynamo_pulumi.loading import LoadedObject, load_documents, read_documents
from dynamo_pulumi.platform import Platform, load_platform
from dynamo_pulumi.verdict import judge

KINDS_TEXT = "DynamoGraphDeployment, DynamoComponentDeployment or DynamoGraphDeploymentScalingAdapter"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check DGD/DCD files exactly as the operator's admission would",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="YAML files with Dynamo objects")
    parser.add_argument("--old", default=None, help="the previously applied objects: validate as an update")
    parser.add_argument(
        "--platform", "-p", default=None, help="platform settings YAML (operator configuration)"
    )
    parser.add_argument(
        "--mode", choices=MODES, default=DEFAULT_MODE,
        help="render (default): the webhook's update rules become planned replacements and operator-only "
        "features are refused; operator: exactly what the operator's webhooks refuse",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        platform = load_platform(args.platform)
    except InputError as exc:
        print(_one_line(str(exc)), file=err)
        return 1
    old_objects: dict[tuple[str, str], Any] = {}
    if args.old is not None:
        old_loaded, old_ok = _load(args.old, err)
        if not old_ok:
            return 1
        old_objects = {(lo.object.kind, lo.object.name): lo.object for lo in old_loaded}
    ok = True
    for path in args.files:
        ok = _validate_file(path, platform, old_objects, out, err, getattr(args, "mode", DEFAULT_MODE)) and ok
    return 0 if ok else 1


def _load(path: str, err: TextIO) -> tuple[list[LoadedObject], bool]:
    """Every Dynamo object of the file, and whether every document could be loaded.

    Documents are loaded one by one, so a schema error in one does not hide the others.
    """
    try:
        docs, _where = read_documents(path)
    except InputError as exc:
        print(_one_line(str(exc) if exc.source else f"{path}: {exc}"), file=err)
        return [], False
    loaded: list[LoadedObject] = []
    ok = True
    for index, doc in enumerate(docs):
        label = path if len(docs) == 1 else f"{path} (document {index + 1})"
        try:
            result = load_documents([doc])
        except InputError as exc:
            print(_one_line(f"{label}: {exc}"), file=err)
            ok = False
        except GraphValidationError as exc:
            _print_invalid(label, exc.kind, exc.name, exc.errors, err)
            ok = False
        else:
            loaded += [replace(lo, document=index, source=label) for lo in result.loaded]
    return loaded, ok


def _validate_file(
    path: str, platform: Platform, old_objects: dict[tuple[str, str], Any], out: TextIO, err: TextIO, mode: str
) -> bool:
    loaded_objects, ok = _load(path, err)
    if ok and not loaded_objects:
        print(f"{path}: no {KINDS_TEXT} found", file=err)
        return False
    for loaded in loaded_objects:
        ok = _validate_object(loaded.source, loaded, platform, old_objects, out, err, mode) and ok
    return ok


def _validate_object(
    path: str,
    loaded: LoadedObject,
    platform: Platform,
    old_objects: dict[tuple[str, str], Any],
    out: TextIO,
    err: TextIO,
    mode: str = DEFAULT_MODE,
) -> bool:
    obj = loaded.object
    old = old_objects.get((obj.kind, obj.name))
    # The one deployability verdict: admission (create, or the update verdict of ``old``) at the
    # paths the user wrote, then every refusal rendering would make.
    verdict = judge(loaded, platform, old=old, mode=mode)
    for warning in verdict.warnings:
        print(f"{path}: warning: {warning}", file=err)
    errors = verdict.validate_errors()
    if errors:
        _print_invalid(path, obj.kind, obj.name, errors, err)
        return False
    planned = [] if mode == "operator" else verdict.replacements
    for rule in planned:
        print(f"{path}: planned replacement (render mode; the operator's webhook would refuse this in place): {rule}", file=out)
    operation = "update" if old is not None else "create"
    counts = f"{_component_count(obj)}, {_plural(len(verdict.warnings), 'warning')}"
    if planned:
        counts += f", {_plural(len(planned), 'planned replacement')}"
    print(f'{path}: {obj.kind} "{obj.name}" is valid ({operation}; {counts})', file=out)
    return True


def _print_invalid(path: str, kind: str, name: str, errors: Sequence[FieldError], err: TextIO) -> None:
    print(f'{path}: The {kind} "{name}" is invalid:', file=err)
    for error in errors:
        print(f"{path}: {error}", file=err)


def _component_count(obj: Any) -> str:
    if isinstance(obj, DynamoGraphDeployment):
        return _plural(len(obj.components), "component")
    return _plural(1, "component") if obj.kind == DCD_KIND else "scaling adapter"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _one_line(message: str) -> str:
    """Multi-line parser messages folded onto one line, so each problem is one line."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
