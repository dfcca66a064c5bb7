"""The stored form of an operator recording: compact on disk, whole when read.

    python -m localcluster.recording_format FILE...   # rewrite recordings in the compact form

Most of what the operator creates for a graph is the same at two platform settings (the RBAC,
the Services, the DCDs; everything when the graph has no multinode component and LWS is the
only change). Writing it three times would triple the test data for nothing, so a platform's
object equal to the component pathway's is stored as a reference (``same_as: pathway`` with its
kind and name), and a platform whose whole result equals the pathway's as ``same_as: pathway``.
Collections of scalars are written inline. ``expanded`` undoes all of it, so the comparison
reads exactly what the recorder collected.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from .stored import object_key

BASE = "pathway"
#: What a result holds that the comparison reads (the rest of a raw result is not written).
RESULT_KEYS = ("admission", "status", "objects", "reconcile_errors")
#: What a graph's status says of a DCD its controller has not reconciled yet: the recorder waits
#: while one is reported, and the comparison reads a logged error of such a DCD as its failure.
UNPROCESSED = "spec not yet processed"


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


def _reference(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    return {"same_as": BASE, "apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"),
            "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")}}


def _compact_result(result: Mapping[str, Any], base: Mapping[str, Any] | None) -> dict[str, Any]:
    out = {k: copy.deepcopy(result[k]) for k in RESULT_KEYS if k in result}
    if base is None:
        return out
    if _canonical(out) == _canonical({k: base[k] for k in RESULT_KEYS if k in base}):
        return {"same_as": BASE}
    theirs = {object_key(o): _canonical(o) for o in base.get("objects") or []}
    out["objects"] = [_reference(o) if theirs.get(object_key(o)) == _canonical(o) else o for o in out["objects"]]
    return out


def compact(recording: Mapping[str, Any]) -> dict[str, Any]:
    """``recording`` (whole, as the recorder collected it) in its stored form."""
    whole = expanded(recording)
    platforms = whole["platforms"]
    base = platforms.get(BASE)
    out = {k: v for k, v in whole.items() if k != "platforms"}
    out["platforms"] = {name: _compact_result(result, None if name == BASE else base)
                        for name, result in platforms.items()}
    return out


def expanded(recording: Mapping[str, Any]) -> dict[str, Any]:
    """``recording`` with every reference to the pathway's result replaced by what it names."""
    out = copy.deepcopy(dict(recording))
    platforms = out.get("platforms") or {}
    base = platforms.get(BASE)
    for name, result in platforms.items():
        if name == BASE or not isinstance(result, dict):
            continue
        if "same_as" in result:
            if base is None:
                raise ValueError(f"{recording.get('id')}: platform {name} refers to {BASE}, which is not recorded")
            platforms[name] = copy.deepcopy(base)
            continue
        by_key = {object_key(o): o for o in (base or {}).get("objects") or []}
        objects = []
        for obj in result.get("objects") or []:
            if "same_as" in obj:
                found = by_key.get(object_key(obj))
                if found is None:
                    raise ValueError(f"{recording.get('id')}: {name} refers to {obj['kind']}/"
                                     f"{obj['metadata']['name']} of {BASE}, which has no such object")
                obj = copy.deepcopy(found)
            objects.append(obj)
        result["objects"] = objects
    return out


def dump(recording: Mapping[str, Any]) -> str:
    """The stored text: the compact form, keys sorted, collections of scalars inline."""
    return yaml.safe_dump(compact(recording), sort_keys=True, width=160, default_flow_style=None,
                          allow_unicode=True)


def load(path: Path) -> dict[str, Any]:
    """A recording file, whole."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return expanded(yaml.load(path.read_text(), Loader=loader))


def main(argv: list[str] | None = None) -> int:
    for name in argv if argv is not None else sys.argv[1:]:
        path = Path(name)
        path.write_text(dump(load(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
