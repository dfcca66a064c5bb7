"""Start-up cost of the installed ``dynamo-pulumi`` command, run as a process (what a pre-commit
hook or a CI step pays per call).

Not a test: prints the best and the median wall time of several runs of each case, and the
ratio of a 50-file ``validate`` to a 1-file one. Targets (issue 11): ``--help`` under 100 ms,
``validate``/``render`` of a small corpus graph under 200 ms, 50 files under 3x one file.
Usage::

    .venv/bin/python bench/bench_startup.py [--runs N] [--command PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "conformance" / "corpus"
SMALL_GRAPH = "deploy-operator-testdata-dcd-deployment-input.yaml"
FALLBACK_GRAPH = ROOT / "dynamo_pulumi" / "data" / "default-graph.yaml"


def _environment(bytecode: bool) -> dict[str, str]:
    """The child's environment; with ``bytecode`` the modules' compiled bytecode is cached, as it
    is for any pip-installed package (some sandboxes export PYTHONDONTWRITEBYTECODE, which makes
    every call recompile every module)."""
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _time(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Best and median wall time (ms) of ``runs`` runs of ``argv`` (after one warm-up run)."""
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
        samples.append((time.perf_counter() - start) * 1000)
    return min(samples), statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--command", default=str(Path(sys.executable).parent / "dynamo-pulumi"))
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="recompile every module on every call"
    )
    args = parser.parse_args()
    env = _environment(not args.no_bytecode_cache)
    graph = CORPUS / SMALL_GRAPH if (CORPUS / SMALL_GRAPH).is_file() else FALLBACK_GRAPH
    cmd = args.command
    with tempfile.TemporaryDirectory() as tmp:
        copies = []
        for i in range(50):
            copy = Path(tmp) / f"graph-{i}.yaml"
            copy.write_text(graph.read_text())
            copies.append(str(copy))
        cases = {
            "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
            "--help": [cmd, "--help"],
            "--version": [cmd, "--version"],
            f"validate {graph.name}": [cmd, "validate", str(graph)],
            f"render {graph.name}": [cmd, "render", str(graph)],
            "validate, 50 files": [cmd, "validate", *copies],
        }
        results = {name: _time(argv, args.runs, env) for name, argv in cases.items()}
    print(f"bytecode cache: {'off' if args.no_bytecode_cache else 'on'}")
    print(f"{'case':<60} {'best ms':>8} {'median ms':>10}")
    for name, (best, median) in results.items():
        print(f"{name:<60} {best:8.0f} {median:10.0f}")
    one = results[f"validate {graph.name}"][0]
    fifty = results["validate, 50 files"][0]
    print(f"50-file validate / 1-file validate: {fifty / one:.2f}x (best of {args.runs})")


if __name__ == "__main__":
    main()
