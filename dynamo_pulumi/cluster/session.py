"""Glue between the readiness resource's inputs and a live :class:`Waiter`.

Kept apart from :mod:`.provider` so that module stays importable (and picklable by reference)
without importing the Kubernetes client: the client is built here, per call, from the
``kubeconfig`` / ``context`` inputs or the ambient configuration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dynamo_pulumi.cluster.api import ClusterApi
from dynamo_pulumi.cluster.connection import Connection, api_client
from dynamo_pulumi.cluster.drift_check import operator_drift
from dynamo_pulumi.cluster.waiter import Progress, Waiter
from dynamo_pulumi.readiness.drift import drift_summary
from dynamo_pulumi.readiness.targets import WaitRequest


def connection_of(props: Mapping[str, Any]) -> Connection:
    return Connection(kubeconfig=props.get("kubeconfig") or None, context=props.get("context") or None)


def open_waiter(props: Mapping[str, Any], request: WaitRequest, progress: Progress | None = None,
                deadline_by: str = "") -> Waiter:
    """A waiter on a fresh client for the connection the inputs name (``deadline_by``: see
    :class:`Waiter`)."""
    return Waiter(ClusterApi(api_client(connection_of(props))), request, progress, deadline_by=deadline_by)


def drift_after_wait(waiter: Waiter, predicted: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Operator mode: compare the predicted expansion with what the operator created
    (:func:`operator_drift`, the function ``dynamo-pulumi wait|status`` use too).

    Logged as a warning, never a failure: the operator is the authority on its own output.
    Returns the findings (the readiness resource's ``drift`` output).
    """
    report = operator_drift(waiter, predicted)
    if report.findings or report.unread:
        import pulumi

        text = drift_summary(report.findings)
        lines = [text] if text else []
        pulumi.log.warn(
            f"{waiter.request.label}: the operator's objects differ from the prediction "
            f"({len(report.findings)} findings):\n" + "\n".join([*lines, *report.unread])
        )
    return report.findings
