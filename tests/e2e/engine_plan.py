"""The engine's plan and ``dynamo-pulumi diff``'s, reduced to one step per resource, and a table.

A step is what happens to one resource: ``create``, ``update``, ``delete``, ``same``, or a
replacement, ``replace (create first)`` or ``replace (delete first)``. The engine's side comes
from its events (``localcluster.project --events``): a replacement is three steps
(``create-replacement``, ``replace``, ``delete-replaced``) whose order says which goes first. The
diff's side comes from ``diff -o json`` (``operation`` and ``deleteBeforeReplace``). Only what
Pulumi manages is compared: the stack and provider resources are the engine's own, the objects an
operator would create are predictions (``managedBy: operator``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from localcluster.tools import REPO

CREATE_FIRST = "replace (create first)"
DELETE_FIRST = "replace (delete first)"
Key = tuple[str, str]  # (type token, Pulumi name)


def _key(urn: str) -> Key:
    """``urn:pulumi:stack::project::parent$type::name`` -> (type, name)."""
    _, _, qualified, name = urn.split("::", 3)
    return qualified.rsplit("$", 1)[-1], name


def engine_steps(events: Iterable[Mapping[str, Any]]) -> dict[Key, str]:
    """One step per resource the engine's plan touches (its ``pre`` events, in sequence)."""
    ops: dict[Key, list[tuple[int, str]]] = {}
    for event in events:
        if "pre" in event:
            ops.setdefault(_key(event["pre"]["urn"]), []).append((event["sequence"], event["pre"]["op"]))
    steps = {}
    for key, seen in ops.items():
        names = [op for _, op in sorted(seen)]
        if "create-replacement" in names and "delete-replaced" in names:
            first = names.index("create-replacement") < names.index("delete-replaced")
            steps[key] = CREATE_FIRST if first else DELETE_FIRST
        else:
            steps[key] = names[0]
    return {k: v for k, v in steps.items() if not k[0].startswith("pulumi:")}


def diff_steps(report: Mapping[str, Any]) -> dict[Key, str]:
    """One step per changed resource Pulumi manages, from ``dynamo-pulumi diff -o json``."""
    steps = {}
    for change in report["changes"]:
        if change["managedBy"] != "pulumi":
            continue
        op = change["operation"]
        if op == "replace":
            op = DELETE_FIRST if change["deleteBeforeReplace"] else CREATE_FIRST
        steps[(change["type"], change["name"])] = op
    return steps


def changed(steps: Mapping[Key, str]) -> dict[Key, str]:
    return {k: v for k, v in steps.items() if v != "same"}


def offline_diff(old: Path, new: Path, config: Mapping[str, str]) -> dict[str, Any]:
    """``dynamo-pulumi diff OLD NEW -o json`` of two program directories (under Pulumi mocks)."""
    argv = [sys.executable, "-m", "dynamo_pulumi", "diff", str(old), str(new), "-o", "json"]
    argv += [f"--config={k}={v}" for k, v in config.items()]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=300, check=False)
    assert proc.returncode == 0, f"dynamo-pulumi diff failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout)


def step_table(rows: Sequence[tuple[str, Key, str, str]]) -> str:
    """``change | resource | dynamo-pulumi diff | engine`` as a Markdown table."""
    lines = ["| change | resource | `dynamo-pulumi diff` | engine (preview --diff) |", "|---|---|---|---|"]
    lines += [f"| {change} | `{kind}` {name} | {ours} | {theirs} |"
              for change, (kind, name), ours, theirs in rows]
    return "\n".join(lines)
