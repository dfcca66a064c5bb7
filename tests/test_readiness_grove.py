"""Grove readiness: PodClique (rendering-grove Ex.8), PodCliqueScalingGroup, the PCS wrapper.

The PodClique table re-states every case of the operator's ``TestCheckPodCliqueReady``
(``internal/dynamo/grove_test.go``) on our own recorded-shape objects, then the classification
and PCSG tables of the same file. Messages are asserted in full, not as substrings.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_readiness_support import DELETE, condition, patched, recorded

from dynamo_pulumi.readiness import (
    INSUFFICIENT_CAPACITY,
    MIXED_NOT_READY_REASONS,
    PODS_NOT_READY,
    SOME_RESOURCES_ARE_NOT_READY,
    UPDATING,
    GroveComponent,
    GroveComponentReadiness,
    ReadinessResult,
    accepted_pcs_revision,
    child_completed_revision,
    grove_components,
    pod_clique_ready,
    pod_clique_scaling_group_ready,
    pod_clique_set_ready,
)

READY = ReadinessResult(True, "", "")


def _status(observed: int | None, **counts: int) -> dict[str, Any]:
    """A Grove status block as serialised: ``replicas`` and ``observedGeneration`` are omitempty,
    the other counters are always present."""
    status: dict[str, Any] = {"conditions": []}
    if observed is not None:
        status["observedGeneration"] = observed
    for key, value in counts.items():
        if key != "replicas" or value:
            status[key] = value
    return status


def _grove_child(
    recording: str, name: str, generation: int, desired: int, observed: int | None, counts: dict[str, int]
) -> dict[str, Any]:
    """A recorded Grove child with the identity, spec and status of a case."""
    counts.setdefault("scheduledReplicas", 0)
    obj = patched(
        recorded(recording),
        {
            "metadata": {"name": name, "namespace": "default", "generation": generation},
            "spec": {"replicas": desired},
        },
    )
    obj["status"] = _status(observed, **counts)
    return obj


def pclq(name: str, generation: int, desired: int, observed: int | None, **counts: int) -> dict[str, Any]:
    """A PodClique shaped like the recorded one, with the identity, spec and status of a case."""
    counts.setdefault("scheduleGatedReplicas", 0)
    return _grove_child("podclique", name, generation, desired, observed, counts)


def pcsg(name: str, generation: int, desired: int, observed: int | None, **counts: int) -> dict[str, Any]:
    """A PodCliqueScalingGroup shaped like the recorded one (PCSGs have no schedule-gated count)."""
    return _grove_child("pcsg", name, generation, desired, observed, counts)


# --- Ex.8: TestCheckPodCliqueReady ------------------------------------------------------------------

EX8_CASES = [
    pytest.param(
        None, ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, "resource not found"), id="not found"
    ),
    pytest.param(
        pclq("ready-podclique", 1, 3, 1, replicas=3, readyReplicas=3, updatedReplicas=3, scheduledReplicas=3),
        READY,
        id="fully ready",
    ),
    pytest.param(
        pclq("zero-replicas-podclique", 1, 0, 1, replicas=0, readyReplicas=0, updatedReplicas=0),
        READY,
        id="zero replicas desired",
    ),
    pytest.param(
        pclq("stale-podclique", 3, 2, 2, replicas=2, readyReplicas=2, updatedReplicas=2),
        ReadinessResult(
            False, SOME_RESOURCES_ARE_NOT_READY, "spec not yet processed: generation=3, observedGeneration=2"
        ),
        id="observedGeneration < generation",
    ),
    pytest.param(
        pclq(
            "not-ready-podclique",
            1,
            3,
            1,
            replicas=3,
            readyReplicas=1,
            updatedReplicas=3,
            scheduledReplicas=3,
        ),
        ReadinessResult(False, PODS_NOT_READY, "scheduled but ready=1/3"),
        id="ready replicas less than desired",
    ),
    pytest.param(
        pclq(
            "not-updated-podclique",
            1,
            3,
            1,
            replicas=3,
            readyReplicas=3,
            updatedReplicas=2,
            scheduledReplicas=3,
        ),
        ReadinessResult(False, UPDATING, "desired=3, updated=2"),
        id="updated replicas less than desired",
    ),
    pytest.param(
        pclq(
            "rolling-update-podclique",
            1,
            3,
            1,
            replicas=4,
            readyReplicas=3,
            updatedReplicas=3,
            scheduledReplicas=4,
        ),
        ReadinessResult(False, UPDATING, "performing rolling update: desired=3, replicas=4"),
        id="performing rolling update",
    ),
    pytest.param(
        pclq("nil-observed-gen-podclique", 1, 2, None, replicas=2, readyReplicas=2, updatedReplicas=2),
        ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, "observedGeneration is nil"),
        id="nil observedGeneration",
    ),
]


@pytest.mark.parametrize(("pod_clique", "expected"), EX8_CASES)
def test_check_pod_clique_ready(pod_clique: dict[str, Any] | None, expected: ReadinessResult) -> None:
    assert pod_clique_ready(pod_clique) == expected


def test_recorded_pod_clique_is_ready() -> None:
    assert pod_clique_ready(recorded("podclique")) == READY


def test_ready_before_capacity_when_grove_leaves_scheduled_at_zero() -> None:
    """A healthy clique whose scheduledReplicas was never published is ready, not short of capacity."""
    assert pod_clique_ready(patched(recorded("podclique"), {"status": {"scheduledReplicas": 0}})) == READY


# --- TestCheckPodCliqueReadyClassification ----------------------------------------------------------

SCHEDULED_FALSE = condition(
    "PodCliqueScheduled",
    "False",
    "InsufficientScheduledPods",
    "Insufficient scheduled pods. expected at least: 3, found: 1",
)


def pc(**status: Any) -> dict[str, Any]:
    """The classification tests' clique: "pc", 3 replicas desired, generation 1."""
    counts = {k: v for k, v in status.items() if k not in ("conditions", "observed")}
    obj = pclq("pc", 1, 3, status.get("observed", 1), **counts)
    obj["status"]["conditions"] = status.get("conditions", [])
    return obj


@pytest.mark.parametrize(
    ("pod_clique", "expected"),
    [
        pytest.param(
            pc(
                replicas=3,
                readyReplicas=0,
                updatedReplicas=3,
                scheduledReplicas=1,
                conditions=[SCHEDULED_FALSE],
            ),
            ReadinessResult(
                False,
                INSUFFICIENT_CAPACITY,
                "scheduling condition InsufficientScheduledPods: Insufficient scheduled pods. expected at least: 3, found: 1",
            ),
            id="scheduling condition with partial schedule",
        ),
        pytest.param(
            pc(replicas=3, readyReplicas=0, updatedReplicas=3, scheduledReplicas=3, scheduleGatedReplicas=2),
            ReadinessResult(False, INSUFFICIENT_CAPACITY, "schedule-gated replicas: 2"),
            id="schedule-gated",
        ),
        pytest.param(
            pc(
                replicas=3,
                readyReplicas=0,
                updatedReplicas=3,
                scheduledReplicas=3,
                conditions=[SCHEDULED_FALSE],
            ),
            ReadinessResult(
                False,
                INSUFFICIENT_CAPACITY,
                "scheduling condition InsufficientScheduledPods: Insufficient scheduled pods. expected at least: 3, found: 1",
            ),
            id="scheduling condition alone",
        ),
        pytest.param(
            pc(replicas=3, readyReplicas=0, updatedReplicas=3, scheduledReplicas=1),
            ReadinessResult(False, INSUFFICIENT_CAPACITY, "insufficient scheduled replicas: scheduled=1/3"),
            id="partially scheduled",
        ),
        pytest.param(
            pc(replicas=3, readyReplicas=3, updatedReplicas=2, scheduledReplicas=3),
            ReadinessResult(False, UPDATING, "desired=3, updated=2"),
            id="not updated",
        ),
        pytest.param(
            pc(replicas=4, readyReplicas=3, updatedReplicas=3, scheduledReplicas=3),
            ReadinessResult(False, UPDATING, "performing rolling update: desired=3, replicas=4"),
            id="rolling update",
        ),
        pytest.param(
            pc(replicas=3, readyReplicas=1, updatedReplicas=3, scheduledReplicas=3),
            ReadinessResult(False, PODS_NOT_READY, "scheduled but ready=1/3"),
            id="pods not ready",
        ),
        pytest.param(
            pc(replicas=3, readyReplicas=3, updatedReplicas=3, scheduledReplicas=3, observed=None),
            ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, "observedGeneration is nil"),
            id="nil observedGeneration",
        ),
        pytest.param(
            pc(replicas=3, readyReplicas=0, updatedReplicas=3, scheduledReplicas=1, scheduleGatedReplicas=2),
            ReadinessResult(False, INSUFFICIENT_CAPACITY, "schedule-gated replicas: 2"),
            id="capacity before readiness",
        ),
    ],
)
def test_pod_clique_classification(pod_clique: dict[str, Any], expected: ReadinessResult) -> None:
    assert pod_clique_ready(pod_clique) == expected


@pytest.mark.parametrize(
    "scheduled_condition",
    [
        condition("PodCliqueScheduled", "True", "InsufficientScheduledPods"),
        condition("PodCliqueScheduled", "False", "SomeOtherReason"),
        condition("MinAvailableBreached", "False", "InsufficientScheduledPods"),
    ],
)
def test_only_scheduled_false_with_the_capacity_reason_counts(scheduled_condition: dict[str, Any]) -> None:
    pod_clique = pc(
        replicas=3, readyReplicas=0, updatedReplicas=3, scheduledReplicas=3, conditions=[scheduled_condition]
    )
    assert pod_clique_ready(pod_clique) == ReadinessResult(False, PODS_NOT_READY, "scheduled but ready=0/3")


def test_stale_generation_beats_every_classification() -> None:
    pod_clique = pclq("pc", 2, 3, 1, replicas=3, readyReplicas=0, updatedReplicas=3, scheduleGatedReplicas=3)
    assert pod_clique_ready(pod_clique).reason == SOME_RESOURCES_ARE_NOT_READY


# --- PodCliqueScalingGroup (TestCheckPCSGReady, TestCheckPCSGReadyClassification) ------------------

BREACHED = condition(
    "MinAvailableBreached",
    "False",
    "InsufficientScheduledPodCliqueScalingGroupReplicas",
    "Insufficient scheduled replicas. expected at least: 2, found: 1",
)


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        pytest.param(
            None, ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, "resource not found"), id="not found"
        ),
        pytest.param(
            pcsg(
                "ready-pcsg", 1, 3, 1, replicas=3, availableReplicas=3, updatedReplicas=3, scheduledReplicas=3
            ),
            READY,
            id="fully ready",
        ),
        pytest.param(
            pcsg("zero-replicas-pcsg", 1, 0, 1, replicas=0, availableReplicas=0, updatedReplicas=0),
            READY,
            id="zero replicas",
        ),
        pytest.param(
            pcsg("stale-pcsg", 3, 2, 2, replicas=2, availableReplicas=2, updatedReplicas=2),
            ReadinessResult(
                False,
                SOME_RESOURCES_ARE_NOT_READY,
                "spec not yet processed: generation=3, observedGeneration=2",
            ),
            id="stale",
        ),
        pytest.param(
            pcsg(
                "not-ready-pcsg",
                1,
                3,
                1,
                replicas=3,
                availableReplicas=1,
                updatedReplicas=3,
                scheduledReplicas=3,
            ),
            ReadinessResult(False, PODS_NOT_READY, "scheduled but available=1/3"),
            id="available less than desired",
        ),
        pytest.param(
            pcsg(
                "not-updated-pcsg",
                1,
                3,
                1,
                replicas=3,
                availableReplicas=3,
                updatedReplicas=2,
                scheduledReplicas=3,
            ),
            ReadinessResult(False, UPDATING, "desired=3, updated=2"),
            id="not updated",
        ),
        pytest.param(
            pcsg(
                "rolling-update-pcsg",
                1,
                3,
                1,
                replicas=4,
                availableReplicas=3,
                updatedReplicas=3,
                scheduledReplicas=4,
            ),
            ReadinessResult(False, UPDATING, "performing rolling update: desired=3, replicas=4"),
            id="rolling update",
        ),
        pytest.param(
            pcsg("nil-observed-gen-pcsg", 1, 2, None, replicas=2, availableReplicas=2, updatedReplicas=2),
            ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, "observedGeneration is nil"),
            id="nil observedGeneration",
        ),
        pytest.param(
            pcsg("pcsg", 1, 2, 1, replicas=2, availableReplicas=0, updatedReplicas=2, scheduledReplicas=1),
            ReadinessResult(False, INSUFFICIENT_CAPACITY, "insufficient scheduled replicas: scheduled=1/2"),
            id="partially scheduled",
        ),
        pytest.param(
            patched(
                pcsg(
                    "pcsg", 1, 2, 1, replicas=2, availableReplicas=0, updatedReplicas=2, scheduledReplicas=2
                ),
                {"status": {"conditions": [BREACHED]}},
            ),
            ReadinessResult(
                False,
                INSUFFICIENT_CAPACITY,
                "min-available breached (InsufficientScheduledPodCliqueScalingGroupReplicas): "
                "Insufficient scheduled replicas. expected at least: 2, found: 1",
            ),
            id="MinAvailableBreached=False scheduling reason",
        ),
        pytest.param(
            patched(
                pcsg(
                    "pcsg", 1, 2, 1, replicas=2, availableReplicas=0, updatedReplicas=2, scheduledReplicas=2
                ),
                {
                    "status": {
                        "conditions": [
                            condition(
                                "MinAvailableBreached",
                                "True",
                                "InsufficientAvailablePodCliqueScalingGroupReplicas",
                            )
                        ]
                    }
                },
            ),
            ReadinessResult(False, PODS_NOT_READY, "scheduled but available=0/2"),
            id="MinAvailableBreached=True availability reason is not capacity",
        ),
    ],
)
def test_check_pcsg_ready(group: dict[str, Any] | None, expected: ReadinessResult) -> None:
    assert pod_clique_scaling_group_ready(group) == expected


def test_recorded_pcsg_is_ready() -> None:
    assert pod_clique_scaling_group_ready(recorded("pcsg")) == READY


def test_pcsg_ignores_ready_replicas_and_gates() -> None:
    """A PCSG is judged on availableReplicas; it has no readyReplicas or schedule-gated count."""
    group = patched(recorded("pcsg"), {"status": {"readyReplicas": 0, "scheduleGatedReplicas": 5}})
    assert pod_clique_scaling_group_ready(group) == READY


# --- the PodCliqueSet wrapper ----------------------------------------------------------------------


def _component(name: str, kind: str = "PodClique") -> GroveComponent:
    return GroveComponent(name, kind, f"test-dgd-0-{name.lower()}")


def test_pcs_ready_when_every_component_is() -> None:
    components = [GroveComponentReadiness(_component("frontend"), READY)]
    assert pod_clique_set_ready(components) == READY
    assert pod_clique_set_ready([]) == READY


def test_pcs_lists_not_ready_components_in_component_order() -> None:
    components = [
        GroveComponentReadiness(_component("frontend"), READY),
        GroveComponentReadiness(
            _component("decode", "PodCliqueScalingGroup"),
            ReadinessResult(False, PODS_NOT_READY, "scheduled but available=1/2"),
        ),
        GroveComponentReadiness(
            _component("Prefill", "PodCliqueScalingGroup"),
            ReadinessResult(False, PODS_NOT_READY, "scheduled but available=0/2"),
        ),
    ]
    assert pod_clique_set_ready(components) == ReadinessResult(
        False, PODS_NOT_READY, "decode: scheduled but available=1/2; Prefill: scheduled but available=0/2"
    )


def test_pcs_mixed_classification() -> None:
    components = [
        GroveComponentReadiness(
            _component("frontend"), ReadinessResult(False, UPDATING, "desired=1, updated=0")
        ),
        GroveComponentReadiness(
            _component("worker"), ReadinessResult(False, INSUFFICIENT_CAPACITY, "schedule-gated replicas: 1")
        ),
    ]
    result = pod_clique_set_ready(components)
    assert result.reason == MIXED_NOT_READY_REASONS
    assert result.message == "frontend: desired=1, updated=0; worker: schedule-gated replicas: 1"


def test_grove_components_from_rendered_pcs() -> None:
    """Single-node components read a PodClique, multinode ones their scaling group."""
    pcs = {
        "apiVersion": "grove.io/v1alpha1",
        "kind": "PodCliqueSet",
        "metadata": {"name": "vllm-multinode", "namespace": "dynamo"},
        "spec": {
            "replicas": 1,
            "template": {
                "cliques": [
                    {"name": "frontend", "labels": {"nvidia.com/dynamo-component": "Frontend"}, "spec": {}},
                    {"name": "prefill-ldr", "labels": {"nvidia.com/dynamo-component": "prefill"}, "spec": {}},
                    {"name": "prefill-wkr", "labels": {"nvidia.com/dynamo-component": "prefill"}, "spec": {}},
                    {"name": "decode", "labels": {"nvidia.com/dynamo-component": "Decode"}, "spec": {}},
                ],
                "podCliqueScalingGroups": [
                    {"name": "prefill", "cliqueNames": ["prefill-ldr", "prefill-wkr"]}
                ],
            },
        },
    }
    assert grove_components(pcs) == [
        GroveComponent("Frontend", "PodClique", "vllm-multinode-0-frontend"),
        GroveComponent("prefill", "PodCliqueScalingGroup", "vllm-multinode-0-prefill"),
        GroveComponent("Decode", "PodClique", "vllm-multinode-0-decode"),
    ]


# --- revision cut-over (TestGroveComponentRevisionStateHasCompletedAcceptedPCSRevision) ------------


def _pcs_status(generation: int, observed: int | None, current_hash: str | None) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if observed is not None:
        status["observedGeneration"] = observed
    if current_hash is not None:
        status["currentGenerationHash"] = current_hash
    return {"metadata": {"name": "g", "generation": generation}, "status": status}


def test_accepted_pcs_revision() -> None:
    assert accepted_pcs_revision(_pcs_status(2, 2, "rev-b")) == "rev-b"
    assert accepted_pcs_revision(_pcs_status(3, 2, "rev-b")) is None
    assert accepted_pcs_revision(_pcs_status(2, None, "rev-b")) is None
    assert accepted_pcs_revision(_pcs_status(2, 2, None)) is None
    assert accepted_pcs_revision(None) is None


def _child(
    observed: bool, replicas: int, updated: int, desired: int, progress: dict[str, Any] | None
) -> dict[str, Any]:
    obj = patched(
        recorded("podclique"),
        {
            "metadata": {"generation": 2},
            "spec": {"replicas": desired},
            "status": {
                "observedGeneration": 2 if observed else 1,
                "currentPodCliqueSetGenerationHash": "target-revision",
                "replicas": replicas,
                "updatedReplicas": updated,
                "updateProgress": DELETE if progress is None else progress,
            },
        },
    )
    return obj


STARTED = {
    "updateStartedAt": "2026-08-21T12:00:00Z",
    "podCliqueSetGenerationHash": "target-revision",
    "podTemplateHash": "x",
}
ENDED = {**STARTED, "updateEndedAt": "2026-08-21T12:04:00Z"}


@pytest.mark.parametrize(
    ("child", "expected"),
    [
        pytest.param(_child(True, 1, 1, 1, None), True, id="initial realization without update progress"),
        pytest.param(_child(True, 1, 1, 1, ENDED), True, id="finished update"),
        pytest.param(_child(True, 0, 0, 0, ENDED), True, id="zero replicas after the update ends"),
        pytest.param(_child(False, 1, 1, 1, ENDED), False, id="unobserved child generation"),
        pytest.param(_child(True, 1, 1, 1, STARTED), False, id="unfinished update"),
        pytest.param(_child(True, 1, 0, 1, ENDED), False, id="stale update count"),
        pytest.param(_child(True, 2, 1, 1, None), False, id="surplus replicas"),
    ],
)
def test_child_completed_revision(child: dict[str, Any], expected: bool) -> None:
    assert child_completed_revision(child, "target-revision") is expected


def test_child_on_another_revision_or_none_accepted() -> None:
    child = _child(True, 1, 1, 1, None)
    assert not child_completed_revision(child, "other-revision")
    assert not child_completed_revision(child, None)
    assert not child_completed_revision(None, "target-revision")
