"""The predicted expansion: what the operator will create for a graph, as a compact, stable summary.

In operator mode we register only the DGD (or DCD) custom resource; the operator creates the
Deployments, Services, PodCliqueSets and claims. Those objects are still rendered in Python (the
same :func:`dynamo_pulumi.render.render_graph` render mode uses) but never registered as
resources, or they would be managed twice. Instead they become inputs of the readiness resource:

* ``expansion``: one ``{apiVersion, kind, name, digest}`` per object, sorted, so ``pulumi preview
  --diff`` lists exactly which objects a change makes the operator touch (a changed digest) and
  which it adds or removes (an entry appears or disappears);
* ``predicted``: the objects themselves, for the drift report after apply (the readiness
  resource's input, and what ``dynamo-pulumi wait|status --mode operator`` rebuild from the file
  with :func:`dynamo_pulumi.planning.operator_mode.plan_prediction`, so both compare against the
  same objects).

The digest is the SHA-256 of the object's canonical JSON (keys sorted, no whitespace), so it is
independent of key order and identical across runs and machines. A ``pulumi.Output`` leaf takes
part as its placeholder token (a value known only at deploy time cannot be hashed at preview);
the token is derived from the leaf's path, so the digest stays stable while the value changes.
Pure: no Pulumi import, usable from the CLI.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from dynamo_pulumi.floor.digests import sha256_hex

#: Hex characters of SHA-256 kept per object: 64 bits, plenty to tell two versions of one object apart.
DIGEST_LENGTH = 16


class ExpansionEntry(TypedDict):
    """One object the operator is predicted to create."""

    apiVersion: str
    kind: str
    name: str
    digest: str


def canonical_json(obj: Any) -> str:
    """The one serialisation digests are taken over: sorted keys, compact separators, UTF-8 kept."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def json_digest(value: Any) -> str:
    """The first :data:`DIGEST_LENGTH` hex characters of SHA-256 over :func:`canonical_json`.

    The one digest of JSON data: object digests here, the readiness resource's ``revision`` and
    the PodCliqueSet composition trigger all take it, so none can drift from the others.
    """
    return sha256_hex(canonical_json(value))[:DIGEST_LENGTH]


def object_digest(obj: Mapping[str, Any]) -> str:
    """The digest of one rendered object."""
    return json_digest(obj)


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def _entry(obj: Mapping[str, Any]) -> ExpansionEntry:
    return ExpansionEntry(
        apiVersion=str(obj.get("apiVersion", "")),
        kind=str(obj.get("kind", "")),
        name=str(_metadata(obj).get("name", "")),
        digest=object_digest(obj),
    )


def _sort_key(entry: ExpansionEntry) -> tuple[str, str, str]:
    return (entry["kind"], entry["name"], entry["apiVersion"])


def expansion_summary(objects: Iterable[Mapping[str, Any]]) -> list[ExpansionEntry]:
    """One entry per object, sorted by kind, name and apiVersion (never by render order, so an
    object moving in the render order is not a change)."""
    return sorted((_entry(obj) for obj in objects), key=_sort_key)


def predicted_objects(objects: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The predicted objects in the summary's order, as plain dicts (the readiness resource's
    ``predicted`` input; the drift report pairs them with what the operator made)."""
    return [dict(obj) for obj in sorted(objects, key=lambda o: _sort_key(_entry(o)))]


def expansion_digest(entries: Iterable[ExpansionEntry]) -> str:
    """One digest over the whole expansion (changes when any object is added, removed or changed)."""
    return object_digest({"expansion": list(entries)})


_PATH_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def without_paths(obj: Mapping[str, Any], paths: Iterable[str]) -> dict[str, Any]:
    """``obj`` without the fields at ``paths`` (``spec.template.cliques[1].spec.replicas``);
    copied along each path only, ``obj`` untouched; a path that does not exist is skipped."""
    result = dict(obj)
    for path in paths:
        steps: list[str | int] = [int(i) if i else n for n, i in _PATH_STEP.findall(path)]
        _drop(result, steps)
    return result


def _drop(node: Any, steps: list[str | int]) -> None:
    """Remove the last step's field under ``node``, copying each container on the way down."""
    for step in steps[:-1]:
        child = _child(node, step)
        if child is None:
            return
        copied: Any = dict(child) if isinstance(child, Mapping) else list(child)
        node[step] = copied
        node = copied
    last = steps[-1]
    if isinstance(node, dict) and isinstance(last, str):
        node.pop(last, None)


def _child(node: Any, step: str | int) -> Any:
    if isinstance(step, int):
        ok = isinstance(node, list) and 0 <= step < len(node) and isinstance(node[step], (Mapping, list))
        return node[step] if ok else None
    ok = isinstance(node, dict) and isinstance(node.get(step), (Mapping, list))
    return node[step] if ok else None
