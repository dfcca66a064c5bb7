"""Operator mode's drift check: read back every object of the predicted expansion and compare.

One function, :func:`operator_drift`, serves both front ends: the readiness provider (after
its wait, for the ``drift`` output and a ``pulumi.log.warn``) and ``dynamo-pulumi wait|status
--mode operator`` (``warning:`` lines after the status). The comparison itself is the pure
:func:`dynamo_pulumi.readiness.drift.drift`; this module only does the reading.

Drift is a warning, never a failure: the operator is the authority on its own output. So a
kind that cannot be read (RBAC refuses it, the connection drops) is reported as one line,
"not compared", and the others are still compared; an object (or a kind) the API server does
not have is one the operator did not create (the pure check reports it as such).

Reading is one LIST per kind (and namespace), matched by name: the request count does not grow
with the number of components (``bench/bench_drift.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dynamo_pulumi.cluster.api import ApiFailure, ClusterApi, ResourceRef
from dynamo_pulumi.cluster.waiter import Waiter
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.readiness.drift import ObjectId, drift, drift_line, object_id


@record
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


def _by_name(listed: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {str((item.get("metadata") or {}).get("name", "")): item for item in listed.get("items") or []}


def _read_kind(api: ClusterApi, ref: ResourceRef, namespace: str, names: Sequence[str]) -> dict[str, dict[str, Any] | None]:
    """The named objects of one kind: one LIST (a constant number of requests per kind, however
    many workers the graph has); where RBAC allows ``get`` but not ``list``, one GET per object.
    A kind the API server does not serve (404: its CRD is not installed) has none of them."""
    try:
        live = _by_name(api.list(ref, namespace))
    except ApiFailure as failure:
        if failure.status == 404:
            return dict.fromkeys(names)
        if failure.status != 403:
            raise
        return {name: api.get(ref, namespace, name) for name in names}
    return {name: live.get(name) for name in names}


def read_predicted(
    api: ClusterApi, objects: Iterable[Mapping[str, Any]], namespace: str
) -> tuple[dict[ObjectId, dict[str, Any] | None], dict[ResourceRef, str]]:
    """The live object of each predicted one (None when absent), read per kind and namespace;
    a kind that cannot be read is named in the second mapping instead."""
    wanted: dict[tuple[ResourceRef, str], list[str]] = {}
    for obj in objects:
        api_version, kind, name = object_id(obj)
        ns = str((obj.get("metadata") or {}).get("namespace") or namespace)
        wanted.setdefault((ResourceRef(api_version, kind), ns), []).append(name)
    found: dict[ObjectId, dict[str, Any] | None] = {}
    unread: dict[ResourceRef, str] = {}
    for (ref, ns), names in wanted.items():
        if ref in unread:
            continue
        try:
            live = _read_kind(api, ref, ns, names)
        except ApiFailure as failure:
            unread[ref] = _unread_line(ref, failure)
            continue
        found.update({(ref.api_version, ref.kind, name): obj for name, obj in live.items()})
    return found, unread


def operator_drift(waiter: Waiter, predicted: Sequence[Mapping[str, Any]]) -> DriftReport:
    """The drift report of an operator-mode graph (empty in render mode or without a prediction)."""
    if waiter.request.mode != "operator" or not predicted:
        return DriftReport()
    objects = [dict(p) for p in predicted]
    actual, unread = read_predicted(waiter.api, objects, waiter.request.namespace)
    compared = [o for o in objects if ResourceRef(*object_id(o)[:2]) not in unread]
    return DriftReport(drift(compared, actual), list(unread.values()))
