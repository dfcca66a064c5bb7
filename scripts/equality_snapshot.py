"""Record what every command answers for a fixed set of inputs, to hold two versions equal.

A change meant to be invisible (start-up work, one pass instead of several) must leave every
verdict and every rendering byte-identical. This script runs one checkout over the same inputs and
writes one file per case; ``compare`` then diffs two recordings:

* every corpus file (``../shared/conformance/corpus``), example graph and golden input, through
  ``validate -o json`` (render and operator mode), ``validate`` (text, with positions) and
  ``render --stage all`` (render and operator mode), on the default platform and on one with Grove,
  LWS and a cluster topology;
* every admission case of the translated webhook envtests and of ``tests/update_rule_cases.py``
  (CREATE and UPDATE, errors and warnings);
* the plan ``program.plan`` makes of every corpus graph and example (the Pulumi path);
* mutated graphs (written once by ``mutants``, hypothesis-drawn from the corpus and the property
  tests' bases), through ``validate -o json``, ``render --stage all`` and ``validate --old BASE``.

Usage, from the checkout to record (its ``dynamo_pulumi`` first on ``PYTHONPATH``)::

    python scripts/equality_snapshot.py mutants /tmp/mutants --count 400
    PYTHONPATH=/tmp/base python scripts/equality_snapshot.py record /tmp/before --root /tmp/base --mutants /tmp/mutants
    python scripts/equality_snapshot.py record /tmp/after --mutants /tmp/mutants
    python scripts/equality_snapshot.py compare /tmp/before /tmp/after
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
SHARED = HERE.parent / "shared"
NAMESPACE = "snapshot-ns"
GROVE_PLATFORM = {
    "orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}},
    "cluster": {"clusterTopologies": {"topo": ["region", "zone", "block", "rack", "host"]}},
}


def _cli(argv: list[str]) -> str:
    """``dynamo-pulumi ARGV`` in this process: exit code, stdout and stderr as one text."""
    from dynamo_pulumi.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # pragma: no cover - main returns its code
            code = exc.code
    return f"exit {code}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}"


def _plain(value: Any) -> Any:
    """A plan as JSON: dataclasses field by field, models by their wire form, the rest as repr."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if hasattr(value, "to_wire"):
        return _plain(value.to_wire())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _inputs(root: Path) -> Iterator[tuple[str, Path, Path | None]]:
    """(case name, graph file, platform file or None) for the corpus, examples and golden inputs."""
    corpus = SHARED / "conformance" / "corpus"
    for path in sorted(corpus.glob("*.yaml")):
        yield f"corpus/{path.stem}", path, None
    for path in sorted((root / "examples").glob("*/graph.yaml")):
        platform = path.parent / "platform.yaml"
        yield f"examples/{path.parent.name}", path, platform if platform.is_file() else None
    golden = SHARED / "conformance" / "golden"
    for path in sorted(golden.glob("*/*/input.yaml")):
        yield f"golden/{path.parent.parent.name}-{path.parent.name}", path, None


def _file_cases(name: str, graph: Path, platform: Path | None, grove: Path) -> Iterator[tuple[str, Callable[[], str]]]:
    g = str(graph)
    platforms = [("given", ["-p", str(platform)])] if platform else [("default", [])]
    platforms.append(("grove", ["-p", str(grove)]))
    for pname, popt in platforms:
        base = f"{name}/{pname}"
        commands = {
            "validate-json": ["validate", g, "-o", "json", *popt],
            "validate-json-operator": ["validate", g, "-o", "json", "--mode", "operator", *popt],
            "validate-text": ["validate", g, *popt],
            "render-all": ["render", g, "--stage", "all", "-n", NAMESPACE, *popt],
            "render-all-operator": ["render", g, "--stage", "all", "--mode", "operator", *popt],
        }
        for label, argv in commands.items():
            yield f"{base}/{label}", lambda argv=argv: _cli(argv)


def _plan_case(graph: Path, platform: Path | None) -> Callable[[], str]:
    def run() -> str:
        from dynamo_pulumi.errors import DynamoPulumiError
        from dynamo_pulumi.program.graph_program import plan

        try:
            planned = plan(str(graph), NAMESPACE, str(platform) if platform else None)
        except DynamoPulumiError as exc:
            return f"refused: {type(exc).__name__}: {exc}"
        except Exception as exc:  # a crash is a difference too
            return f"crashed: {type(exc).__name__}: {exc}"
        return json.dumps(_plain(planned), indent=1, default=repr)
    return run


def _admission_cases(root: Path) -> Iterator[tuple[str, Callable[[], str]]]:
    sys.path.insert(0, str(root / "tests"))
    import update_rule_cases as rules
    import webhook_envtest_support as support
    from test_oracle_webhook_dcd_envtest import CASES as DCD_CASES
    from test_oracle_webhook_dgd_envtest import CASES as DGD_CASES

    for group, cases in (("dgd", DGD_CASES), ("dcd", DCD_CASES)):
        for i, case in enumerate(cases):
            def run(case: Any = case) -> str:
                plat = support.platform(case.grove, case.checkpoint, case.topology, case.username, case.operator)
                errors, warnings = support.admission(case.new, case.old, plat=plat)
                return json.dumps({"errors": errors, "warnings": warnings}, indent=1)
            yield f"envtest/{group}/{i:04d}", run
    for group in ("IMMUTABLE_CASES", "MUTABLE_CASES", "ONCE_SET_CASES"):
        for rule in getattr(rules, group):
            yield f"update-rules/{rule.id}", _update_case(rule.old, rule.new, rules.PLATFORM)


def _update_case(old: dict[str, Any], new: dict[str, Any], platform: dict[str, Any]) -> Callable[[], str]:
    def run() -> str:
        from dynamo_pulumi.loading.documents import load_documents
        from dynamo_pulumi.platform import load_platform
        from dynamo_pulumi.verdict.deployability import judge

        out = {}
        plat = load_platform(copy.deepcopy(platform))
        old_obj = load_documents(copy.deepcopy(old)).loaded[0].object
        for mode in ("render", "operator"):
            for client in ("kubectl", "pulumi"):
                loaded = load_documents(copy.deepcopy(new)).loaded[0]
                verdict = judge(loaded, plat, old=old_obj, mode=mode, client=client)
                out[f"{mode}/{client}"] = {
                    "errors": [str(e) for e in verdict.validate_errors()],
                    "warnings": verdict.warnings,
                    "replacements": [str(e) for e in verdict.replacements],
                }
        return json.dumps(out, indent=1)
    return run


def _mutant_cases(mutants: Path, grove: Path) -> Iterator[tuple[str, Callable[[], str]]]:
    for path in sorted((mutants / "graphs").glob("*.yaml")):
        g = str(path)
        base = str(mutants / "bases" / (path.stem.split("-", 1)[1] + ".yaml"))
        yield f"mutants/{path.stem}/validate-json", lambda g=g: _cli(["validate", g, "-o", "json"])
        yield f"mutants/{path.stem}/validate-json-grove-operator", lambda g=g: _cli(
            ["validate", g, "-o", "json", "--mode", "operator", "-p", str(grove)])
        yield f"mutants/{path.stem}/render-all-grove", lambda g=g: _cli(["render", g, "--stage", "all", "-p", str(grove)])
        yield f"mutants/{path.stem}/update", lambda g=g, b=base: _cli(["validate", g, "--old", b, "-o", "json", "-p", str(grove)])
        yield f"mutants/{path.stem}/update-pulumi", lambda g=g, b=base: _cli(
            ["validate", g, "--old", b, "--client", "pulumi", "-o", "json"])


def record(out: Path, root: Path, mutants: Path | None) -> None:
    """Run every case of ``root`` (the checkout whose tests/ and examples/ are read) into ``out``."""
    import yaml

    out.mkdir(parents=True, exist_ok=True)
    grove = out / "grove-platform.yaml"
    grove.write_text(yaml.safe_dump(GROVE_PLATFORM))
    cases: list[tuple[str, Callable[[], str]]] = []
    for name, graph, platform in _inputs(root):
        cases += list(_file_cases(name, graph, platform, grove))
        cases.append((f"{name}/plan", _plan_case(graph, platform)))
    cases += list(_admission_cases(root))
    if mutants is not None:
        cases += list(_mutant_cases(mutants, grove))
    for i, (name, run) in enumerate(cases):
        try:
            text = run()
        except Exception as exc:  # recorded, so a crash before or after shows in the comparison
            text = f"crashed: {type(exc).__name__}: {exc}"
        text = text.replace(str(root.resolve()), "<root>")  # two checkouts' example paths compare equal
        target = out / "cases" / f"{name}.txt"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        if i % 200 == 0:
            print(f"{i}/{len(cases)} {name}", file=sys.stderr)
    print(f"{len(cases)} cases recorded in {out}", file=sys.stderr)


def compare(a: Path, b: Path) -> int:
    """Every case whose recording differs (or exists on one side only); exit 1 if any."""
    left = {p.relative_to(a / "cases") for p in (a / "cases").rglob("*.txt")}
    right = {p.relative_to(b / "cases") for p in (b / "cases").rglob("*.txt")}
    differ = sorted(p for p in left & right if (a / "cases" / p).read_bytes() != (b / "cases" / p).read_bytes())
    for p in sorted(left ^ right):
        print(f"only in {'first' if p in left else 'second'}: {p}")
    for p in differ:
        print(f"differs: {p}")
    print(f"{len(left & right)} cases compared, {len(differ)} differ, {len(left ^ right)} on one side only")
    return 1 if differ or left ^ right else 0


def mutants(out: Path, count: int) -> None:
    """``count`` mutated graphs (hypothesis, derandomized) and the bases they come from."""
    import yaml
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    sys.path.insert(0, str(HERE / "tests"))
    from test_properties import BASES, mutated, retyped_alike

    (out / "graphs").mkdir(parents=True, exist_ok=True)
    (out / "bases").mkdir(parents=True, exist_ok=True)
    for i, base in enumerate(BASES):
        (out / "bases" / f"{i:03d}.yaml").write_text(yaml.safe_dump(base, sort_keys=False, allow_unicode=True))
    drawn: list[tuple[int, dict[str, Any]]] = []
    index = st.integers(min_value=0, max_value=len(BASES) - 1)
    edits = st.sampled_from([mutated, retyped_alike])

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(index.flatmap(lambda i: st.tuples(st.just(i), edits.flatmap(lambda e: e(BASES[i])))))
    def draw(pair: tuple[int, dict[str, Any]]) -> None:
        drawn.append(pair)

    draw()
    for n, (i, doc) in enumerate(drawn):
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
        (out / "graphs" / f"{n:04d}-{i:03d}.yaml").write_text(text)
    print(f"{len(drawn)} mutated graphs in {out}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("mutants")
    m.add_argument("out", type=Path)
    m.add_argument("--count", type=int, default=400)
    r = sub.add_parser("record")
    r.add_argument("out", type=Path)
    r.add_argument("--root", type=Path, default=HERE, help="the checkout whose tests/ and examples/ are read")
    r.add_argument("--mutants", type=Path, default=None)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.command == "mutants":
        mutants(args.out, args.count)
    elif args.command == "record":
        record(args.out, args.root.resolve(), args.mutants)
    else:
        return compare(args.a, args.b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
