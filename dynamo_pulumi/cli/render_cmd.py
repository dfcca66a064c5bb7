"""``dynamo-pulumi render FILE``: print what the operator would create, as a YAML stream.

The graph is loaded, defaulted and validated exactly as admission would; an invalid graph prints
its errors on stderr, exits 1 and prints nothing on stdout. ``--stage`` picks what to print:
``objects`` (default; the Deployments, Services, RBAC, ...), ``components`` (the DCDs a DGD
expands into) or ``all`` (components first, then objects). One document per object, stable order.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import yaml

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.loading import load_graph
from dynamo_pulumi.platform import Platform, load_platform
from dynamo_pulumi.render import RenderResult, render_graph
from dynamo_pulumi.validation import check

STAGES = ("objects", "components", "all")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "render",
        help="render a DynamoGraphDeployment/DynamoComponentDeployment to Kubernetes objects",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", help="YAML file holding one DGD or DCD (companion documents are ignored)")
    parser.add_argument("--namespace", "-n", default=None, help="target namespace (default: the object's, else 'default')")
    parser.add_argument("--platform", "-p", default=None, help="platform settings YAML (operator configuration)")
    parser.add_argument("--stage", choices=STAGES, default="objects", help="what to print (default: objects)")
    parser.set_defaults(run=run)


def _validate(graph: DynamoGraphDeployment | DynamoComponentDeployment, platform: Platform) -> list[str]:
    """CREATE admission as the API server would run it; returns warnings, raises on errors."""
    return list(check(graph, platform))


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


def run(args: argparse.Namespace) -> int:
    graph = load_graph(args.file)
    platform = load_platform(args.platform)
    try:
        warnings = _validate(graph, platform)
    except GraphValidationError as exc:
        for warning in exc.warnings:
            print(f"Warning: {warning}", file=sys.stderr)
        print(str(exc), file=sys.stderr)
        return 1
    for warning in warnings:
        print(f"Warning: {warning}", file=sys.stderr)
    result = render_graph(graph, platform, args.namespace)
    sys.stdout.write(dump_stream(selected_documents(result, args.stage)))
    return 0
