"""``dynamo-pulumi status FILE``: the graph's readiness table, read once, without waiting.

Works for a graph deployed by any means (Pulumi, ``kubectl apply`` of ``render``, Argo CD, or
the operator with ``--mode operator``). Exit 0 when every graph in the file is ready, 1 when one
is not; an unreachable cluster, a bad kubeconfig or a missing CRD is a one-line error.

In operator mode the objects the operator created are compared with the expansion predicted
from the file, after the table: one ``warning:`` line per field that differs, or per predicted
object not (yet) created. Drift never changes the exit code.
"""

from __future__ import annotations

import argparse
from typing import Any

from dynamo_pulumi.cli.cluster_common import (
    add_cluster_arguments,
    open_api,
    print_drift,
    print_table,
    watched_graphs,
)
from dynamo_pulumi.cli.common import subcommand_parser


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "status", __doc__)
    add_cluster_arguments(parser, with_timeout=False)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from dynamo_pulumi.cluster.waiter import Waiter

    graphs = watched_graphs(args)  # bad input is refused before any cluster call
    api = open_api(args)
    all_ready = True
    for graph in graphs:
        waiter = Waiter(api, graph.request)
        status = waiter.status()
        print_table(graph.request, status, waiter.reasons(status))
        print_drift(waiter, graph)
        all_ready = all_ready and status.is_ready
    return 0 if all_ready else 1
