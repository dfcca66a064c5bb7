"""``dynamo-pulumi render FILE``: print what the operator would create, as a YAML stream.

The graph is loaded, defaulted and validated exactly as admission would; an invalid graph prints
its errors on stderr, exits 1 and prints nothing on stdout. ``--stage`` picks what to print:
``objects`` (default; the Deployments, Services, RBAC, ...), ``components`` (the DCDs a DGD
expands into) or ``all`` (components first, then objects). One document per object, stable order.
A file with several graphs renders each, in file order; one invalid graph fails the whole command
so that nothing partial reaches stdout.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import yaml

from dynamo_pulumi.errors import GraphValidationError, InputError
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.loading import LoadedObject, check_loaded, load_documents
from dynamo_pulumi.platform import load_platform
from dynamo_pulumi.render import RenderResult, render_graph

STAGES = ("objects", "components", "all")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a DynamoGraphDeployment/DynamoComponentDeployment to Kubernetes objects",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", help="YAML file holding DGDs or DCDs (companion documents are ignored)")
    parser.add_argument("--namespace", "-n", default=None, help="target namespace (default: the object's, else 'default')")
    parser.add_argument("--platform", "-p", default=None, help="platform settings YAML (operator configuration)")
    parser.add_argument("--stage", choices=STAGES, default="objects", help="what to print (default: objects)")
    parser.set_defaults(run=run)


def selected_documents(result: RenderResult, stage: str) -> list[dict[str, Any]]:
    """The documents one ``--stage`` prints, in order."""
    if stage == "components":
        return list(result.components)
    if stage == "all":
        return [*result.components, *result.objects]
    return list(result.objects)


def dump_stream(documents: list[dict[str, Any]]) -> str:
    """A YAML stream, one document per object, keys in rendered order (deterministic)."""
    return yaml.safe_dump_all(documents, sort_keys=False, default_flow_style=False, explicit_start=True)


def _admitted(graphs: list[LoadedObject], platform: object, namespace: str | None) -> bool:
    """CREATE admission of every graph (errors at alpha paths for v1alpha1 files); warnings and
    errors go to stderr. True when every graph is admitted."""
    admitted = True
    for loaded in graphs:
        try:
            findings = check_loaded(loaded, platform, namespace)
        except GraphValidationError as exc:
            for warning in exc.warnings:
                print(f"Warning: {warning}", file=sys.stderr)
            print(str(exc), file=sys.stderr)
            admitted = False
            continue
        for warning in findings.warnings:
            print(f"Warning: {warning}", file=sys.stderr)
    return admitted


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    loaded = load_documents(args.file)
    graphs = loaded.graphs
    if not graphs:
        raise InputError("no DynamoGraphDeployment or DynamoComponentDeployment in the file", loaded.source)
    platform = load_platform(args.platform)
    if not _admitted(graphs, platform, args.namespace):
        return 1
    documents: list[dict[str, Any]] = []
    for entry in graphs:
        result = render_graph(entry.object, platform, args.namespace, objects=loaded.others)  # type: ignore[arg-type]
        documents += selected_documents(result, args.stage)
    sys.stdout.write(dump_stream(documents))
    return 0
