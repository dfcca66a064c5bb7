"""What end-to-end tests share: running a project through the real CLI and reading what it did.

Imported as ``e2e.support`` (``tests/e2e`` is a package, so its conftest never shadows the unit
suite's ``conftest``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localcluster.engine import Engine
from localcluster.tools import REPO


@dataclass
class Run:
    """One ``python -m localcluster.project`` run: its exit code, result, output and events."""

    code: int
    result: dict[str, Any]
    log: str
    events: list[dict[str, Any]]

    def steps(self, kind: str = "pre") -> list[dict[str, Any]]:
        return [e[kind] for e in self.events if kind in e]


def project_copy(source: Path, dest: Path) -> Path:
    """A copy of an example's project directory to run, so the run's stack files
    (``Pulumi.<stack>.yaml``) land in the test's directory, not in the work tree."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(
        "venv", ".venv", "node_modules", "__pycache__", "Pulumi.*.yaml", "sdks"))
    return dest


def root_project(dest: Path) -> Path:
    """The root program (``Pulumi.yaml`` and ``__main__.py``) copied to ``dest``, likewise."""
    dest.mkdir(parents=True)
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy2(REPO / name, dest / name)
    return dest


def run_project(engine: Engine, op: str, project: Path, *, stack: str = "e2e", config: dict[str, str] | None = None,
                diff: bool = False, timeout: float = 900.0, check: bool = True) -> Run:
    """``op`` of the project in ``project`` through the real CLI (see ``localcluster.project``)."""
    events = engine.workdir / f"events-{uuid.uuid4().hex[:6]}.jsonl"
    engine.workdir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "localcluster.project", op, str(project), "--stack", stack, "--events", str(events)]
    argv += [f"--config={k}={v}" for k, v in (config or {}).items()]
    if diff:
        argv.append("--diff")
    env = engine.env({"PYTHONPATH": str(REPO)})
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, timeout=timeout, check=False)
    result = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 and proc.stdout.strip() else {}
    evs = [json.loads(line) for line in events.read_text().splitlines()] if events.exists() else []
    run = Run(proc.returncode, result, proc.stderr, evs)
    if check and proc.returncode != 0:
        raise AssertionError(f"{op} of {project} failed ({proc.returncode}):\n{proc.stderr[-6000:]}")
    return run
