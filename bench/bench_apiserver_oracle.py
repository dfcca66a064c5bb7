"""The API server as the verdict's oracle, at length: the dry-run sweep and a long differential run.

Not a test: prints the tables the e2e tier asserts on (``tests/e2e/test_apiserver_oracle.py``),
with more mutations (default 2000), every disagreement with its documentation, and where the
time goes. Uses a running local cluster (``python -m localcluster start``; ``--kubeconfig``
defaults to its ``.localcluster/kubeconfig``) or starts one of its own (``--start``)::

    .venv/bin/python bench/bench_apiserver_oracle.py --start --mutations 2000 --seed 7
    .venv/bin/python bench/bench_apiserver_oracle.py --kubeconfig .localcluster/kubeconfig --skip-sweep
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from e2e import oracle_differential as differential  # noqa: E402
from e2e import oracle_mutations as mutations  # noqa: E402
from e2e import oracle_sweep as sweep  # noqa: E402

from localcluster.cluster import LocalCluster  # noqa: E402
from localcluster.crds import cluster_crds  # noqa: E402
from localcluster.dryrun import DryRunner, Endpoint  # noqa: E402
from localcluster.tools import ensure_tools  # noqa: E402


def _cluster(args: argparse.Namespace, stack: ExitStack) -> Path:
    if not args.start:
        return Path(args.kubeconfig)
    tools = ensure_tools(("kube", "etcd", "kwok", "lws", "crds"))
    cluster = LocalCluster(Path(stack.enter_context(tempfile.TemporaryDirectory())) / "cluster", tools,
                           crds=cluster_crds(tools))
    cluster.start()
    stack.callback(cluster.stop)
    print(f"local cluster ready in {cluster.timings.marks['ready']} s", file=sys.stderr)
    return cluster.kubeconfig


def run_sweep(runner: DryRunner, namespace: str) -> None:
    t0 = time.perf_counter()
    batches = sweep.all_batches(namespace)
    t1 = time.perf_counter()
    report = sweep.sweep(runner, batches)
    t2 = time.perf_counter()
    print(f"== dry-run sweep: {len(batches)} batches rendered in {t1 - t0:.1f} s, {len(report.outcomes)} distinct "
          f"objects dry-run in {t2 - t1:.1f} s ({len(report.outcomes) / (t2 - t1):.0f} objects/s)\n")
    print(sweep.summary_tables(report))
    print("\nrefused objects of graphs our verdict accepts:", *(sweep.refusal_lines(report) or ["none"]), sep="\n  ")
    print("\ngraphs our verdict refuses, their custom resource sent anyway:",
          *(sweep.refused_by_us_lines(report) or ["none"]), sep="\n  ")


def run_differential(runner: DryRunner, namespace: str, count: int, seed: int, verbose: bool) -> int:
    t0 = time.perf_counter()
    drawn = list(mutations.mutations(count, seed))
    judgements = differential.judge_all(runner, drawn, mutations.base_document(), namespace)
    elapsed = time.perf_counter() - t0
    print(f"\n== differential run: {len(drawn)} mutations (seed {seed}), {len(judgements)} judgements in {elapsed:.1f} s\n")
    print(differential.agreement_table(judgements))
    rules = Counter((j.mutation.family, j.mutation.rule) for j in judgements)
    print(f"\n{len(rules)} rules in {len(mutations.FAMILIES)} families")
    documented = Counter((j.mode, j.mutation.rule, j.category, j.documented)
                         for j in differential.disagreements(judgements) if j.documented)
    print("\ndocumented disagreements (mode, rule, category: count, why):")
    for (mode, rule, category, why), n in sorted(documented.items()):
        print(f"  {mode:8} {rule:30} {category}: {n}\n      {why}")
    if verbose:
        print("\nevery documented disagreement:", *differential.disagreement_lines(judgements, documented=True), sep="\n")
    undocumented = differential.disagreement_lines(judgements, documented=False)
    print("\nundocumented disagreements:", *(undocumented or ["none"]), sep="\n")
    return 1 if undocumented else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", default=str(ROOT / ".localcluster" / "kubeconfig"))
    parser.add_argument("--start", action="store_true", help="start a local cluster of its own (and stop it after)")
    parser.add_argument("--mutations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=mutations.SEED)
    parser.add_argument("--namespace", default="oracle-bench")
    parser.add_argument("--workers", type=int, default=6, help="dry-run requests in flight")
    parser.add_argument("--skip-sweep", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every documented disagreement too")
    args = parser.parse_args()
    with ExitStack() as stack:
        runner = DryRunner.connect(Endpoint.from_kubeconfig(_cluster(args, stack)), workers=args.workers)
        stack.callback(runner.close)
        try:
            if not args.skip_sweep:
                run_sweep(runner, args.namespace)
            return run_differential(runner, args.namespace, args.mutations, args.seed, args.verbose)
        finally:
            runner.delete_namespaces([args.namespace])


if __name__ == "__main__":
    raise SystemExit(main())
