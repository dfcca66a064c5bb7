"""What the one deployability verdict costs over admission alone, on every corpus graph.

``validate`` used to run admission only; it now runs the verdict (object metadata and size,
admission, then rendering and its refusals). Not a test: prints the total time of each over the
corpus and the ratio from one run. Usage::

    .venv/bin/python bench/bench_verdict.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.loading.documents import LoadedObject, load_documents, validate_loaded
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.verdict.deployability import judge

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "conformance" / "corpus"
PLATFORM = Platform.model_validate({"orchestrators": {"grove": {"enabled": True}, "lws": {"enabled": True}}})


def corpus_graphs() -> list[LoadedObject]:
    graphs: list[LoadedObject] = []
    for path in sorted(CORPUS.glob("*.yaml")):
        try:
            graphs += load_documents(path).graphs
        except DynamoPulumiError:
            continue
    return graphs


def timed(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    graphs = corpus_graphs()
    if not graphs:
        raise SystemExit(
            f"bench_verdict: no corpus graphs under {CORPUS}: this benchmark needs the shared conformance "
            "corpus (../shared/conformance/corpus/*.yaml beside the repository)"
        )
    admission = timed(lambda: [validate_loaded(g, PLATFORM) for g in graphs], args.repeat)
    verdict = timed(lambda: [judge(g, PLATFORM) for g in graphs], args.repeat)
    print(f"graphs:          {len(graphs)}")
    print(f"admission only:  {admission * 1000:8.1f} ms  ({admission / len(graphs) * 1000:.2f} ms per graph)")
    print(f"verdict:         {verdict * 1000:8.1f} ms  ({verdict / len(graphs) * 1000:.2f} ms per graph)")
    print(f"ratio:           {verdict / admission:8.2f}x")


if __name__ == "__main__":
    main()
