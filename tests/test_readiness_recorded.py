"""Our readiness verdict over what the real Grove operator wrote, replayed where it cannot run.

The module proxy serves no Grove (``tests/fixtures/operator_recordings/README.md``), so CI cannot
run ``tests/e2e/test_readiness_grove.py``. That test, run beside a Grove operator built from its
public source, with ``DYNAMO_READINESS_RECORD`` set, keeps every distinct version of the
PodCliques and PodCliqueScalingGroups it sampled through a rollout, a scale up and down, a stuck
pod and a deleted pod (``tests/e2e/readiness_sampling.py``); each version's status is Grove's
own. Here every version is judged again: we never call ready what Grove does not, and both
verdicts occur in every phase (how it was recorded: ``tests/fixtures/readiness_recordings/README.md``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e.readiness_sampling import CONTROLLER_SAYS
from oracle_readiness import judge_workload

RECORDINGS = Path(__file__).parent / "fixtures" / "readiness_recordings"
PHASES = {"rollout", "scale up", "scale down", "stuck pod", "deletion"}


def _versions(name: str) -> list[dict[str, Any]]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load((RECORDINGS / f"{name}.yaml").read_text(), Loader=loader)["versions"]  # type: ignore[no-any-return]


def test_the_grove_recording_is_there() -> None:
    assert (RECORDINGS / "grove.yaml").is_file()


@pytest.mark.parametrize("name", sorted(p.stem for p in RECORDINGS.glob("*.yaml")))
def test_we_never_call_ready_what_the_controller_does_not(name: str) -> None:
    table: Counter[tuple[str, str, bool, bool]] = Counter()
    for version in _versions(name):
        obj = version["object"]
        ours = judge_workload(obj, component=obj["metadata"]["name"]).ready
        theirs = CONTROLLER_SAYS[obj["kind"]](obj)
        assert not (ours and not theirs), f"{obj['kind']}/{obj['metadata']['name']} rv " \
            f"{obj['metadata'].get('resourceVersion')} ({version['phase']}): ready to us, not to the controller"
        table[(obj["kind"], version["phase"], ours, theirs)] += 1
    assert {phase for _, phase, _, _ in table} == PHASES
    for kind in {kind for kind, _, _, _ in table}:
        assert any(k == kind and o and t for k, _, o, t in table), f"no {kind} version ready to both"
        assert any(k == kind and not o and not t for k, _, o, t in table), f"no {kind} version not ready to both"
