"""Why the worker revision (the worker hash in every worker object's name) moved between two graphs.

The operator hashes every worker, prefill and decode component together
(:func:`dynamo_pulumi.render.worker_hash.worker_hash_document`), so a change to the decode
worker alone renames the prefill worker's objects too. ``diff`` says so instead of leaving the
reader to wonder why an untouched component is replaced: it compares the hash's inputs component
by component and names which component's change moved it, and in which fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.v1beta1_helpers import GraphHelpers
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.render.worker_hash import worker_hash_document

if TYPE_CHECKING:
    pass

#: How a top-level input of a component's hash entry is named (spec fields keep their own name).
_ENTRY_NAMES = {"labels": "labels", "annotations": "annotations", "runtimeVersion": "runtime version"}
MAX_PATHS = 3


@record
class RevisionChange:
    """The worker hash before and after, and the component changes that moved it."""

    before: str
    after: str
    causes: tuple[str, ...]
    #: Do the worker objects' names carry the hash (Deployments, LeaderWorkerSets), or only their
    #: labels (Grove cliques)?
    in_names: bool = True

    def sentence(self) -> str:
        """``worker revision changed (1a2b3c4d => 5e6f7a8b) because decode's podTemplate changed
        (containers[0].image); every worker's name includes it``."""
        because = f" because {'; '.join(self.causes)}" if self.causes else ""
        where = "every worker's name includes it" if self.in_names else "every worker's pods are labelled with it"
        return f"worker revision changed ({self.before or '-'} => {self.after or '-'}){because}; {where}"

    def as_json(self) -> dict[str, Any]:
        return {"before": self.before, "after": self.after, "because": list(self.causes)}


def _leaf_paths(old: Any, new: Any, prefix: str = "") -> list[str]:
    """The paths of the leaves that differ between ``old`` and ``new`` (added, removed, changed)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        paths = []
        for key in sorted(set(old) | set(new), key=str):
            child = f"{prefix}.{key}" if prefix else str(key)
            if key not in old or key not in new:
                paths.append(child)
            else:
                paths.extend(_leaf_paths(old[key], new[key], child))
        return paths
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [p for i, (a, b) in enumerate(zip(old, new, strict=True)) for p in _leaf_paths(a, b, f"{prefix}[{i}]")]
    return [] if old == new and type(old) is type(new) else [prefix]


def _field_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """(field name, changed paths inside it) of one component's hash entry."""
    fields: list[tuple[str, Any, Any]] = []
    for key in ("labels", "annotations", "runtimeVersion"):
        fields.append((_ENTRY_NAMES[key], old.get(key), new.get(key)))
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    for key in sorted(set(old_spec) | set(new_spec)):
        fields.append((key, old_spec.get(key), new_spec.get(key)))
    changed = []
    for name, a, b in fields:
        if a == b and type(a) is type(b):
            continue
        inner = [p for p in _leaf_paths(a, b) if p]
        changed.append((name, inner))
    return changed


def _component_cause(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    parts = []
    for field, paths in _field_changes(old, new):
        shown = ", ".join(paths[:MAX_PATHS]) + (", ..." if len(paths) > MAX_PATHS else "")
        parts.append(f"{field} ({shown})" if shown else field)
    return f"{name}'s {' and '.join(parts)} changed" if parts else ""


def revision_causes(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[str, ...]:
    """One phrase per worker component whose hash input differs, in component-name order."""
    causes = []
    for name in sorted(set(old) | set(new)):
        if name not in old:
            causes.append(f"worker {name} was added")
        elif name not in new:
            causes.append(f"worker {name} was removed")
        else:
            cause = _component_cause(name, old[name], new[name])
            if cause:
                causes.append(cause)
    return tuple(causes)


def revision_change(
    old: Any, old_namespace: str, old_hash: str, new: Any, new_namespace: str, new_hash: str, in_names: bool = True
) -> RevisionChange | None:
    """Why the worker hash moved from ``old_hash`` to ``new_hash`` (None when it did not)."""
    if old_hash == new_hash:
        return None
    before = worker_hash_document(old, old_namespace) if isinstance(old, GraphHelpers) else {}
    after = worker_hash_document(new, new_namespace) if isinstance(new, GraphHelpers) else {}
    return RevisionChange(old_hash, new_hash, revision_causes(before, after), in_names)
