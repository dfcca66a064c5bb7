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
* the revision digests the views without what an autoscaler owns (the ``ignore_changes`` paths:
  a scaling adapter's replicas move in the cluster, and a refresh must not make the next ``up``
  wait again) and without metadata (annotations such as ``pulumi.com/`` directives, or the
  ``deployment.kubernetes.io/revision`` the controller writes, change nothing that runs).

Typed children's outputs come back with snake_case keys (``match_labels``); the digest only needs
to be stable, and the targets read only names, namespaces and Grove's custom-resource spec,
which keeps its keys. Every apply returns a small result (targets, a digest), never the objects:
the SDK lifts what an apply returns into Outputs member by member (:func:`_observed`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from dynamo_pulumi.expansion import json_digest
from dynamo_pulumi.planning.plan import PlannedObject
from dynamo_pulumi.readiness.targets import is_workload, operator_targets, render_targets
from dynamo_pulumi.wire_numbers import as_written

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+|\*)\]")


@dataclass(frozen=True)
class Registered:
    """One planned object and the resource registered for it (with its ``ignore_changes``)."""

    planned: PlannedObject
    resource: pulumi.CustomResource
    ignore_changes: tuple[str, ...] = field(default_factory=tuple)


def plain(value: Any) -> Any:
    """An output value as plain JSON data: typed output objects (``dict`` subclasses whose
    properties may shadow ``dict`` methods: ``values``, ``items``) as dicts, whole numbers as
    integers."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in dict.items(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return as_written(value)


def without(obj: Any, path: str) -> Any:
    """``obj`` with the value at a property path (``a.b[0].c``, ``[*]`` for every item) removed."""
    steps = [name if name else (index if index == "*" else int(index)) for name, index in _STEP.findall(path)]

    def drop(node: Any, rest: list[Any]) -> Any:
        if not rest:
            return node
        step, tail = rest[0], rest[1:]
        if isinstance(node, Mapping) and isinstance(step, str) and step in node:
            if not tail:
                return {k: v for k, v in node.items() if k != step}
            return {**node, step: drop(node[step], tail)}
        if isinstance(node, list) and step == "*":
            return [drop(item, tail) for item in node] if tail else []
        if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            if not tail:
                return [item for i, item in enumerate(node) if i != step]
            return [drop(item, tail) if i == step else item for i, item in enumerate(node)]
        return node

    return drop(obj, steps)


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


def _digested(view: Mapping[str, Any], entry: Registered) -> dict[str, Any]:
    """What the revision digests of one view: kind, name, namespace and the spec without the
    paths an autoscaler owns."""
    spec = view["spec"]
    for path in entry.ignore_changes:
        if path.startswith("spec."):
            spec = without(spec, path[len("spec."):])
    meta = view["metadata"]
    return {"apiVersion": view["apiVersion"], "kind": view["kind"],
            "metadata": {"name": meta["name"], "namespace": meta["namespace"]}, "spec": spec}


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
            return targets_of(view), json_digest(_digested(view, entry))

        return resource.spec.apply(with_spec)

    return resource.metadata.apply(with_metadata)


def _merged(observed: Sequence[Observed]) -> Observed:
    return [t for targets, _ in observed for t in targets], json_digest([digest for _, digest in observed])


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
