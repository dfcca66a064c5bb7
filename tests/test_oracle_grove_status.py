"""Oracle: Grove's status controllers, ai-dynamo/grove
``operator/internal/controller/podclique/reconcilestatus_test.go`` (PodClique) and
``operator/internal/controller/podcliquescalinggroup/reconcilestatus_test.go`` (PCSG).

Grove itself never says "ready"; it computes the counts and conditions the Dynamo operator (and
we) judge. Each case is the child *after* Grove's status pass, with the counts and conditions the
case asserts, fed to our verdict; or, for ``TestMutateUpdatedReplica``, the pods Grove counts as
updated, which are the pods we attribute problems to (``revisions.grove_updated_pods``).

PodClique file, translated: ``TestMutateUpdatedReplica`` (8), ``TestComputeMinAvailableBreached
ConditionPartialScheduleRegression`` (3), ``TestReconcileStatusConvergesWhenReadyPodMatchesDesiredHash``
(1). Not translated: ``TestMutateUpdateInProgressCondition`` (7; the ``UpdateInProgress``
condition, which neither the operator nor we read: readiness comes from the counts and the
revision), ``TestMutateLastScheduled``, ``TestEmitAllScheduledReplicasLostIfNeeded``,
``TestReconcileStatusRequeues*``, ``TestMutateSelector``, ``TestMutateCurrentHashes*`` (no verdict).
PCSG file, translated: ``TestReconcileStatus`` (3). Not applicable: ``TestComputeReplicaStatus``,
``TestComputeMinAvailableBreachedCondition*`` (a condition without the counts we judge),
``TestGetPodCliquesPerPCSGReplica``, ``TestReconcileStatus_EdgeCases`` (no status asserted),
``TestPCSGMutateReplicasWritesUpdateProgressCounts``, ``TestCountPCSGReplicaUpdatedPCLQs``,
``TestHavePCSGPodCliquesConverged``, ``TestEmitAllScheduledReplicasLostIfNeeded``.
The PodCliqueSet has no status test with a verdict (the operator never asks it; see
tests/test_oracle_grove.py for the operator's own Grove readiness cases).
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_readiness import OracleCase, judge_workload

from dynamo_pulumi.readiness.object_status import ObjectState
from dynamo_pulumi.readiness.revisions import GROVE_POD_TEMPLATE_HASH, current_pods, grove_updated_pods

PCLQ_SOURCE = "ai-dynamo/grove operator/internal/controller/podclique/reconcilestatus_test.go"
PCSG_SOURCE = "ai-dynamo/grove operator/internal/controller/podcliquescalinggroup/reconcilestatus_test.go"
CUR, PROG = ObjectState.CURRENT, ObjectState.IN_PROGRESS


def pod_clique(replicas: int, status: dict[str, Any], *, generation: int = 1, labels: dict[str, str] | None = None,
               min_available: int | None = None) -> dict[str, Any]:
    return {"apiVersion": "grove.io/v1alpha1", "kind": "PodClique",
            "metadata": {"name": "pcs-0-worker", "namespace": "default", "generation": generation,
                         "labels": {"app.kubernetes.io/part-of": "pcs", "grove.io/podcliqueset-replica-index": "0",
                                    **(labels or {})}},
            "spec": {"replicas": replicas, "minAvailable": replicas if min_available is None else min_available},
            "status": status}


def pcsg(replicas: int, scheduled: int, available: int, updated: int, breached: bool,
         min_available: int = 1) -> dict[str, Any]:
    reason = ("InsufficientAvailablePodCliqueScalingGroupReplicas" if breached
              else "SufficientAvailablePodCliqueScalingGroupReplicas")
    return {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueScalingGroup",
            "metadata": {"name": "test-pcsg", "namespace": "test-ns", "generation": 1},
            "spec": {"replicas": replicas, "minAvailable": min_available, "cliqueNames": ["frontend", "backend"]},
            "status": {"observedGeneration": 1, "replicas": replicas, "scheduledReplicas": scheduled,
                       "availableReplicas": available, "updatedReplicas": updated,
                       "conditions": [{"type": "MinAvailableBreached", "status": "True" if breached else "False",
                                       "reason": reason}]}}


SCHEDULED = {"type": "PodCliqueScheduled", "status": "True", "reason": "SufficientScheduledPods"}
BREACHED = {"type": "MinAvailableBreached", "status": "True", "reason": "ScheduledReplicasBelowMinAvailable"}
REGRESSION = "TestComputeMinAvailableBreachedConditionPartialScheduleRegression"

CASES = [
    OracleCase(PCLQ_SOURCE, f"{REGRESSION}/0 < scheduled < MinAvailable breaches",
               pod_clique(3, {"observedGeneration": 1, "replicas": 3, "scheduledReplicas": 1, "readyReplicas": 1,
                              "conditions": [SCHEDULED, BREACHED]}), False, CUR,
               "insufficient scheduled replicas: scheduled=1/3"),
    OracleCase(PCLQ_SOURCE, f"{REGRESSION}/previously-healthy PCLQ loses all scheduled pods — breaches",
               pod_clique(2, {"observedGeneration": 1, "replicas": 2, "scheduledReplicas": 0, "readyReplicas": 0,
                              "conditions": [SCHEDULED, BREACHED]}), False, CUR, "desired=2, updated=0"),
    OracleCase(PCLQ_SOURCE, f"{REGRESSION}/fresh PCLQ never scheduled — also breaches (TerminationDelay is the grace)",
               pod_clique(3, {"observedGeneration": 1, "replicas": 3, "scheduledReplicas": 0, "readyReplicas": 0,
                              "conditions": [BREACHED]}), False, CUR, "desired=3, updated=0"),
    OracleCase(PCLQ_SOURCE, "TestReconcileStatusConvergesWhenReadyPodMatchesDesiredHash",
               pod_clique(1, {"observedGeneration": 2, "replicas": 1, "readyReplicas": 1, "scheduledReplicas": 1,
                              "updatedReplicas": 1, "currentPodTemplateHash": "desired-template-hash",
                              "currentPodCliqueSetGenerationHash": "current-generation-hash"},
                          generation=2, labels={GROVE_POD_TEMPLATE_HASH: "desired-template-hash"}), True, CUR),
    OracleCase(PCSG_SOURCE, "TestReconcileStatus/happy path", pcsg(2, 2, 2, 2, False), True, CUR),
    OracleCase(PCSG_SOURCE, "TestReconcileStatus/mixed replica states", pcsg(3, 2, 1, 1, True, min_available=2), False,
               CUR, "insufficient scheduled replicas: scheduled=2/3"),
    OracleCase(PCSG_SOURCE, "TestReconcileStatus/with terminating cliques", pcsg(2, 1, 1, 1, False), False, CUR,
               "insufficient scheduled replicas: scheduled=1/2"),
]


@pytest.mark.parametrize("oracle", CASES, ids=lambda c: c.id)
def test_grove_status_verdict(oracle: OracleCase):
    """The operator's classification is the verdict here (its message is the reason); the object
    itself is not terminating and has observed its generation, so its own state stays Current."""
    assert oracle.obj is not None
    state = judge_workload(oracle.obj)
    assert state.ready is oracle.ready
    assert state.status.state == oracle.state
    assert oracle.text in state.reason()


def _pod(name: str, template_hash: str) -> dict[str, Any]:
    """``createPodWithHash``: a pod labelled with Grove's pod-template hash."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {GROVE_POD_TEMPLATE_HASH: template_hash}}}


def _pods(*groups: tuple[int, str]) -> list[dict[str, Any]]:
    pods, index = [], 1
    for count, template_hash in groups:
        for _ in range(count):
            pods.append(_pod(f"pod-{index}", template_hash))
            index += 1
    return pods


def _clique(status: dict[str, Any], labels: dict[str, str] | None = None) -> dict[str, Any]:
    return pod_clique(10, status, labels=labels)


IN_PROGRESS = {"podTemplateHash": "new-hash-v2", "updateStartedAt": "2026-12-01T10:00:00Z"}
MUTATE_UPDATED_REPLICA = [
    ("rolling update in progress - count pods with new hash",
     _clique({"updateProgress": IN_PROGRESS, "currentPodTemplateHash": "old-hash-v1"}),
     _pods((3, "new-hash-v2"), (7, "old-hash-v1")), 3),
    ("update just completed - use UpdateProgress hash (edge case)",
     _clique({"updateProgress": {**IN_PROGRESS, "updateEndedAt": "2026-12-01T10:05:00Z"},
              "currentPodTemplateHash": "old-hash-v1"}),
     _pods((10, "new-hash-v2")), 10),
    ("steady state - no rolling update", _clique({"currentPodTemplateHash": "stable-hash"}), _pods((5, "stable-hash")), 5),
    ("never reconciled - empty hash", _clique({}), _pods((2, "some-hash")), 0),
    ("mixed state - some pods match, some don't", _clique({"currentPodTemplateHash": "current-hash"}),
     _pods((2, "current-hash"), (3, "old-hash")), 2),
    ("desired metadata label overrides stale current status",
     _clique({"currentPodTemplateHash": "stale-hash"}, labels={GROVE_POD_TEMPLATE_HASH: "desired-hash"}),
     _pods((1, "desired-hash"), (1, "stale-hash")), 1),
    ("no pods exist", _clique({"currentPodTemplateHash": "some-hash"}), [], 0),
    ("rolling update progress exists but pods have different hash",
     _clique({"updateProgress": {"podTemplateHash": "target-hash", "updateStartedAt": "2026-12-01T10:00:00Z"},
              "currentPodTemplateHash": "old-hash"}),
     [_pod("pod-1", "completely-different-hash"), _pod("pod-2", "another-hash")], 0),
]


@pytest.mark.parametrize(("name", "clique", "pods", "updated"), MUTATE_UPDATED_REPLICA, ids=[c[0] for c in MUTATE_UPDATED_REPLICA])
def test_pods_grove_counts_as_updated_are_the_ones_we_blame(name: str, clique: dict[str, Any], pods: list[dict[str, Any]],
                                                            updated: int):
    """``TestMutateUpdatedReplica/<name>``: the pods of the clique's current revision."""
    assert len(grove_updated_pods(clique, pods)) == updated
    if updated:
        assert current_pods("PodClique", clique, pods) == grove_updated_pods(clique, pods)


def test_a_clique_whose_hash_grove_has_not_published_blames_all_its_pods():
    """"never reconciled - empty hash": Grove counts none as updated; to explain a wait we cannot
    tell old from new, so every pod of the component is read."""
    clique, pods = MUTATE_UPDATED_REPLICA[3][1], MUTATE_UPDATED_REPLICA[3][2]
    assert current_pods("PodClique", clique, pods) == pods
