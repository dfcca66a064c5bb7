"""What ``dynamo-pulumi wait`` and ``status`` share: cluster flags and the file -> wait request step.

The graph file is loaded and admitted exactly as ``validate`` does; in render mode it is rendered
to find the workloads to watch (the same names ``pulumi up`` created), in operator mode the
DGD/DCD custom resource itself is watched. The Kubernetes client is imported only here, when
one of these two commands runs (``validate``/``render`` never load it).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.cli.common import add_common, add_mode, read_input
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.kube_names import check_namespace
from dynamo_pulumi.loading import LoadedObject, load_documents
from dynamo_pulumi.platform import load_platform
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
    from dynamo_pulumi.verdict import Verdict


def add_cluster_arguments(parser: argparse.ArgumentParser, with_timeout: bool) -> None:
    parser.add_argument("file", help="YAML file holding the DGD or DCD that was deployed ('-': stdin)")
    add_common(parser)
    add_mode(parser)
    parser.add_argument("--kubeconfig", default=None, help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
    parser.add_argument("--context", default=None, help="kubeconfig context (default: its current context)")
    if with_timeout:
        parser.add_argument("--timeout", default=f"{DEFAULT_TIMEOUT_SECONDS // 60}m",
                            help="how long to wait, e.g. 30m, 1h30m, 90s (default: 60m)")


def _request(verdict: Verdict, loaded: LoadedObject, args: argparse.Namespace, timeout: float) -> WaitRequest:
    graph = loaded.object
    namespace = args.namespace or graph.metadata.namespace or "default"
    component = (getattr(graph.spec, "name", None) or graph.name) if graph.kind == DCD_KIND else ""
    if args.mode == "operator":
        targets = operator_targets(graph.kind, graph.name, namespace)
    else:
        assert verdict.rendered is not None  # render mode: a deployable graph carries its rendering
        targets = render_targets(verdict.rendered.objects, namespace)
    return WaitRequest(mode=args.mode, kind=graph.kind, graph=graph.name, namespace=namespace, targets=tuple(targets),
                       timeout_seconds=timeout, pod_selector=pod_selector(graph.kind, graph.name, component))


def wait_requests(args: argparse.Namespace) -> list[WaitRequest]:
    """One request per DGD/DCD in the file, judged first as ``validate`` judges it (an invalid
    graph is an error, before any cluster call); render mode watches what it renders to."""
    from dynamo_pulumi.verdict import check_deployable

    check_namespace(args.namespace)
    try:
        timeout = float(parse_duration(getattr(args, "timeout", DEFAULT_TIMEOUT_SECONDS)))
    except ValueError as exc:
        raise InputError(f"--timeout: {exc}") from None
    loaded = load_documents(read_input(args.file, args.inline))
    if not loaded.graphs:
        raise InputError("no DynamoGraphDeployment or DynamoComponentDeployment in the file", loaded.source)
    platform = load_platform(args.platform)
    return [
        _request(
            check_deployable(entry, platform, args.namespace, mode=args.mode, objects=loaded.others),
            entry, args, timeout,
        )
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
