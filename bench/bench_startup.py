"""Start-up cost of the installed ``dynamo-pulumi`` command, as ratios to a bare interpreter.

Not a test: runs each case as a process (what a pre-commit hook, an editor on save or a CI step
pays per call), interleaved with ``python -c pass`` in the same rounds, and prints the median
wall and CPU time (user + system of the child) of each and its ratio to the bare interpreter's.
Both ways in one run:

* **bytecode cached** (as a user has it: ``PYTHONDONTWRITEBYTECODE`` unset, one warm-up run
  writes the ``.pyc`` files);
* **no bytecode** (a CI container that never wrote any: ``PYTHONDONTWRITEBYTECODE=1`` and
  ``PYTHONPYCACHEPREFIX`` naming an empty directory, so every module, the standard library's
  too, is compiled from source on every call).

Budget (issue 24): ``validate`` and ``render`` of one small graph at most 10x the bare
interpreter with bytecode cached and 25x with none; ``--help`` at most 3x. The machine is shared,
so the CPU ratio is the steadier figure; ``--check`` exits 1 when a median ratio is over budget.
Usage::

    .venv/bin/python bench/bench_startup.py [--runs N] [--command PATH] [--check]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL_GRAPH = ROOT / "examples" / "aggregated-vllm" / "graph.yaml"
CORPUS = ROOT.parent / "shared" / "conformance" / "corpus"
BARE = "python -c pass"
#: case -> (bytecode cached, no bytecode) budget, as a ratio to the bare interpreter.
BUDGET = {
    "--help": (3.0, None),
    f"validate {SMALL_GRAPH.name}": (10.0, 25.0),
    f"render {SMALL_GRAPH.name}": (10.0, 25.0),
}


@dataclass
class Samples:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def _environment(bytecode: bool, empty_prefix: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = empty_prefix
    return env


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one run of ``argv`` (output discarded)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def _cases(command: str) -> dict[str, list[str]]:
    cases = {
        BARE: [sys.executable, "-c", "pass"],
        "--help": [command, "--help"],
        "--version": [command, "--version"],
        f"validate {SMALL_GRAPH.name}": [command, "validate", str(SMALL_GRAPH)],
        f"render {SMALL_GRAPH.name}": [command, "render", str(SMALL_GRAPH)],
    }
    corpus = sorted(str(p) for p in CORPUS.glob("*.yaml")) if CORPUS.is_dir() else []
    if corpus:
        cases[f"validate, {len(corpus)} corpus files in one call"] = [command, "validate", *corpus]
    return cases


def measure(command: str, runs: int) -> dict[tuple[str, bool], Samples]:
    """Every case ``runs`` times in both modes, interleaved round by round."""
    with tempfile.TemporaryDirectory() as empty:
        envs = {True: _environment(True, empty), False: _environment(False, empty)}
        cases = _cases(command)
        for argv in cases.values():  # warm-up: writes the bytecode the cached mode reads
            _run(argv, envs[True])
        found: dict[tuple[str, bool], Samples] = {(name, b): Samples() for name in cases for b in (True, False)}
        for _ in range(runs):
            for bytecode in (True, False):
                for name, argv in cases.items():
                    wall, cpu = _run(argv, envs[bytecode])
                    found[(name, bytecode)].wall.append(wall)
                    found[(name, bytecode)].cpu.append(cpu)
    return found


def report(found: dict[tuple[str, bool], Samples], runs: int) -> bool:
    """Print the table; True when every budgeted case is within budget (CPU ratio)."""
    within = True
    for bytecode in (True, False):
        bare = found[(BARE, bytecode)]
        bare_wall, bare_cpu = statistics.median(bare.wall), statistics.median(bare.cpu)
        print(f"\nbytecode {'cached' if bytecode else 'none (every module compiled)'}, median of {runs}")
        print(f"{'case':<44} {'wall ms':>8} {'x bare':>7} {'cpu ms':>8} {'x bare':>7}  budget")
        for (name, mode), samples in found.items():
            if mode is not bytecode:
                continue
            wall, cpu = statistics.median(samples.wall), statistics.median(samples.cpu)
            limit = BUDGET.get(name, (None, None))[0 if bytecode else 1]
            verdict = ""
            if limit is not None:
                ok = cpu / bare_cpu <= limit
                within = within and ok
                verdict = f"<= {limit:g}x {'ok' if ok else 'OVER'}"
            print(f"{name:<44} {wall:8.1f} {wall / bare_wall:6.1f}x {cpu:8.1f} {cpu / bare_cpu:6.1f}x  {verdict}")
    return within


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--command", default=str(Path(sys.executable).parent / "dynamo-pulumi"))
    parser.add_argument("--check", action="store_true", help="exit 1 when a budgeted case is over budget")
    args = parser.parse_args()
    within = report(measure(args.command, args.runs), args.runs)
    return 1 if args.check and not within else 0


if __name__ == "__main__":
    sys.exit(main())
