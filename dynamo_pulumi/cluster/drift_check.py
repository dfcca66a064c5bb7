"""Operator mode's drift check: read back every object of the predicted expansion and compare.

One function, :func:`operator_drift`, serves both front ends: the readiness provider (after
its wait, for the ``drift`` output and a ``pulumi.log.warn``) and ``dynamo-pulumi wait|status
--mode operator`` (``warning:`` lines after the status). The comparison itself is the pure
:func:`dynamo_pulumi.readiness.drift.drift`; this module only does the reading.

Drift is a warning, never a failure: the operator is the authority on its own output. So a
kind that cannot be read (RBAC refuses it, the connection drops) is reported as one line,
"not compared", and the others are still compared; a 404 is an object the operator did not
create (the pure check reports it as such).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dynamo_pulumi.cluster.api import ApiFailure, ClusterApi, ResourceRef
from dynamo_pulumi.cluster.waiter import Waiter
from dynamo_pulumi.readiness.drift import ObjectId, drift, drift_line, object_id


@dataclass(frozen=True)
class DriftReport:
    """Where the operator's objects differ from the prediction, and what could not be read."""

    #: ``{object, path, predicted, actual}`` per difference (the readiness resource's ``drift``).
    findings: list[dict[str, Any]] = field(default_factory=list)
    #: One line per kind that could not be read, so was not compared.
    unread: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per drifted field, then one per kind not compared."""
        return [*(drift_line(f) for f in self.findings), *self.unread]


def _unread_line(ref: ResourceRef, failure: ApiFailure) -> str:
    why = failure.message if failure.status == 0 else f"HTTP {failure.status}: {failure.message}"
    return f"{ref}: not compared, cannot be read ({why})"


def read_predicted(
    api: ClusterApi, objects: Iterable[Mapping[str, Any]], namespace: str
) -> tuple[dict[ObjectId, dict[str, Any] | None], dict[ResourceRef, str]]:
    """GET each predicted object (None when absent); a kind whose read fails is given up after
    its first failure and named in the second mapping."""
    found: dict[ObjectId, dict[str, Any] | None] = {}
    unread: dict[ResourceRef, str] = {}
    for obj in objects:
        key = object_id(obj)
        ref = ResourceRef(key[0], key[1])
        if ref in unread:
            continue
        ns = str((obj.get("metadata") or {}).get("namespace") or namespace)
        try:
            found[key] = api.get(ref, ns, key[2])
        except ApiFailure as failure:
            unread[ref] = _unread_line(ref, failure)
    return found, unread


def operator_drift(waiter: Waiter, predicted: Sequence[Mapping[str, Any]]) -> DriftReport:
    """The drift report of an operator-mode graph (empty in render mode or without a prediction)."""
    if waiter.request.mode != "operator" or not predicted:
        return DriftReport()
    objects = [dict(p) for p in predicted]
    actual, unread = read_predicted(waiter.api, objects, waiter.request.namespace)
    compared = [o for o in objects if ResourceRef(*object_id(o)[:2]) not in unread]
    return DriftReport(drift(compared, actual), list(unread.values()))
