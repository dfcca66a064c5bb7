"""What ``dynamo-pulumi wait`` and ``status`` share: cluster flags and the file -> wait request step.

The graph file is loaded and admitted exactly as ``validate`` does; in render mode it is rendered
to find the workloads to watch (the same names ``pulumi up`` created), in operator mode the
DGD/DCD custom resource itself is watched, and the file's plan gives the predicted expansion
the drift check compares the operator's objects with (the same objects the readiness resource
of ``pulumi up`` compares). Drift is printed as ``warning:`` lines after the status and never
changes the exit code. The Kubernetes client is imported only here, when one of these two
commands runs (``validate``/``render`` never load it).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.cli.common import add_common, add_mode, read_input
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.kube_names import check_namespace
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.loading.documents import LoadedObject, load_documents
from dynamo_pulumi.model.platform_file import load_platform
from dynamo_pulumi.readiness.deadline import DEFAULT_TIMEOUT_SECONDS, parse_duration
from dynamo_pulumi.readiness.status import GraphStatus
from dynamo_pulumi.readiness.targets import (
    DCD_KIND,
    WaitRequest,
    operator_targets,
    pod_selector,
    render_targets,
)

if TYPE_CHECKING:
    from dynamo_pulumi.floor.sources import SourceText
    from dynamo_pulumi.verdict.deployability import Verdict


def add_cluster_arguments(parser: argparse.ArgumentParser, with_timeout: bool) -> None:
    parser.add_argument("file", help="YAML file holding the DGD or DCD that was deployed ('-': stdin)")
    add_common(parser)
    add_mode(parser)
    parser.add_argument("--kubeconfig", default=None, help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
    parser.add_argument("--context", default=None, help="kubeconfig context (default: its current context)")
    if with_timeout:
        parser.add_argument("--timeout", default=f"{DEFAULT_TIMEOUT_SECONDS // 60}m", type=timeout_seconds,
                            help="how long to wait, e.g. 30m, 1h30m, 90s (default: 60m)")


def timeout_seconds(text: str) -> int:
    """``--timeout``'s value in seconds; a malformed one is a usage error (exit 64), like any
    other bad flag value, before a file is read or a cluster called."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@record
class WatchedGraph:
    """One graph of the file: what to wait for, and in operator mode what the operator should
    have created (the plan's predicted expansion; empty in render mode)."""

    request: WaitRequest
    predicted: list[dict[str, Any]] = field(default_factory=list)


def _prediction(loaded: LoadedObject, source: SourceText, args: argparse.Namespace, platform: Any,
                others: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The predicted expansion, from the same plan ``DynamoGraphDeployment(mode="operator")``
    makes of this document (the document as written: a v1alpha1 one is converted exactly as
    when the program loads the file)."""
    from dynamo_pulumi.loading.documents import read_documents
    from dynamo_pulumi.planning.operator_mode import plan_prediction
    from dynamo_pulumi.planning.plan import plan_graph

    document = read_documents(source)[0][loaded.document]
    return plan_prediction(plan_graph(document, platform, args.namespace, objects=others, mode="operator"))


def _watched(loaded: LoadedObject, verdict: Verdict, source: SourceText, args: argparse.Namespace, platform: Any,
             timeout: float, others: list[dict[str, Any]]) -> WatchedGraph:
    graph = loaded.object
    namespace = args.namespace or graph.metadata.namespace or "default"
    component = (getattr(graph.spec, "name", None) or graph.name) if graph.kind == DCD_KIND else ""
    predicted: list[dict[str, Any]] = []
    if args.mode == "operator":
        targets = operator_targets(graph.kind, graph.name, namespace)
        predicted = _prediction(loaded, source, args, platform, others)
    else:
        assert verdict.rendered is not None  # render mode: a deployable graph carries its rendering
        targets = render_targets(verdict.rendered.objects, namespace)
    request = WaitRequest(mode=args.mode, kind=graph.kind, graph=graph.name, namespace=namespace,
                          targets=tuple(targets), timeout_seconds=timeout,
                          pod_selector=pod_selector(graph.kind, graph.name, component))
    return WatchedGraph(request, predicted)


def watched_graphs(args: argparse.Namespace) -> list[WatchedGraph]:
    """One entry per DGD/DCD in the file, judged first as ``validate`` judges it (an invalid
    graph is an error, before any cluster call); render mode watches what it renders to."""
    from dynamo_pulumi.verdict.deployability import check_deployable

    check_namespace(args.namespace)
    try:
        timeout = float(parse_duration(getattr(args, "timeout", DEFAULT_TIMEOUT_SECONDS)))
    except ValueError as exc:
        raise InputError(f"--timeout: {exc}") from None
    source = read_input(args.file, args.inline)
    loaded = load_documents(source)
    if not loaded.graphs:
        raise InputError("no DynamoGraphDeployment or DynamoComponentDeployment in the file", loaded.source)
    platform = load_platform(args.platform)
    others = [dict(o) for o in loaded.others]
    return [
        _watched(entry, check_deployable(entry, platform, args.namespace, mode=args.mode, objects=others),
                 source, args, platform, timeout, others)
        for entry in loaded.graphs
    ]


def open_api(args: argparse.Namespace) -> Any:
    """A :class:`ClusterApi` for ``--kubeconfig`` / ``--context`` or the ambient configuration."""
    from dynamo_pulumi.cluster.api import ClusterApi
    from dynamo_pulumi.cluster.connection import Connection, api_client

    return ClusterApi(api_client(Connection(kubeconfig=args.kubeconfig, context=args.context)))


def print_table(request: WaitRequest, status: GraphStatus, reasons: dict[str, str], out: Any = None) -> None:
    """The status block: one header line, then one row per component (with its reason)."""
    out = out or sys.stdout
    verdict = "ready" if status.is_ready else "not ready"
    out.write(f"{request.label}: {verdict} (state {status.state or '-'}, {status.ready.reason or '-'})\n")
    rows = [("COMPONENT", "KIND", "READY", "UPDATED", "DESIRED", "REASON")]
    for state in status.components:
        reason = reasons.get(state.component, "")
        rows.append((state.component, state.kind, f"{state.serving}/{state.desired}", str(state.updated),
                     str(state.desired), reason))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:5])) + "  " + row[5] + "\n")


def print_drift(waiter: Any, graph: WatchedGraph, out: Any = None) -> None:
    """Operator mode: one ``warning:`` line per field where the operator's objects differ from
    the prediction (and per kind that could not be read); nothing when they match. The same
    check as the readiness resource's (:func:`dynamo_pulumi.cluster.drift_check.operator_drift`)."""
    from dynamo_pulumi.cluster.drift_check import operator_drift

    out = out or sys.stdout
    if graph.request.mode == "operator" and not graph.predicted:
        out.write(f"warning: {graph.request.label}: drift not checked: the operator's expansion cannot be "
                  "predicted offline (dynamo-pulumi preview --mode operator says why)\n")
        return
    for line in operator_drift(waiter, graph.predicted).lines():
        out.write(f"warning: {graph.request.label}: drift from the prediction: {line}\n")
