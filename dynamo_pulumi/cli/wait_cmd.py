"""``dynamo-pulumi wait FILE``: block until the deployed graph serves, printing progress.

Watches the graph's workloads (``--mode render``, the default: what ``pulumi up`` or
``kubectl apply`` of ``render`` created) or its DGD/DCD custom resource (``--mode operator``)
and prints one line per component whose state changes: ready/desired and why not. Exit 0 when
ready; exit 1 on timeout (``--timeout``, default 60m) or when the operator reports ``failed``,
with one line per unready component and the reason read from its pods and events. An
unreachable cluster, a bad kubeconfig, RBAC refusal or a missing CRD is a one-line error. A
flaky API server (429, 5xx, truncated answers, 410 on every resume) is retried with backoff
within the deadline; a hung one ends the wait at its deadline. Ctrl-C exits 130, SIGTERM 143.

In operator mode, once the graph is ready, the objects the operator created are compared with
the expansion predicted from the file: one ``warning:`` line per field that differs (the exit
code stays 0: drift is a warning, never a failure).
"""

from __future__ import annotations

import argparse
from typing import Any

from dynamo_pulumi.cli.cluster_common import add_cluster_arguments, open_api, print_drift, watched_graphs
from dynamo_pulumi.cli.common import subcommand_parser


def add_parser(subparsers: Any) -> None:
    parser = subcommand_parser(subparsers, "wait", __doc__)
    add_cluster_arguments(parser, with_timeout=True)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from dynamo_pulumi.cluster.waiter import Waiter

    graphs = watched_graphs(args)  # bad input is refused before any cluster call
    api = open_api(args)
    for graph in graphs:
        request = graph.request

        def progress(line: str, label: str = request.label) -> None:
            print(f"{label}: {line}", flush=True)

        waiter = Waiter(api, request, progress)
        status = waiter.wait()
        print(f"{request.label} is ready ({status.ready.reason})", flush=True)
        print_drift(waiter, graph)
    return 0
