"""How many translated upstream readiness cases our verdict agrees with, for any checkout.

Not a test: prints figures. The case tables of the readiness oracles
(``tests/test_oracle_{kubectl_rollout_status,pulumi_await,kstatus,lws_status,grove_status,dgd_status}.py``)
are dumped to JSON with this checkout (``--dump``), then judged through the entry points every
version of the waiter has had (``render_status`` for a workload, ``operator_status`` for a
DGD/DCD) by whichever ``dynamo_pulumi`` is first on ``PYTHONPATH`` (``--judge``). So the same
cases measure the code before and after a change::

    .venv/bin/python bench/bench_oracle_agreement.py --dump /tmp/cases.json
    PYTHONPATH=/tmp/base .venv/bin/python bench/bench_oracle_agreement.py --judge /tmp/cases.json
    .venv/bin/python bench/bench_oracle_agreement.py --judge /tmp/cases.json

Per upstream file: cases; agreeing with upstream's ready; stricter than upstream where the case
names why (upstream sources disagree and we keep the stricter "ready"); wrong (the rest); cases
whose reason shows the text the upstream case asserts; cases whose terminality matches the
operator's (only ``reconcile.TerminalError`` failures end a wait). Pod-attribution cases count as
agreeing when the pods we would read to explain a wait are the ones Grove counts as updated.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("test_oracle_kubectl_rollout_status", "test_oracle_pulumi_await", "test_oracle_kstatus",
           "test_oracle_lws_status", "test_oracle_grove_status", "test_oracle_dgd_status")


def dump(path: Path) -> None:
    """Write every case table as JSON (needs this checkout's tests)."""
    sys.path.insert(0, str(ROOT / "tests"))
    import importlib

    rows: list[dict[str, Any]] = []
    for name in MODULES:
        module = importlib.import_module(name)
        for case in module.CASES:
            terminal = case.name in getattr(module, "TERMINAL", ())
            rows.append({"source": case.source, "name": case.name, "obj": case.obj, "upstream": case.upstream_ready,
                         "stricter": case.stricter, "others": list(case.others), "check": "verdict", "text": case.text,
                         "terminal": terminal})
        for case, replica_sets in getattr(module, "REPLICA_SET_CASES", ()):
            rows.append({"source": case.source, "name": case.name, "obj": case.obj, "upstream": case.upstream_ready,
                         "stricter": "", "others": replica_sets, "check": "verdict", "text": "", "terminal": False})
        for name_, clique, pods, updated in getattr(module, "MUTATE_UPDATED_REPLICA", ()):
            rows.append({"source": module.PCLQ_SOURCE, "name": f"TestMutateUpdatedReplica/{name_}", "obj": clique,
                         "pods": pods, "updated": updated, "check": "attribution"})
    path.write_text(json.dumps(rows))
    print(f"{len(rows)} cases written to {path}")


def _verdict(row: dict[str, Any]) -> tuple[bool, str, bool]:
    """(ready, the reason a user reads, terminal) from whichever checkout is on the path."""
    from dynamo_pulumi.readiness import InMemoryReader
    from dynamo_pulumi.readiness.operator_mode import operator_status
    from dynamo_pulumi.readiness.status import render_status
    from dynamo_pulumi.readiness.targets import WatchTarget

    obj = row["obj"]
    if obj["kind"] in ("DynamoGraphDeployment", "DynamoComponentDeployment"):
        graph = operator_status(obj["kind"], obj)
        return graph.is_ready, f"{graph.ready.reason}: {graph.ready.message}", bool(graph.terminal)
    meta = obj["metadata"]
    target = WatchTarget(api_version=obj["apiVersion"], kind=obj["kind"], namespace=meta.get("namespace", "default"),
                         name=meta["name"], component="worker", group=meta["name"])
    status = render_status([target], InMemoryReader([obj, *row["others"]], default_namespace="default"))
    (state,) = status.components
    reason = state.reason() if callable(getattr(state, "reason", None)) else f"{state.result.message}: {state.result.detail}"
    return status.is_ready, reason, False


def _attributed(row: dict[str, Any]) -> int:
    """How many of the pods we would read to explain a wait (all of them before revisions.py)."""
    try:
        from dynamo_pulumi.readiness.revisions import current_pods
    except ImportError:
        return len(row["pods"])
    return len(current_pods("PodClique", row["obj"], row["pods"]))


COLUMNS = ("cases", "agree", "stricter", "wrong", "reason", "terminal")


def _judge_row(row: dict[str, Any], counts: dict[str, int], wrong: list[str]) -> None:
    label = f"{row['source'].rsplit('/', 1)[-1]}::{row['name']}"
    if row["check"] == "attribution":
        ok = _attributed(row) == row["updated"]
        counts["agree" if ok else "wrong"] += 1
        counts["reason"] += 1
        counts["terminal"] += 1
        if not ok:
            wrong.append(f"{label} (pods read to explain: {_attributed(row)}, Grove counts {row['updated']} as updated)")
        return
    ours, reason, terminal = _verdict(row)
    if ours == row["upstream"]:
        counts["agree"] += 1
    elif row["stricter"] and not ours:
        counts["stricter"] += 1
    else:
        counts["wrong"] += 1
        wrong.append(f"{label} (upstream ready={row['upstream']}, ours={ours})")
    if row["text"] in reason:
        counts["reason"] += 1
    else:
        wrong.append(f"{label}: reason {reason!r} lacks {row['text']!r}")
    if terminal == row["terminal"]:
        counts["terminal"] += 1
    else:
        wrong.append(f"{label}: terminal={terminal}, the operator {'gives up' if row['terminal'] else 'retries'}")


def judge(path: Path) -> None:
    rows = json.loads(path.read_text())
    table: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))
    wrong: list[str] = []
    for row in rows:
        counts = table[row["source"]]
        counts["cases"] += 1
        _judge_row(row, counts, wrong)
    total = dict.fromkeys(COLUMNS, 0)
    print(f"{'upstream file':<95} " + " ".join(f"{c:>8}" for c in COLUMNS))
    for source, counts in table.items():
        print(f"{source:<95} " + " ".join(f"{counts[c]:>8}" for c in COLUMNS))
        for key in total:
            total[key] += counts[key]
    print(f"{'total':<95} " + " ".join(f"{total[c]:>8}" for c in COLUMNS))
    for line in wrong:
        print(f"  differs: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--dump", type=Path)
    group.add_argument("--judge", type=Path)
    args = parser.parse_args()
    if args.dump:
        dump(args.dump)
    else:
        judge(args.judge)


if __name__ == "__main__":
    main()
