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
from dynamo_pulumi.cluster.waiter import Progress, Waiter, read_objects
from dynamo_pulumi.readiness.drift import drift, drift_summary
from dynamo_pulumi.readiness.targets import WaitRequest


def connection_of(props: Mapping[str, Any]) -> Connection:
    return Connection(kubeconfig=props.get("kubeconfig") or None, context=props.get("context") or None)


def open_waiter(props: Mapping[str, Any], request: WaitRequest, progress: Progress | None = None) -> Waiter:
    """A waiter on a fresh client for the connection the inputs name."""
    return Waiter(ClusterApi(api_client(connection_of(props))), request, progress)


def drift_after_wait(waiter: Waiter, predicted: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Operator mode: compare the predicted expansion with what the operator created.

    Logged as a warning, never a failure: the operator is the authority on its own output.
    """
    if waiter.request.mode != "operator" or not predicted:
        return []
    objects = [dict(p) for p in predicted]
    findings = drift(objects, read_objects(waiter.api, objects, waiter.request.namespace))
    if findings:
        import pulumi

        pulumi.log.warn(
            f"{waiter.request.label}: the operator's objects differ from the prediction "
            f"({len(findings)} findings):\n{drift_summary(findings)}"
        )
    return findings
