"""Operator mode against render mode: planning, the predicted-expansion digests, the whole program.

    .venv/bin/python bench/bench_operator_mode.py [--repeat N]

Graphs: the corpus vLLM planner graph (``../shared`` needed, skipped when absent) and the
synthetic 25-component graph of ``bench_program.py``, on the component and Grove pathways.
"plan" = load + admission + render + plan in the mode; "digests" = ``operator_expansion`` alone
(canonical JSON + SHA-256 per predicted object); "program" = the Pulumi program under mocks
(render: every object registered; operator: the custom resource and the readiness resource).
Figures are printed, never asserted; ratios are from one run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.planning.operator_mode import operator_expansion
from dynamo_pulumi.program.graph_program import deploy, plan

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_program import CORPUS, NAMESPACE, PLATFORMS, median_ms, synthetic_graph

CORPUS_PLANNER = CORPUS / "vllm-v1beta1-disagg_planner.yaml"


def bench(label: str, source: Any, platform: dict[str, Any], repeat: int) -> None:
    operator_plan = plan(source, NAMESPACE, platform, mode="operator")
    predicted = len(operator_expansion(operator_plan))
    renders = _renders(source, platform)
    render_plan_ms = median_ms(lambda: plan(source, NAMESPACE, platform, mode="render"), repeat) if renders else float("nan")
    operator_plan_ms = median_ms(lambda: plan(source, NAMESPACE, platform, mode="operator"), repeat)
    digest_ms = median_ms(lambda: operator_expansion(operator_plan), repeat)
    render_program_ms = median_ms(
        lambda: run_program(lambda: deploy(source, NAMESPACE, platform, export=False)), repeat
    ) if renders else float("nan")
    operator_program_ms = median_ms(
        lambda: run_program(lambda: deploy(source, NAMESPACE, platform, export=False, mode="operator")), repeat
    )
    ratio = operator_program_ms / render_program_ms
    print(f"{label:<44} {predicted:>9} {_ms(render_plan_ms):>9} {operator_plan_ms:>9.1f} {digest_ms:>8.2f} "
          f"{digest_ms / operator_plan_ms:>7.1%} {_ms(render_program_ms):>9} {operator_program_ms:>9.1f} "
          f"{'refused' if ratio != ratio else f'{ratio:.2f}x':>7}")


def _ms(value: float) -> str:
    """A figure, or "refused" where render mode refuses the graph (NaN)."""
    return "refused" if value != value else f"{value:.1f}"


def _renders(source: Any, platform: dict[str, Any]) -> bool:
    """Render mode refuses the corpus planner graph (its planner needs the operator)."""
    try:
        plan(source, NAMESPACE, platform, mode="render")
    except DynamoPulumiError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'graph [pathway]':<44} {'predicted':>9} {'plan/rnd':>9} {'plan/op':>9} {'digests':>8} "
          f"{'of plan':>7} {'prog/rnd':>9} {'prog/op':>9} {'op/rnd':>7}   (ms)")
    for pathway, platform in PLATFORMS.items():
        if CORPUS_PLANNER.is_file():
            bench(f"corpus planner graph [{pathway}]", CORPUS_PLANNER, platform, args.repeat)
        bench(f"synthetic: 25 components [{pathway}]", synthetic_graph(), platform, args.repeat)


if __name__ == "__main__":
    main()
