"""What readiness watches, read from the children as the engine registered them.

A transformation changes a child after we planned it: ``transformations=[...]`` run in the SDK
when the child is constructed, ``transforms=[...]`` (and stack transforms) run in the engine
before it registers the child. A registry-mirror transform that rewrites every image changes
what rolls out; a wait computed from the plan would not see it. So the readiness resource's
``targets`` (names, namespaces, Grove cliques) and ``revision`` (what is deployed) are computed
from the workload children's outputs, the objects as registered (after a create or update the
provider's outputs are the object as applied), never from the plan:

* a workload's view is its kind (fixed by its type), its ``metadata.name`` and
  ``metadata.namespace``, and its ``spec``, all as output; the component it realises comes from
  the plan (a transformation does not move a workload to another component);
* the revision digests the views as :func:`~dynamo_pulumi.readiness.plan_inputs.workload_digest`
  does the plan's (``dynamo-pulumi diff`` predicts it from the plan): without what an autoscaler
  owns (the ``ignore_changes`` paths: a scaling adapter's replicas move in the cluster, and a
  refresh must not make the next ``up`` wait again) and without metadata (annotations such as
  ``pulumi.com/`` directives, or the ``deployment.kubernetes.io/revision`` the controller writes,
  change nothing that runs).

Typed children's outputs are output types keyed by Python names (``match_labels``); :func:`plain`
reads them back under their wire names (``matchLabels``), the object as the plan wrote it. Every
apply returns a small result (targets, a digest), never the objects: the SDK lifts what an apply
returns into Outputs member by member (:func:`_observed`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pulumi
from pulumi._types import is_output_type, output_type_to_dict

from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.floor.wire_numbers import as_written
from dynamo_pulumi.planning.plan import PlannedObject
from dynamo_pulumi.readiness.plan_inputs import revision_of, workload_digest
from dynamo_pulumi.readiness.targets import is_workload, operator_targets, render_targets


@record
class Registered:
    """One planned object and the resource registered for it (with its ``ignore_changes``)."""

    planned: PlannedObject
    resource: pulumi.CustomResource
    ignore_changes: tuple[str, ...] = field(default_factory=tuple)


def plain(value: Any) -> Any:
    """An output value as plain JSON data: typed output objects (``dict`` subclasses keyed by
    Python names, whose properties may shadow ``dict`` methods: ``values``, ``items``) as dicts
    keyed by their wire names, whole numbers as integers."""
    if is_output_type(type(value)):
        return plain(output_type_to_dict(value))
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in dict.items(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return as_written(value)


def _view(entry: Registered, metadata: Any, spec: Any) -> dict[str, Any]:
    """The workload as registered: its kind, name and namespace (none: the graph's, where the
    targets put it), its planned labels (which component it realises) and its registered spec."""
    meta = dict(metadata or {})
    planned_meta = entry.planned.obj.get("metadata") or {}
    return {
        "apiVersion": entry.planned.api_version,
        "kind": entry.planned.kind,
        "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace"),
                     "labels": dict(planned_meta.get("labels") or {})},
        "spec": spec or {},
    }


def workloads(registered: Sequence[Registered]) -> list[Registered]:
    """The entries readiness decides by (component workloads and PodCliqueSets)."""
    return [entry for entry in registered if is_workload(entry.planned.obj)]


#: What one registered object yields: its watch targets and the digest of what it deploys.
Observed = tuple[list[dict[str, str]], str]


def _observed(entry: Registered, targets_of: Callable[[dict[str, Any]], list[dict[str, str]]]) -> pulumi.Output[Observed]:
    """One object's targets and digest, read from its ``metadata`` and ``spec`` outputs.

    Each apply returns only this small pair: the SDK lifts whatever an apply (or ``Output.all``)
    returns into Outputs, member by member, which for whole pod templates costs more than the
    rest of the program, and trips over typed outputs (a ``LabelSelectorRequirement``'s
    ``values`` property hides ``dict.values``). The apply inside an apply reads both values
    without lifting either."""
    resource: Any = entry.resource  # metadata/spec: every Kubernetes resource class has them

    def with_metadata(metadata: Any) -> pulumi.Output[Observed]:
        def with_spec(spec: Any) -> Observed:
            view = _view(entry, plain(metadata), plain(spec))
            return targets_of(view), workload_digest(view, entry.ignore_changes)

        return resource.spec.apply(with_spec)

    return resource.metadata.apply(with_metadata)


def _merged(observed: Sequence[Observed]) -> Observed:
    return [t for targets, _ in observed for t in targets], revision_of([digest for _, digest in observed])


def _split(merged: pulumi.Output[Observed]) -> tuple[pulumi.Output[list[dict[str, str]]], pulumi.Output[str]]:
    return merged.apply(lambda m: m[0]), merged.apply(lambda m: m[1])


def targets_and_revision(
    registered: Sequence[Registered], namespace: str
) -> tuple[pulumi.Output[list[dict[str, str]]], pulumi.Output[str]]:
    """The readiness inputs ``targets`` and ``revision`` of the registered workloads (in plan
    order; the revision digests each workload's digest)."""
    def targets_of(view: dict[str, Any]) -> list[dict[str, str]]:
        return [t.as_input() for t in render_targets([view], namespace)]

    observed = [_observed(entry, targets_of) for entry in workloads(registered)]
    return _split(pulumi.Output.all(*observed).apply(_merged))


def custom_resource_inputs(
    entry: Registered, kind: str
) -> tuple[pulumi.Output[list[dict[str, str]]], pulumi.Output[str]]:
    """Operator mode: the readiness ``targets`` (the custom resource itself) and ``revision``
    (its spec) of the DGD/DCD as registered."""
    def targets_of(view: dict[str, Any]) -> list[dict[str, str]]:
        meta = view["metadata"]
        return [t.as_input() for t in operator_targets(kind, str(meta["name"]), str(meta["namespace"]))]

    return _split(_observed(entry, targets_of).apply(lambda one: _merged([one])))
