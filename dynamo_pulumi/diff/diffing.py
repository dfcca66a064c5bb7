"""Offline diff of two graph plans: what ``pulumi up`` would do to each object, and why.

Objects are matched by what Pulumi matches on, the resource type and the stable Pulumi name
(see :mod:`dynamo_pulumi.planning.plan`). For each pair we compare the objects field by field,
drop what ``ignore_changes`` hides (replicas owned by an autoscaler), then decide:

* ``replace`` when a changed field can never change in place: ``metadata.name`` (the worker hash
  moved: the new workload is created *before* the old one is deleted), a field the provider
  force-replaces on for built-in kinds, or one of our ``replace_on_changes`` rules (then, as the
  name stays, the old object is deleted first);
* ``update`` for any other change; ``same`` when nothing changed;
* ``create`` / ``delete`` for objects only on one side.

The ComponentResources themselves (one DCD per component) appear as create/delete/same too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.diff.worker_revision import RevisionChange, revision_change
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.planning.options import IDENTITY_PATHS, ignore_changes, rules_for
from dynamo_pulumi.planning.plan import ComponentPlan, GraphPlan, PlannedObject
from dynamo_pulumi.planning.tokens import DCD_TYPE
from dynamo_pulumi.render.worker_hash import compute_worker_hash

Action = Literal["create", "update", "replace", "delete", "same"]
ACTIONS: tuple[Action, ...] = ("create", "update", "replace", "delete", "same")


class _Missing:
    def __repr__(self) -> str:
        return "<none>"


MISSING: Any = _Missing()
_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@record
class FieldChange:
    path: str
    old: Any
    new: Any


@record(frozen=False)
class ObjectChange:
    """One line of the diff: an action on one resource, with its field changes."""

    action: Action
    type: str
    pulumi_name: str
    owner: str
    old_name: str = ""
    new_name: str = ""
    fields: list[FieldChange] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    delete_before_replace: bool = False

    @property
    def object_name(self) -> str:
        if self.old_name and self.new_name and self.old_name != self.new_name:
            return f"{self.old_name} -> {self.new_name}"
        return self.new_name or self.old_name


@record(frozen=False)
class GraphDiff:
    changes: list[ObjectChange]
    #: Why the worker hash moved (None when it did not).
    revision: RevisionChange | None = None

    def counts(self) -> dict[str, int]:
        return {a: sum(1 for c in self.changes if c.action == a) for a in ACTIONS}

    def find(self, type_suffix: str, pulumi_name: str) -> ObjectChange:
        return next(c for c in self.changes if c.type.endswith(type_suffix) and c.pulumi_name == pulumi_name)


# --- paths ------------------------------------------------------------------------------------------


def type_token(api_version: str, kind: str) -> str:
    """The pulumi-kubernetes type token (``kubernetes:apps/v1:Deployment``, core group as ``core``)."""
    group, _, version = api_version.rpartition("/")
    return f"kubernetes:{group or 'core'}/{version}:{kind}"


def _join(prefix: str, key: str) -> str:
    if _SIMPLE_KEY.match(key):
        return f"{prefix}.{key}" if prefix else key
    return f'{prefix}["{key}"]'


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Leaf path -> value, in Pulumi property-path syntax (empty containers are leaves)."""
    if isinstance(value, Mapping) and value:
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten(item, _join(prefix, str(key))))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, item in enumerate(value):
            out.update(flatten(item, f"{prefix}[{i}]"))
        return out
    return {prefix: value}


_SEGMENT = re.compile(r'\["([^"]*)"\]|\[(\d+|\*)\]|([^.\[\]]+)')


def segments(path: str) -> list[str]:
    return [m.group(1) or m.group(2) or m.group(3) for m in _SEGMENT.finditer(path)]


def path_matches(pattern: str, path: str) -> bool:
    """True when ``path`` lies under ``pattern`` or contains it (``[*]`` matches any index)."""
    wanted, actual = segments(pattern), segments(path)
    return all(w == "*" or w == a for w, a in zip(wanted, actual, strict=False))


def _under(path: str, pattern: str) -> bool:
    wanted, actual = segments(pattern), segments(path)
    return len(actual) >= len(wanted) and path_matches(pattern, path)


# --- comparing one object ---------------------------------------------------------------------------


def field_changes(old: Mapping[str, Any], new: Mapping[str, Any], ignored: Iterable[str] = ()) -> list[FieldChange]:
    before, after = flatten(old), flatten(new)
    ignored = list(ignored)
    changes = []
    for path in sorted(set(before) | set(after), key=lambda p: (segments(p), p)):
        a, b = before.get(path, MISSING), after.get(path, MISSING)
        if a == b and type(a) is type(b):
            continue
        if any(_under(path, pattern) for pattern in ignored):
            continue
        changes.append(FieldChange(path, a, b))
    return changes


def _replace_reasons(
    planned: PlannedObject, changes: list[FieldChange], revision: RevisionChange | None = None
) -> tuple[list[str], bool]:
    """Why the object must be replaced (empty when it can be updated), and delete-first?"""
    paths = [c.path for c in changes]
    rules = rules_for(planned.api_version, planned.kind)
    reasons: list[str] = []
    why = revision.sentence() if revision is not None else "worker revision"
    for identity in IDENTITY_PATHS:
        if any(_under(p, identity) for p in paths):
            reasons.append(
                f"{identity} changes ({why}): the new object is created and waited for before the old "
                "one is deleted (no downtime)"
            )
    if reasons:
        return reasons, False
    hit = sorted({pat for pat in rules.immutable_paths for p in paths if path_matches(pat, p)})
    if hit:
        reasons.append(
            f"{rules.reason} ({', '.join(hit)}); the name is fixed, so the old object is deleted first "
            "(not zero-downtime: it stops serving until the replacement is ready)"
        )
    return reasons, bool(hit)


def compare(
    old: PlannedObject, new: PlannedObject, ignored: list[str], owner: str, revision: RevisionChange | None = None
) -> ObjectChange:
    changes = field_changes(old.obj, new.obj, ignored)
    change = ObjectChange(
        action="same",
        type=type_token(new.api_version, new.resource_kind),
        pulumi_name=new.pulumi_name,
        owner=owner,
        old_name=old.name,
        new_name=new.name,
        fields=changes,
    )
    if changes:
        change.reasons, change.delete_before_replace = _replace_reasons(new, changes, revision)
        change.action = "replace" if change.reasons else "update"
    return change


# --- whole plans ------------------------------------------------------------------------------------


def _indexed(plan: GraphPlan | None) -> dict[tuple[str, str, str], tuple[PlannedObject, ComponentPlan | None]]:
    index: dict[tuple[str, str, str], tuple[PlannedObject, ComponentPlan | None]] = {}
    if plan is None:
        return index
    for planned in plan.graph_objects:
        index[planned.key] = (planned, None)
    for component in plan.components:
        for planned in component.objects:
            index[planned.key] = (planned, component)
    return index


def _owner_label(plan: GraphPlan | None, component: ComponentPlan | None) -> str:
    return component.pulumi_name if component else plan.name if plan else ""


def _component_changes(old: GraphPlan | None, new: GraphPlan | None) -> list[ObjectChange]:
    """The DCD ComponentResources: they carry no inputs, so only create/delete/same."""
    before = {c.pulumi_name: c.dcd_name for c in old.components} if old else {}
    after = {c.pulumi_name: c.dcd_name for c in new.components} if new else {}
    shown = new or old
    graph = shown.name if shown is not None else ""
    changes = []
    for name in sorted(set(before) | set(after)):
        if name in before and name in after:
            action: Action = "same"
        else:
            action = "create" if name in after else "delete"
        changes.append(ObjectChange(action, DCD_TYPE, name, graph, before.get(name, ""), after.get(name, "")))
    return changes


def worker_hash_of(plan: GraphPlan) -> str:
    """The worker hash in the names of the graph's worker objects ("" when none carries one)."""
    return next((c.worker_hash for c in plan.components if c.worker_hash), "")


def graph_worker_hash(plan: GraphPlan) -> str:
    """The graph's worker hash, in names or (Grove) only in labels; "" without worker components."""
    named = worker_hash_of(plan)
    if named or not isinstance(plan.graph, DynamoGraphDeployment):
        return named
    return compute_worker_hash(plan.graph, plan.namespace)


def plan_revision_change(old: GraphPlan, new: GraphPlan) -> RevisionChange | None:
    """Why the worker hash moved between the plans (None when it did not)."""
    in_names = bool(worker_hash_of(old) or worker_hash_of(new))
    return revision_change(
        old.graph, old.namespace, graph_worker_hash(old), new.graph, new.namespace, graph_worker_hash(new), in_names
    )


def diff_plans(old: GraphPlan | None, new: GraphPlan | None) -> GraphDiff:
    """Per resource, what ``pulumi up`` from OLD to NEW would do (either side may be None: a
    program that adds or removes a graph)."""
    before, after = _indexed(old), _indexed(new)
    revision = plan_revision_change(old, new) if old is not None and new is not None else None
    changes = _component_changes(old, new)
    for key in sorted(set(before) | set(after), key=lambda k: (k[2], k[1])):
        if key not in before:
            planned, component = after[key]
            changes.append(ObjectChange("create", type_token(planned.api_version, planned.resource_kind), planned.pulumi_name,
                                        _owner_label(new, component), new_name=planned.name))
        elif key not in after:
            planned, component = before[key]
            changes.append(ObjectChange("delete", type_token(planned.api_version, planned.resource_kind), planned.pulumi_name,
                                        _owner_label(old, component), old_name=planned.name))
        else:
            (old_obj, _), (new_obj, component) = before[key], after[key]
            assert new is not None  # the key is on both sides
            ignored = ignore_changes(new_obj, new, component)
            changes.append(compare(old_obj, new_obj, ignored, _owner_label(new, component), revision))
    return GraphDiff(changes, revision)
