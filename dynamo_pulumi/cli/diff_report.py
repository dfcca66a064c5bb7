"""``diff``'s text and JSON: one :class:`GraphChange` per graph (OLD and NEW paired), printed alike
for YAML files and programs.

Text, per graph: the changed resources (``+``/``~``/``+-``/``-``) with their fields and reasons
(render mode first lists the webhook rules as planned replacements; operator mode lists the custom
resource, then what the operator does to its objects), the worker revision's cause, the GPU
delta, what is deleted before its replacement exists (downtime), and the counts.

JSON (``-o json``)::

    {"changes": [{"graph", "operation", "kind", "type", "name", "object", "component", "paths",
                  "reasons", "deleteBeforeReplace", "managedBy", "gpus"? (workloads whose
                  components' GPUs change: the same objects as in "gpus.components")}],
     "gpus": {"before", "after", "delta", "partial", "components": [{"graph", "component", "before",
              "after", "delta", "resource", "product"?, "cause"?, "waitsFor"?}]},
     "workerRevisions"?: [{"graph", "before", "after", "because"}],
     "plannedReplacements"?: [{"graph", "rule"}],
     "downtime"?: [{"graph", "object"}]}

Keys marked ``?`` are absent when empty; every other field is always filled. A count that depends
on a ``pulumi.Output`` not known at preview is ``"unknown"`` (with ``waitsFor``, the Outputs' spec
paths); totals then sum the known counts and ``partial`` is true (``delta`` ``"unknown"``).
"""

from __future__ import annotations

import json
from typing import Any

from dynamo_pulumi.diff.diffing import MISSING, GraphDiff, ObjectChange
from dynamo_pulumi.diff.gpu_delta import UNKNOWN, ComponentGpus, GpuDelta, change_line, diff_lines
from dynamo_pulumi.diff.mode_diff import ExpansionChange, ModeDiff
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.planning.outputs import WORKLOAD_KINDS
from dynamo_pulumi.planning.plan import GraphPlan
from dynamo_pulumi.planning.settled import UNKNOWN_TEXT, shown
from dynamo_pulumi.planning.unknowns import OutputTable

SYMBOLS = {"create": "+ ", "update": "~ ", "replace": "+-", "delete": "- ", "same": "  "}
MAX_FIELDS = 25
MAX_EXPANSION_PATHS = 10
PLANNED = "planned replacement (render mode; the operator's webhook would refuse this in place)"
SEE_BELOW = "worker revision: see below"


@record(frozen=False)
class GraphChange:
    """One graph, OLD and NEW (either may be missing), as diffed in its mode, with the step of its
    readiness resource (:func:`dynamo_pulumi.readiness.plan_inputs.readiness_changes`)."""

    old: GraphPlan | None
    new: GraphPlan | None
    diff: ModeDiff
    gpus: GpuDelta
    readiness: list[ObjectChange] = field(default_factory=list)

    @property
    def plan(self) -> GraphPlan:
        plan = self.new or self.old
        assert plan is not None, "a graph change has at least one side"
        return plan

    @property
    def kind(self) -> str:
        return self.plan.kind

    @property
    def label(self) -> str:
        return f"{self.plan.namespace}/{self.plan.name}"

    @property
    def changed(self) -> bool:
        diff = self.diff
        if any(c.action != "same" for c in self.readiness):
            return True
        if diff.objects is None:
            cr = diff.custom_resource
            return bool(diff.expansion) or (cr is not None and cr.action != "same")
        return any(c.action != "same" for c in diff.objects.changes)


# --- the GPU delta beside each workload -------------------------------------------------------------


def _gpu_changes(graph: GraphChange) -> dict[str, list[ComponentGpus]]:
    """Owner (a component's Pulumi name, or the graph's name for a PodCliqueSet) -> the GPU
    changes of the components whose pods its workload runs."""
    by_name = {c.component: c for c in graph.gpus.changed}
    owners: dict[str, list[ComponentGpus]] = {}
    for plan in (graph.old, graph.new):
        for component in plan.components if plan is not None else []:
            change = by_name.get(component.name)
            if change is None:
                continue
            for owner in (component.pulumi_name, plan.name):
                if change not in owners.setdefault(owner, []):
                    owners[owner].append(change)
    return owners


def _workload_gpus(kind: str, owner: str, notes: dict[str, list[ComponentGpus]]) -> list[ComponentGpus]:
    return notes.get(owner, []) if kind in WORKLOAD_KINDS else []


# --- text -------------------------------------------------------------------------------------------


def _value(value: Any, tables: tuple[OutputTable, ...] = ()) -> str:
    """A diffed value; one still waiting for a ``pulumi.Output`` is ``(unknown)``, never the
    token or stand-in integer that held its place."""
    if value is MISSING:
        return "<none>"
    value = shown(value, *tables)
    return value if value == UNKNOWN_TEXT else json.dumps(value, sort_keys=True, default=str)


def _tables(graph: GraphChange) -> tuple[OutputTable, ...]:
    return tuple(p.outputs for p in (graph.old, graph.new) if p is not None)


def format_change(
    change: ObjectChange, revision_sentence: str = "", gpus: list[ComponentGpus] | None = None,
    tables: tuple[OutputTable, ...] = (),
) -> list[str]:
    lines = [f"{SYMBOLS[change.action]} {change.action:<8} {change.type} {change.pulumi_name} ({change.object_name})"]
    lines += [f"      GPUs: {change_line(item)}" for item in gpus or []]
    for reason in change.reasons:
        shown = reason.replace(revision_sentence, SEE_BELOW) if revision_sentence else reason
        lines.append(f"      reason: {shown}")
    for item in change.fields[:MAX_FIELDS]:
        lines.append(f"      {item.path}: {_value(item.old, tables)} => {_value(item.new, tables)}")
    if len(change.fields) > MAX_FIELDS:
        lines.append(f"      ... {len(change.fields) - MAX_FIELDS} more fields")
    return lines


def _counts_line(diff: GraphDiff, readiness: list[ObjectChange]) -> str:
    counts = diff.counts()
    for change in readiness:
        counts[change.action] += 1
    return (f"Resources: {counts['create']} to create, {counts['update']} to update, "
            f"{counts['replace']} to replace, {counts['delete']} to delete, {counts['same']} unchanged")


def change_lines(
    diff: GraphDiff, show_all: bool = False, notes: dict[str, list[ComponentGpus]] | None = None,
    tables: tuple[OutputTable, ...] = (),
) -> list[str]:
    lines: list[str] = []
    sentence = diff.revision.sentence() if diff.revision is not None else ""
    for change in diff.changes:
        if change.action != "same" or show_all:
            kind = change.type.rsplit(":", 1)[-1]
            lines.extend(format_change(change, sentence, _workload_gpus(kind, change.owner, notes or {}), tables))
    return lines


def format_diff(diff: GraphDiff, show_all: bool = False) -> str:
    """The changes and the counts of a render-mode diff."""
    return "\n".join([*change_lines(diff, show_all), "\n" + _counts_line(diff, [])])


def readiness_lines(readiness: list[ObjectChange], show_all: bool = False) -> list[str]:
    """The readiness resource's step: an update means ``pulumi up`` waits for the graph again."""
    return [line for change in readiness if change.action != "same" or show_all for line in format_change(change)]


def format_expansion_change(item: ExpansionChange, gpus: list[ComponentGpus] | None = None) -> list[str]:
    lines = [f"{SYMBOLS[item.action]} {item.action:<8} {item.kind} {item.object_name}"]
    lines += [f"      GPUs: {change_line(gpu)}" for gpu in gpus or []]
    lines += [f"      reason: {reason}" for reason in item.reasons]
    if item.action != "update":  # a replacement recreates the whole object: its fields say little
        return lines
    lines += [f"      {path}" for path in item.paths[:MAX_EXPANSION_PATHS]]
    if len(item.paths) > MAX_EXPANSION_PATHS:
        lines.append(f"      ... {len(item.paths) - MAX_EXPANSION_PATHS} more fields (-o json lists them)")
    return lines


def format_operator_diff(
    mode_diff: ModeDiff, show_all: bool = False, notes: dict[str, list[ComponentGpus]] | None = None,
    tables: tuple[OutputTable, ...] = (), readiness: list[ObjectChange] | None = None,
) -> list[str]:
    change = mode_diff.custom_resource
    assert change is not None
    lines = format_change(change, tables=tables) if change.action != "same" or show_all else []
    lines += readiness_lines(readiness or [], show_all)
    lines.append("\nPredicted expansion (created by the operator, not by Pulumi):")
    for item in mode_diff.expansion:
        lines.extend(format_expansion_change(item, _workload_gpus(item.kind, item.owner, notes or {})))
    if not mode_diff.expansion:
        lines.append("  no object changes")
    return lines


def _tail(graph: GraphChange) -> list[str]:
    """Worker revision, GPUs, downtime: what a reviewer wants at a glance."""
    diff = graph.diff
    lines = [""]
    if diff.revision is not None:
        lines.append(diff.revision.sentence()[:1].upper() + diff.revision.sentence()[1:])
    lines += diff_lines(graph.gpus)
    for item in diff.downtime:
        lines.append(f"Downtime: {item} is deleted before its replacement exists; the graph stops serving until it is ready")
    return lines


def format_graph(graph: GraphChange, show_all: bool, several: bool) -> str:
    diff = graph.diff
    lines = [f"=== {graph.kind} {graph.label} ==="] if several else []
    notes = _gpu_changes(graph)
    if diff.objects is None:
        lines += format_operator_diff(diff, show_all, notes, _tables(graph), graph.readiness)
        lines += _tail(graph)
        cr = diff.custom_resource
        assert cr is not None
        waits = "".join(f"; readiness: {c.action}" for c in graph.readiness if c.action != "same")
        lines.append(f"\nCustom resource: {cr.action}{waits}; operator objects: {len(diff.expansion)} to change")
    else:
        lines += [f"{PLANNED}: {rule}" for rule in diff.verdict.replacements]
        lines += change_lines(diff.objects, show_all, notes, _tables(graph))
        lines += readiness_lines(graph.readiness, show_all)
        lines += _tail(graph)
        lines.append("\n" + _counts_line(diff.objects, graph.readiness))
    return "\n".join(lines)


def format_report(graphs: list[GraphChange], show_all: bool = False) -> str:
    several = len(graphs) > 1
    return "\n\n".join(format_graph(g, show_all, several) for g in graphs)


# --- JSON -------------------------------------------------------------------------------------------


def change_json(change: ObjectChange, graph: str) -> dict[str, Any]:
    return {
        "graph": graph,
        "operation": change.action,
        "kind": change.type.rsplit(":", 1)[-1],
        "type": change.type,
        "name": change.pulumi_name,
        "object": change.object_name,
        "component": change.owner,
        "paths": [item.path for item in change.fields],
        "reasons": list(change.reasons),
        "deleteBeforeReplace": change.delete_before_replace,
        "managedBy": "pulumi",
    }


def expansion_json(item: ExpansionChange, graph: str) -> dict[str, Any]:
    return {
        "graph": graph,
        "operation": item.action,
        "kind": item.kind,
        "type": item.type,
        "name": item.name,
        "object": item.object_name,
        "component": item.owner,
        "paths": list(item.paths),
        "reasons": list(item.reasons),
        "deleteBeforeReplace": item.delete_before_replace,
        "managedBy": "operator",
    }


def _with_gpus(entry: dict[str, Any], notes: dict[str, list[ComponentGpus]]) -> dict[str, Any]:
    """A workload's entry gets ``gpus``: the GPU changes of the components it runs (absent when none)."""
    gpus = _workload_gpus(entry["kind"], entry["component"], notes)
    if gpus:
        entry["gpus"] = [gpu.as_json() for gpu in gpus]
    return entry


def _changes_json(graph: GraphChange, show_all: bool) -> list[dict[str, Any]]:
    diff, label, notes = graph.diff, graph.label, _gpu_changes(graph)
    readiness = [change_json(c, label) for c in graph.readiness if c.action != "same" or show_all]
    if diff.objects is not None:
        return [_with_gpus(change_json(c, label), notes) for c in diff.objects.changes
                if c.action != "same" or show_all] + readiness
    cr = diff.custom_resource
    entries = [change_json(cr, label)] if cr is not None and (cr.action != "same" or show_all) else []
    return entries + readiness + [_with_gpus(expansion_json(item, label), notes) for item in diff.expansion]


def _gpus_json(graphs: list[GraphChange]) -> dict[str, Any]:
    components = [{"graph": g.label, **c.as_json()} for g in graphs for c in g.gpus.components]
    before = sum(g.gpus.before for g in graphs)
    after = sum(g.gpus.after for g in graphs)
    partial = any(g.gpus.partial_before or g.gpus.partial_after for g in graphs)
    return {"before": before, "after": after, "delta": UNKNOWN if partial else after - before,
            "partial": partial, "components": components}


def report_json(graphs: list[GraphChange], show_all: bool = False) -> dict[str, Any]:
    document: dict[str, Any] = {
        "changes": [entry for g in graphs for entry in _changes_json(g, show_all)],
        "gpus": _gpus_json(graphs),
    }
    revisions = [{"graph": g.label, **g.diff.revision.as_json()} for g in graphs if g.diff.revision is not None]
    planned = [{"graph": g.label, "rule": str(rule)} for g in graphs if g.diff.objects is not None
               for rule in g.diff.verdict.replacements]
    downtime = [{"graph": g.label, "object": item} for g in graphs for item in g.diff.downtime]
    for key, value in (("workerRevisions", revisions), ("plannedReplacements", planned), ("downtime", downtime)):
        if value:
            document[key] = value
    return document
