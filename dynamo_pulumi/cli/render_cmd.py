"""``dynamo-pulumi render FILE``: print what the operator would create, as a YAML stream.

The graph gets the deployability verdict ``validate`` gives (admission, then every refusal of
rendering); a refused graph prints its errors on stderr, exits 1 and prints nothing on stdout.
``--stage`` picks what to print:
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

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.loading import LoadedObject, load_documents
from dynamo_pulumi.platform import Platform, load_platform
from dynamo_pulumi.render import RenderResult
from dynamo_pulumi.verdict import Verdict, judge

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


def _verdicts(
    graphs: list[LoadedObject], others: list[dict[str, Any]], platform: Platform, namespace: str | None
) -> list[Verdict] | None:
    """The deployability verdict of every graph (errors at alpha paths for v1alpha1 files), asked
    as "what would the operator create?" (features only operator mode deploys are shown, not
    refused), with the file's other documents beside it (DRA claim templates); warnings and
    errors go to stderr. None when any graph is refused."""
    verdicts: list[Verdict] = []
    for loaded in graphs:
        verdict = judge(loaded, platform, namespace, objects=others, for_expansion=True)
        for warning in verdict.warnings:
            print(f"Warning: {warning}", file=sys.stderr)
        if not verdict.deployable:
            print(str(verdict.error()), file=sys.stderr)
        verdicts.append(verdict)
    return verdicts if all(v.deployable for v in verdicts) else None


def run(args: argparse.Namespace) -> int:
    check_namespace(args.namespace)
    loaded = load_documents(args.file)
    graphs = loaded.graphs
    if not graphs:
        raise InputError("no DynamoGraphDeployment or DynamoComponentDeployment in the file", loaded.source)
    platform = load_platform(args.platform)
    verdicts = _verdicts(graphs, list(loaded.others), platform, args.namespace)
    if verdicts is None:
        return 1
    documents: list[dict[str, Any]] = []
    for verdict in verdicts:
        assert verdict.rendered is not None  # a deployable graph always carries its rendering
        documents += selected_documents(verdict.rendered, args.stage)
    sys.stdout.write(dump_stream(documents))
    return 0
