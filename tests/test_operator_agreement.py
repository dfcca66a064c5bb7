"""Rendering agrees with the real Dynamo operator on every recorded graph, at each platform setting.

Each file under ``tests/fixtures/operator_recordings/`` is what one build of the operator
created for one graph (corpus, example or upstream manifest) with Grove and LWS off, LWS on, and
Grove on (how they were made: that directory's README). Every recording is rendered again here
and compared object by object, field by field (``localcluster/agreement.py``), in render mode
and as operator mode's predicted expansion. A difference fails the test unless it is one of the
documented classes (``DOCUMENTED_PATHS``, ``DOCUMENTED_OBJECTS``, the worker hash value) or
listed below with its reason. A graph added to the test data is compared as soon as its
recording exists: recording needs the operator binary (``python -m localcluster.recorder``).
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import pytest

from localcluster.agreement import (
    PLATFORMS,
    GraphReport,
    compare,
    crd_schemas,
    load_recording,
    operator_verdict,
    recordings,
    unbuilt_component_errors,
)
from localcluster.agreement_report import BASELINE, DOC, current_generated, generated
from localcluster.crds import SHARED_CRDS
from localcluster.oracle_sources import EXAMPLES, slug
from localcluster.server_defaults import CrdSchemas

PATHS = recordings()
#: (recording id, platform, mode) -> why it does not agree (newer behaviour on purpose, with the
#: spec line). Every entry must still disagree: one that starts agreeing fails the run.
KNOWN: dict[tuple[str, str, str], str] = {}
NEEDS_CRDS = "../shared/conformance/crds is not present (the CRD schemas' defaults are part of the comparison)"


@functools.cache
def _crds() -> CrdSchemas:
    return crd_schemas()


@functools.cache
def _reports(path: Path, mode: str) -> tuple[GraphReport, ...]:
    rec = load_recording(path)
    return tuple(compare(rec, p, _crds(), mode) for p in PLATFORMS if p in rec["platforms"])


def _explain(report: GraphReport) -> str:
    lines = [f"{report.id} [{report.platform}, {report.mode} mode]: ours {report.ours[:200]}; "
             f"operator {report.theirs[:200]}"]
    lines += [f"  missing {m}" for m in report.missing] + [f"  extra {e}" for e in report.extra]
    lines += [f"  {d.line()}" for d in report.differences[:40]]
    return "\n".join(lines)


@pytest.mark.skipif(not SHARED_CRDS.is_dir(), reason=NEEDS_CRDS)
@pytest.mark.parametrize("mode", ["render", "operator"])
@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_the_rendering_agrees_with_the_recorded_operator(path: Path, mode: str) -> None:
    for report in _reports(path, mode):
        known = KNOWN.get((report.id, report.platform, mode))
        if known is None:
            assert report.agrees, _explain(report)
        else:
            assert not report.agrees, f"listed as disagreeing ({known}) but agrees now: drop it from KNOWN"


def test_there_are_recordings_at_three_platform_settings() -> None:
    assert len(PATHS) >= 70
    recorded = {p for path in PATHS for p in load_recording(path)["platforms"]}
    assert recorded == set(PLATFORMS)


def test_every_known_disagreement_names_a_recording() -> None:
    ids = {p.stem for p in PATHS}
    assert {key[0] for key in KNOWN} <= ids


def test_every_example_graph_has_a_recording() -> None:
    """A new example is compared once it is recorded; until then this says which one is not."""
    recorded = {p.stem for p in PATHS}
    missing = [g.parent.name for g in sorted(EXAMPLES.glob("*/graph.yaml"))
               if f"example-{slug(g.parent.name)}" not in recorded]
    if missing:
        pytest.skip(f"no operator recording for examples {missing}: record them with "
                    "`python -m localcluster.recorder --operator BIN --only example-<name> ...`")


def _with_objects() -> tuple[dict, str]:
    """The first recording the operator made objects for, and the platform it made them at."""
    for path in PATHS:
        rec = load_recording(path)
        for platform in PLATFORMS:
            result = rec["platforms"][platform]
            if result.get("objects") and operator_verdict(result) == "objects":
                return rec, platform
    pytest.skip("no recording with objects")


@pytest.mark.skipif(not SHARED_CRDS.is_dir(), reason=NEEDS_CRDS)
def test_a_changed_missing_or_refused_object_is_a_difference() -> None:
    """The comparison can fail: a field the operator set otherwise, an object it made that we do
    not render, and a graph it refused that we render are each reported."""
    rec, platform = _with_objects()
    assert compare(rec, platform, _crds()).agrees
    changed = copy.deepcopy(rec)
    first = next(o for o in changed["platforms"][platform]["objects"] if o["kind"] != "Secret")
    first["metadata"].setdefault("labels", {})["changed-by-the-test"] = "yes"
    report = compare(changed, platform, _crds())
    assert [d.path for d in report.differences] == ["metadata.labels.changed-by-the-test"]
    made = copy.deepcopy(rec)
    made["platforms"][platform]["objects"].append(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "made-by-the-operator"}})
    assert compare(made, platform, _crds()).missing == ["ConfigMap/made-by-the-operator"]
    refused = copy.deepcopy(rec)
    refused["platforms"][platform]["admission"][0].update(accepted=False, message="denied by the test")
    assert not compare(refused, platform, _crds()).verdicts_agree


@pytest.mark.skipif(not SHARED_CRDS.is_dir(), reason=NEEDS_CRDS)
def test_the_report_in_docs_is_what_the_recordings_give() -> None:
    reports = [r for mode in ("render", "operator") for path in PATHS for r in _reports(path, mode)]
    baseline = json.loads(BASELINE.read_text()) if BASELINE.is_file() else None
    assert current_generated(DOC) == generated(reports, baseline), \
        "docs/OPERATOR-AGREEMENT.md is stale: run `python -m localcluster.agreement_report --write`"


_REFUSAL_REASON = "cannot be rendered: "


@pytest.mark.skipif(not SHARED_CRDS.is_dir(), reason=NEEDS_CRDS)
def test_where_the_operator_failed_in_its_log_our_refusal_names_its_cause() -> None:
    """A DCD its controller cannot build fails only in the operator's log (the graph stays pending):
    where we refuse such a graph, the reason we give and one of the errors the operator logged hold
    one another (ours may add what to do about it)."""
    checked = 0
    for path in PATHS:
        for report in _reports(path, "render"):
            result = load_recording(path)["platforms"][report.platform]
            errors = [e["error"] for e in unbuilt_component_errors(result)]
            if not errors or not report.ours.startswith("refused") or _REFUSAL_REASON not in report.ours:
                continue
            reason = report.ours.split(_REFUSAL_REASON, 1)[1]
            assert any(reason in error or error in reason for error in errors), \
                f"{report.id} [{report.platform}]: {reason!r} not in {errors}"
            checked += 1
    assert checked >= 3  # the failover graph at two settings, the LWS graph without args
