"""Oracle: the LeaderWorkerSet controller's status, kubernetes-sigs/lws
``pkg/controllers/leaderworkerset_status_test.go``.

The LWS controller is the one that decides ``readyReplicas``, ``updatedReplicas`` and which of
``Available`` / ``Progressing`` / ``UpdateInProgress`` is True. Each case below is the
LeaderWorkerSet *after* the case's reconcile (``wrappers.BuildLeaderWorkerSet("default")``:
``test-sample`` in ``default``), with the counts and true conditions the case asserts; LWS calls
it ready when ``Available`` is True.

Translated: ``TestUpdateConditions`` (7 of 8 cases; "leader pod with an unparsable group index
surfaces an error" produces no status) and ``TestUpdateStatus`` (2 of 4; the other two test write
errors). Not applicable: ``TestEnsureHPAPodSelector``, ``TestGetLeaderStatefulSet``,
``TestGetOrCreateRevision``, ``TestUpdateConditionsListError``,
``TestSetConditionsAppliesEveryCondition``, ``TestGetReplicaStates*``, ``TestRollingUpdateParameters``
(controller internals, no status to judge). ``leaderworkerset_conditions_test.go`` tests how
conditions are built (no verdict).
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_readiness import OracleCase, judge_workload

from dynamo_pulumi.readiness.object_status import ObjectState

SOURCE = "kubernetes-sigs/lws pkg/controllers/leaderworkerset_status_test.go"
CUR, PROG = ObjectState.CURRENT, ObjectState.IN_PROGRESS
MESSAGES = {"Available": ("AllGroupsReady", "All replicas are ready"),
            "Progressing": ("GroupsProgressing", "Replicas are progressing"),
            "UpdateInProgress": ("GroupsUpdating", "Rolling Upgrade is in progress")}
PARTITION = ("LWS keeps groups below the partition on the old revision on purpose and calls the set Available; the "
             "graph does not run its new spec until they move (the operator renders no partition)")


def lws(replicas: int, size: int, ready: int, updated: int, true_conditions: tuple[str, ...], *, generation: int = 1,
        groups: int | None = None, partition: int | None = None) -> dict[str, Any]:
    """The LeaderWorkerSet after ``updateConditions``: the counts and the conditions set True (the
    others False, as ``setConditions`` flips them)."""
    conditions = [
        {"type": kind, "status": "True" if kind in true_conditions else "False", "observedGeneration": generation,
         "reason": reason, "message": message, "lastTransitionTime": "2026-12-01T10:00:00Z"}
        for kind, (reason, message) in MESSAGES.items() if kind in true_conditions or kind == "Available"
    ]
    rollout: dict[str, Any] = {"type": "RollingUpdate"}
    if partition is not None:
        rollout["rollingUpdateConfiguration"] = {"partition": partition, "maxUnavailable": 1, "maxSurge": 0}
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
        "metadata": {"name": "test-sample", "namespace": "default", "generation": generation},
        "spec": {"replicas": replicas, "rolloutStrategy": rollout,
                 "leaderWorkerTemplate": {"size": size, "workerTemplate": {"spec": {"containers": [
                     {"name": "leader", "image": "nginx:1.14.2"}]}}}},
        "status": {"replicas": replicas if groups is None else groups, "readyReplicas": ready, "updatedReplicas": updated,
                   "observedGeneration": generation, "conditions": conditions,
                   "hpaPodSelector": "leaderworkerset.sigs.k8s.io/name=test-sample,leaderworkerset.sigs.k8s.io/worker-index=0"},
    }


def case(test: str, name: str, obj: dict[str, Any], ready: bool, state: str, text: str = "",
         stricter: str = "") -> OracleCase:
    return OracleCase(SOURCE, f"{test}/{name}", obj, ready, state, text, stricter)


UC, US = "TestUpdateConditions", "TestUpdateStatus"
CASES = [
    case(UC, "all groups ready and on the current revision, the set is Available",
         lws(2, 2, 2, 2, ("Available",)), True, CUR),
    case(UC, "a group still runs the old revision, the set becomes UpdateInProgress",
         lws(2, 2, 2, 1, ("Progressing", "UpdateInProgress")), False, PROG, "1 of 2 groups updated"),
    case(UC, "all groups updated but one is not ready, the set is only Progressing",
         lws(2, 2, 1, 2, ("Progressing",)), False, PROG, "1 of 2 groups ready"),
    case(UC, "size one means no worker statefulsets, leader pods alone decide readiness",
         lws(2, 1, 2, 2, ("Available",)), True, CUR),
    case(UC, "worker statefulset not created yet, the group is skipped entirely",
         lws(2, 2, 1, 1, ("Progressing",)), False, PROG, "1 of 2 groups updated"),
    case(UC, "burst replicas count towards status but not towards rollout completion",
         lws(1, 2, 2, 2, ("Available",), groups=2), True, CUR),
    case(UC, "a non zero partition keeps the rollout open even when the partitioned groups are done",
         lws(2, 2, 2, 1, ("Available",), partition=1), True, PROG, "1 of 2 groups updated", PARTITION),
    case(US, "status and conditions are recomputed and persisted", lws(2, 2, 2, 2, ("Available",), generation=7), True, CUR),
    case(US, "nothing changed, no status write is issued", lws(1, 1, 1, 1, ("Available",)), True, CUR),
]


@pytest.mark.parametrize("oracle", CASES, ids=lambda c: c.id)
def test_lws_status_verdict(oracle: OracleCase):
    assert oracle.obj is not None
    state = judge_workload(oracle.obj)
    assert state.ready is oracle.ready
    assert state.status.state == oracle.state
    assert oracle.text in state.reason()


def test_an_lws_status_of_an_older_generation_is_not_ready():
    """``TestSetConditions`` / "a bumped generation refreshes observedGeneration": until the
    controller has refreshed them, the status and its conditions describe the previous spec."""
    bumped = lws(2, 2, 2, 2, ("Available",))
    bumped["metadata"]["generation"] = 5
    state = judge_workload(bumped)
    assert not state.ready and state.reason() == "LeaderWorkerSet generation 5 not yet observed (observedGeneration 1)"
