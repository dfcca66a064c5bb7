"""``diff`` per mode: what ``pulumi up`` from OLD to NEW does, with the same verdict as ``validate --old``.

* render mode: the rendered objects are diffed as before (:func:`dynamo_pulumi.diffing.diff_plans`),
  and the operator's update rules OLD -> NEW breaks are listed as planned replacements (they do not
  apply: no DGD is sent, the objects they touch are replaced or updated);
* operator mode: one line for the DGD/DCD custom resource, ``replace`` exactly when the update
  verdict says so (the webhook's words as the reason, or the trigger rule an "immutable once
  set" value newly set changes; delete first: the name is fixed), else
  ``update``/``same``; then which predicted objects the operator will create, change or delete
  (by digest, :mod:`dynamo_pulumi.expansion`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dynamo_pulumi.diffing import GraphDiff, ObjectChange, diff_plans, field_changes, type_token
from dynamo_pulumi.expansion import ExpansionEntry
from dynamo_pulumi.planning.operator_mode import (
    custom_resource_document,
    operator_expansion,
    scaled_replica_paths,
)
from dynamo_pulumi.planning.plan import GraphPlan
from dynamo_pulumi.validation.update_verdict import UpdateVerdict

WEBHOOK_REASON = "the operator's update webhook refuses this in place, so the custom resource is replaced"
TRIGGER_REASON = (
    "the replacement trigger changes, so the custom resource is replaced (the webhook would accept "
    "this value set where none was, the trigger cannot tell it from a changed one)"
)


@dataclass(frozen=True)
class ExpansionChange:
    """One object the operator is predicted to create, change or delete."""

    action: str
    api_version: str
    kind: str
    name: str


@dataclass
class ModeDiff:
    mode: str
    verdict: UpdateVerdict
    objects: GraphDiff | None = None
    custom_resource: ObjectChange | None = None
    expansion: list[ExpansionChange] = field(default_factory=list)


def expansion_changes(old: list[ExpansionEntry], new: list[ExpansionEntry]) -> list[ExpansionChange]:
    """Created, changed (digest differs) and deleted objects between two predicted expansions."""
    def keyed(entries: list[ExpansionEntry]) -> dict[tuple[str, str, str], str]:
        return {(e["kind"], e["name"], e["apiVersion"]): e["digest"] for e in entries}

    before, after = keyed(old), keyed(new)
    changes = []
    for key in sorted(set(before) | set(after)):
        if key not in before:
            action = "create"
        elif key not in after:
            action = "delete"
        elif before[key] != after[key]:
            action = "update"
        else:
            continue
        changes.append(ExpansionChange(action, key[2], key[0], key[1]))
    return changes


def custom_resource_change(old: GraphPlan, new: GraphPlan, verdict: UpdateVerdict) -> ObjectChange:
    """The DGD/DCD custom resource's line: replace, update or same."""
    before, after = custom_resource_document(old), custom_resource_document(new)
    fields = field_changes(before, after, scaled_replica_paths(new))
    change = ObjectChange("same", type_token(after["apiVersion"], after["kind"]), f"{new.namespace}/{new.name}",
                          new.name, old.name, new.name, fields)
    if verdict.replaces_custom_resource:
        change.action = "replace"
        change.reasons = [f"{WEBHOOK_REASON}: {rule}" for rule in verdict.replacements] + [
            f"{TRIGGER_REASON}: {rule}" for rule in verdict.trigger_rules
        ]
        change.delete_before_replace = True
    elif fields:
        change.action = "update"
    return change


def diff_for_mode(old: GraphPlan, new: GraphPlan, verdict: UpdateVerdict) -> ModeDiff:
    if verdict.mode == "operator":
        return ModeDiff(
            "operator",
            verdict,
            custom_resource=custom_resource_change(old, new, verdict),
            expansion=expansion_changes(operator_expansion(old), operator_expansion(new)),
        )
    return ModeDiff("render", verdict, objects=diff_plans(old, new))
