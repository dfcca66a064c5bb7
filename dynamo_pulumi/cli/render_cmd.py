"""dynamo-pulumi render FILE [-p PLATFORM] [-n NS] [--mode render|operator] [--stage objects|components|all]

Print what the operator would create, as a YAML stream (FILE may be ``-`` for standard input).
Features only operator mode can deploy (a Kubernetes-API planner, LPX, checkpoints) are printed,
not refused, in either mode; in render mode each gets a warning on stderr (``use --mode operator``). ``--mode operator`` renders the custom resource as operator mode
sends it (cluster-only metadata such as ownerReferences left out): exactly the expansion
``preview --mode operator`` predicts and the drift check compares with.

The graph gets the deployability verdict ``validate`` gives (admission, then every refusal of
rendering); a refused graph prints its errors on stderr, exits 1 and prints nothing on stdout.
``--stage`` picks what to print:
``objects`` (default; the Deployments, Services, RBAC, ...), ``components`` (the DCDs a DGD
expands into) or ``all`` (components first, then objects). One document per object, stable order.
A file with several graphs renders each, in file order; one invalid graph fails the whole command
so that nothing partial reaches stdout. Errors are printed as ``validate`` prints them, with the
file, line and column of each field, for every document (a document that fails to load does
not hide the errors of the others).
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from typing import TYPE_CHECKING, Any, cast

import yaml

from dynamo_pulumi.cli.common import add_common, add_mode, read_input, subcommand_parser, warn
from dynamo_pulumi.cli.exits import EXIT_ERROR, EXIT_OK
from dynamo_pulumi.cli.validate_cmd import FileContents, load_contents
from dynamo_pulumi.cli.validate_report import ObjectReport, Problem, write_text
from dynamo_pulumi.errors import FieldError, InputError
from dynamo_pulumi.floor.kube_names import check_namespace
from dynamo_pulumi.loading.documents import GRAPH_KINDS, LoadedObject
from dynamo_pulumi.model.platform_file import load_platform
from dynamo_pulumi.render import RenderResult
from dynamo_pulumi.verdict.deployability import Verdict, judge

if TYPE_CHECKING:
    from dynamo_pulumi.platform import Platform

STAGES = ("objects", "components", "all")


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "render", __doc__)
    parser.add_argument("file", help="YAML file holding DGDs or DCDs ('-': stdin; companion documents are ignored)")
    add_common(parser)
    add_mode(parser)
    parser.add_argument("--stage", choices=STAGES, default="objects", help="what to print (default: objects)")
    parser.set_defaults(run=run)


def selected_documents(result: RenderResult, stage: str) -> list[dict[str, Any]]:
    """The documents one ``--stage`` prints, in order."""
    if stage == "components":
        return list(result.components)
    if stage == "all":
        return [*result.components, *result.objects]
    return list(result.objects)


#: libyaml's emitter when PyYAML has it (about 3x faster on large graphs), else PyYAML's own.
_DUMPER: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
#: No line folding: the two emitters fold long strings differently, and unfolded they print the
#: same bytes, so the output does not depend on whether libyaml is installed.
_UNFOLDED = 2**31 - 1


#: The YAML 1.1 booleans PyYAML's resolver leaves out: kubectl (go-yaml) reads an unquoted ``n``
#: as ``false``, so an env value ``n`` printed plain would reach the API server as a boolean.
_YAML11_SHORT_BOOLS = re.compile(r"^(?:y|Y|n|N)$")


@functools.cache
def _kube_safe(dumper: type) -> type:
    """``dumper`` that also quotes the strings a YAML 1.1 reader would take for booleans."""
    cls: Any = type(f"KubeSafe{dumper.__name__}", (dumper,), {})
    cls.add_implicit_resolver("tag:yaml.org,2002:bool", _YAML11_SHORT_BOOLS, list("yYnN"))
    return cast(type, cls)


def dump_stream(documents: list[dict[str, Any]], dumper: type = _DUMPER) -> str:
    """A YAML stream, one document per object, keys in rendered order (deterministic), that
    kubectl reads back as the same values."""
    return yaml.dump_all(
        documents, Dumper=_kube_safe(dumper), sort_keys=False, default_flow_style=False, explicit_start=True,
        width=_UNFOLDED,
    )


def _verdicts(
    contents: FileContents, platform: Platform, namespace: str | None, mode: str
) -> tuple[list[Verdict], list[ObjectReport]]:
    """The deployability verdict of every graph (errors at alpha paths for v1alpha1 files, each
    with its file position), asked as "what would the operator create?" (features only operator
    mode deploys are shown, not refused), with the file's other documents beside it (DRA claim
    templates); warnings go to stderr. Also the report of every refused or unloadable document,
    in document order."""
    verdicts: list[Verdict] = []
    refused = list(contents.failed)
    for document, loaded in contents.loaded:
        if loaded.object.kind not in GRAPH_KINDS:
            continue
        verdict = judge(loaded, platform, namespace, mode=mode, objects=contents.others, for_expansion=True)
        for warning in verdict.warnings:
            warn(warning, loaded.source)
        if verdict.deployable and mode == "render":
            for refusal in operator_only(loaded):
                fix = "" if "--mode operator" in refusal.message else "; use --mode operator"
                warn(f"only operator mode can deploy this graph: {refusal.message}{fix}", loaded.source)
        if not verdict.deployable:
            refused.append(ObjectReport(loaded.source, loaded.source, document, kind=loaded.object.kind,
                                        name=loaded.object.name, problems=[Problem.of(e) for e in verdict.errors]))
        verdicts.append(verdict)
    return verdicts, sorted(refused, key=lambda r: r.document or 0)


def operator_only(loaded: LoadedObject) -> list[FieldError]:
    """What render mode refuses to deploy in ``loaded`` (printed anyway, with a warning), at the
    paths the file wrote (v1alpha1 ones for an alpha file)."""
    from dynamo_pulumi.model.deploy_mode import operator_only_errors

    errors = operator_only_errors(loaded.object)
    return [loaded.path_map.map_error(e) for e in errors] if loaded.is_alpha else errors


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    label = "<inline>" if args.inline else args.file
    contents = load_contents(read_input(args.file, args.inline), label)
    if not contents.failed and not any(lo.object.kind in GRAPH_KINDS for _, lo in contents.loaded):
        raise InputError("no DynamoGraphDeployment or DynamoComponentDeployment in the file", label)
    platform = load_platform(args.platform, twins=True)
    verdicts, refused = _verdicts(contents, platform, args.namespace, args.mode)
    if refused:
        write_text(refused, sys.stdout, sys.stderr)
        return EXIT_ERROR
    documents: list[dict[str, Any]] = []
    for verdict in verdicts:
        assert verdict.rendered is not None  # a deployable graph always carries its rendering
        documents += selected_documents(verdict.rendered, args.stage)
    sys.stdout.write(dump_stream(documents))
    return EXIT_OK
