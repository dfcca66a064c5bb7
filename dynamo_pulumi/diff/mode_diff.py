"""``diff`` per mode: what ``pulumi up`` from OLD to NEW does, with the same verdict as ``validate --old``.

* render mode: the rendered objects are diffed as before (:func:`dynamo_pulumi.diff.diffing.diff_plans`),
  and the operator's update rules OLD -> NEW breaks are listed as planned replacements (they do not
  apply: no DGD is sent, the objects they touch are replaced or updated);
* operator mode: one line for the DGD/DCD custom resource, ``replace`` exactly when the update
  verdict says so (the webhook's words as the reason, or the trigger rule an "immutable once
  set" value newly set changes; delete first: the name is fixed, so the graph stops serving), else
  ``update``/``same``; then what the operator will do to each predicted object: create, update
  (with the changed fields), delete, or replace: every object when the custom resource is
  deleted first (the operator's objects go with it: downtime), a worker object whose name moves
  with the worker revision (the new revision is made before the old goes: no downtime).

Either side may be missing (a program that adds or removes a graph): everything is then created
or deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.diff.diffing import (
    Action,
    GraphDiff,
    ObjectChange,
    diff_plans,
    field_changes,
    plan_revision_change,
    type_token,
    worker_hash_of,
)
from dynamo_pulumi.diff.worker_revision import RevisionChange
from dynamo_pulumi.floor.expansion import without_paths
from dynamo_pulumi.floor.records import field, record, replace
from dynamo_pulumi.planning.operator_mode import (
    custom_resource_document,
    scaled_replica_paths,
)
from dynamo_pulumi.planning.options import ignore_changes
from dynamo_pulumi.planning.plan import ComponentPlan, GraphPlan, stable_name
from dynamo_pulumi.verdict.update import UpdateVerdict

WEBHOOK_REASON = "the operator's update webhook refuses this in place, so the custom resource is replaced"
TRIGGER_REASON = (
    "the replacement trigger changes, so the custom resource is replaced (the webhook would accept "
    "this value set where none was, the trigger cannot tell it from a changed one)"
)
CR_DOWNTIME = (
    "its name is fixed, so the old custom resource is deleted first and the operator deletes every "
    "object of the graph with it (not zero-downtime: the graph stops serving until the operator has "
    "created it again and it is ready)"
)
RECREATED = (
    "the custom resource is deleted first, and the operator's objects with it; the operator creates "
    "this one again (not zero-downtime: it stops serving until the replacement is ready)"
)
NEW_REVISION = (
    "the operator creates the new worker revision and removes the old one once it is ready (no downtime)"
)


@record
class ExpansionChange:
    """One object the operator is predicted to create, change, replace or delete."""

    action: str
    api_version: str
    kind: str
    name: str
    #: The ComponentResource that owns the object's component (the graph for graph-level objects).
    owner: str = ""
    #: The name before, when the worker revision renames it.
    old_name: str = ""
    paths: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    delete_before_replace: bool = False

    @property
    def type(self) -> str:
        return type_token(self.api_version, self.kind)

    @property
    def object_name(self) -> str:
        if self.old_name and self.old_name != self.name:
            return f"{self.old_name} -> {self.name}"
        return self.name


@record(frozen=False)
class ModeDiff:
    mode: str
    verdict: UpdateVerdict
    objects: GraphDiff | None = None
    custom_resource: ObjectChange | None = None
    expansion: list[ExpansionChange] = field(default_factory=list)
    revision: RevisionChange | None = None

    @property
    def downtime(self) -> list[str]:
        """What is deleted before its replacement exists (the graph, or part of it, stops serving)."""
        changes: list[Any] = [self.custom_resource] if self.custom_resource is not None else []
        changes += self.objects.changes if self.objects is not None else []
        return [f"{c.type} {c.object_name}" for c in changes if c.action == "replace" and c.delete_before_replace]


# --- the operator's objects ------------------------------------------------------------------------


@record
class _Predicted:
    document: Mapping[str, Any]
    owner: str
    #: Created once per namespace without an owner (planner RBAC): outlives the custom resource.
    shared: bool = False


def _prediction(plan: GraphPlan | None) -> dict[tuple[str, str, str], _Predicted]:
    """The predicted objects (as :func:`dynamo_pulumi.floor.expansion.plan_prediction` digests them)
    keyed by kind, apiVersion and name without the worker hash, with their owner."""
    if plan is None or plan.mode != "operator":
        return {}
    worker_hash = worker_hash_of(plan)
    predicted: list[_Predicted] = []
    for component in plan.components:
        if component.dcd is not None:
            scaled = ["spec.replicas"] if component.scaling_adapter else []
            predicted.append(_Predicted(without_paths(component.dcd, scaled), component.pulumi_name))
    owners: list[ComponentPlan | None] = [None, *plan.components]
    for owner_plan in owners:
        owned = plan.graph_objects if owner_plan is None else owner_plan.objects
        owner = plan.name if owner_plan is None else owner_plan.pulumi_name
        predicted += [
            _Predicted(without_paths(p.obj, ignore_changes(p, plan, owner_plan)), owner, p.shared) for p in owned
        ]
    keyed = {}
    for entry in predicted:
        name = _name(entry)
        key = (str(entry.document.get("kind", "")), str(entry.document.get("apiVersion", "")), stable_name(name, worker_hash))
        keyed[key] = entry
    return keyed


def _name(predicted: _Predicted) -> str:
    return str((predicted.document.get("metadata") or {}).get("name", ""))


def _kept_change(key: tuple[str, str, str], old: _Predicted, new: _Predicted, cr_replaced: bool) -> ExpansionChange | None:
    kind, api_version, _ = key
    paths = tuple(c.path for c in field_changes(old.document, new.document))
    change = ExpansionChange("update", api_version, kind, _name(new), new.owner, _name(old), paths)
    if cr_replaced and not new.shared:
        return replace(change, action="replace", reasons=(RECREATED,), delete_before_replace=True)
    if _name(old) != _name(new):
        return replace(change, action="replace", reasons=(NEW_REVISION,))
    return change if paths else None


def expansion_changes(old: GraphPlan | None, new: GraphPlan | None, cr_replaced: bool = False) -> list[ExpansionChange]:
    """What the operator does to each predicted object from OLD to NEW (unchanged ones left out)."""
    before, after = _prediction(old), _prediction(new)
    changes = []
    for key in sorted(set(before) | set(after)):
        kind, api_version, _ = key
        if key not in before:
            changes.append(ExpansionChange("create", api_version, kind, _name(after[key]), after[key].owner))
        elif key not in after:
            changes.append(ExpansionChange("delete", api_version, kind, _name(before[key]), before[key].owner))
        else:
            change = _kept_change(key, before[key], after[key], cr_replaced)
            if change is not None:
                changes.append(change)
    return changes


# --- the custom resource ----------------------------------------------------------------------------


def _cr_type(plan: GraphPlan) -> str:
    document = custom_resource_document(plan)
    return type_token(document["apiVersion"], document["kind"])


def custom_resource_change(old: GraphPlan | None, new: GraphPlan | None, verdict: UpdateVerdict) -> ObjectChange:
    """The DGD/DCD custom resource's line: create, delete, replace, update or same."""
    shown = new or old
    assert shown is not None, "a diff needs at least one side"
    name, type_ = f"{shown.namespace}/{shown.name}", _cr_type(shown)
    if old is None or new is None:
        action: Action = "create" if old is None else "delete"
        return ObjectChange(action, type_, name, shown.name, old.name if old else "", new.name if new else "")
    before, after = custom_resource_document(old), custom_resource_document(new)
    fields = field_changes(before, after, scaled_replica_paths(new))
    change = ObjectChange("same", type_, name, new.name, old.name, new.name, fields)
    if verdict.replaces_custom_resource:
        change.action = "replace"
        change.reasons = [f"{WEBHOOK_REASON}: {rule}" for rule in verdict.replacements] + [
            f"{TRIGGER_REASON}: {rule}" for rule in verdict.trigger_rules
        ] + [CR_DOWNTIME]
        change.delete_before_replace = True
    elif fields:
        change.action = "update"
    return change


def diff_for_mode(old: GraphPlan | None, new: GraphPlan | None, verdict: UpdateVerdict) -> ModeDiff:
    """OLD -> NEW in the verdict's mode; either plan may be None (a graph added or removed)."""
    revision = plan_revision_change(old, new) if old is not None and new is not None else None
    if verdict.mode == "operator":
        custom_resource = custom_resource_change(old, new, verdict)
        replaced = custom_resource.action == "replace"
        return ModeDiff("operator", verdict, custom_resource=custom_resource,
                        expansion=expansion_changes(old, new, replaced), revision=revision)
    return ModeDiff("render", verdict, objects=diff_plans(old, new), revision=revision)
