"""Each object's kstatus-shaped state (``readiness/object_status.py``) and a component's progress
words (``readiness/component.py``): the rules the oracle modules do not reach on their own."""

from __future__ import annotations

from typing import Any

import pytest
from test_readiness_support import DELETE, patched

from dynamo_pulumi.readiness.component import ComponentState
from dynamo_pulumi.readiness.object_status import (
    CURRENT,
    ObjectState,
    ObjectStatus,
    deployment_status,
    generic_status,
    leader_worker_set_status,
    workload_status,
)
from dynamo_pulumi.readiness.result import READY, ReadinessResult

COMPLETE = [{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]


def deployment(desired: int = 2, **status: Any) -> dict[str, Any]:
    base = {"observedGeneration": 4, "replicas": desired, "updatedReplicas": desired, "readyReplicas": desired,
            "availableReplicas": desired, "conditions": COMPLETE}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "generation": 4, "annotations": {"deployment.kubernetes.io/revision": "3"}},
            "spec": {"replicas": desired, "progressDeadlineSeconds": 600}, "status": {**base, **status}}


def lws(desired: int = 2, **status: Any) -> dict[str, Any]:
    base = {"replicas": desired, "updatedReplicas": desired, "readyReplicas": desired,
            "conditions": [{"type": "Available", "status": "True", "observedGeneration": 2}]}
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
            "metadata": {"name": "l", "generation": 2}, "spec": {"replicas": desired}, "status": {**base, **status}}


def test_a_complete_deployment_is_current():
    assert deployment_status(deployment()) == CURRENT and CURRENT.current


def test_not_found_and_terminating_come_first():
    assert deployment_status(None) == ObjectStatus(ObjectState.NOT_FOUND, "Deployment not found")
    gone = patched(deployment(), {"metadata": {"deletionTimestamp": "2026-12-01T10:00:00Z"}})
    assert deployment_status(gone).state is ObjectState.TERMINATING


def test_a_missing_observed_generation_counts_as_zero_for_a_deployment_only():
    assert generic_status("Deployment", {"metadata": {"generation": 1}}, absent_generation_is_zero=True) == ObjectStatus(
        ObjectState.IN_PROGRESS, "Deployment generation 1 not yet observed (observedGeneration 0)")
    assert generic_status("LeaderWorkerSet", {"metadata": {"generation": 1}}) is None
    assert generic_status("X", {"metadata": {"generation": 1}, "status": {"observedGeneration": 1}}) is None


def test_a_paused_deployment_never_finishes():
    paused = patched(deployment(), {"spec": {"paused": True}})
    assert deployment_status(paused) == ObjectStatus(ObjectState.IN_PROGRESS, "rollout is paused (spec.paused)")


def test_progress_deadline_exceeded_is_failing_with_kubernetes_words():
    stalled = deployment(conditions=[{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                                      "message": ' ReplicaSet "d-1" has timed out progressing. '}])
    status = deployment_status(stalled)
    assert status == ObjectStatus(ObjectState.FAILED, 'ReplicaSet "d-1" has timed out progressing.', "ProgressDeadlineExceeded")
    assert str(status) == 'ProgressDeadlineExceeded: ReplicaSet "d-1" has timed out progressing.'


def test_progressing_false_without_a_reason_is_failing_too():
    status = deployment_status(deployment(conditions=[{"type": "Progressing", "status": "False"}]))
    assert status == ObjectStatus(ObjectState.FAILED, "", "Progressing=False")
    assert str(status) == "Progressing=False"


def test_progress_deadline_exceeded_even_while_progressing_true_is_reported():
    status = deployment_status(deployment(conditions=[{"type": "Progressing", "status": "True",
                                                       "reason": "ProgressDeadlineExceeded"}]))
    assert status.state is ObjectState.FAILED


@pytest.mark.parametrize(("status", "message"), [
    ({"updatedReplicas": 1}, "1 of 2 replicas updated"),
    ({"replicas": 3}, "1 old replicas pending termination"),
    ({"availableReplicas": 1}, "1 of 2 updated replicas available"),
    ({"readyReplicas": 1}, "1 of 2 replicas ready"),
    ({"replicas": 1, "updatedReplicas": 2}, "1 replicas, 2 desired"),
])
def test_replica_counts_in_kubectls_order(status: dict[str, int], message: str):
    assert deployment_status(deployment(**status)) == ObjectStatus(ObjectState.IN_PROGRESS, message)


def test_scaled_to_zero_waits_for_the_old_pods_to_go():
    assert deployment_status(deployment(0)) == CURRENT
    leftover = deployment(0, replicas=1)
    assert deployment_status(leftover).message == "1 old replicas pending termination"


def test_an_unavailable_deployment_says_why_kubernetes_thinks_so():
    unavailable = deployment(availableReplicas=0, conditions=[
        {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
         "message": "Deployment does not have minimum availability."}])
    assert deployment_status(unavailable) == ObjectStatus(
        ObjectState.IN_PROGRESS, "0 of 2 updated replicas available (Deployment does not have minimum availability.)",
        "MinimumReplicasUnavailable")


@pytest.mark.parametrize(("spec", "annotation", "required"), [
    ({"progressDeadlineSeconds": 600}, "1", True),
    ({"progressDeadlineSeconds": 2147483647}, "5", False),
    ({"progressDeadlineSeconds": DELETE}, "1", False),
    ({"progressDeadlineSeconds": DELETE}, "2", True),
    ({"progressDeadlineSeconds": DELETE}, "x", False),
])
def test_when_progressing_must_say_new_replica_set_available(spec: dict[str, Any], annotation: str, required: bool):
    obj = patched(deployment(conditions=[{"type": "Available", "status": "True"},
                                         {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}]),
                  {"spec": spec, "metadata": {"annotations": {"deployment.kubernetes.io/revision": annotation}}})
    status = deployment_status(obj)
    assert status.current is not required
    if required:
        assert status == ObjectStatus(ObjectState.IN_PROGRESS, "new ReplicaSet not yet available", "ReplicaSetUpdated")


def test_a_required_progressing_condition_that_is_missing_has_no_reason():
    missing = deployment(conditions=[{"type": "Available", "status": "True"}])
    assert deployment_status(missing) == ObjectStatus(ObjectState.IN_PROGRESS, "new ReplicaSet not yet available")


def test_available_must_be_true():
    status = deployment_status(deployment(conditions=[COMPLETE[0], {"type": "Available", "status": "Unknown",
                                                                    "reason": "Why"}]))
    assert status == ObjectStatus(ObjectState.IN_PROGRESS, "Deployment is not Available", "Why")
    assert deployment_status(deployment(conditions=[COMPLETE[0]])).reason == ""


def test_the_replica_set_of_the_revision_must_be_available_when_replica_sets_are_given():
    rs = {"metadata": {"name": "d-3", "annotations": {"deployment.kubernetes.io/revision": "3"},
                       "ownerReferences": [{"kind": "Deployment", "name": "d"}]},
          "spec": {"replicas": 2}, "status": {"availableReplicas": 1}}
    assert deployment_status(deployment(), [rs]) == ObjectStatus(ObjectState.IN_PROGRESS, "ReplicaSet d-3: 1 of 2 available")
    assert deployment_status(deployment(), [patched(rs, {"status": {"availableReplicas": 2}})]) == CURRENT
    assert deployment_status(deployment(), []).message == "no ReplicaSet of revision 3 yet"
    no_spec = patched(rs, {"spec": DELETE, "status": {"availableReplicas": 0}})
    assert deployment_status(deployment(), [no_spec]).message == "ReplicaSet d-3: 0 of 1 available"


def test_lws_rules():
    assert leader_worker_set_status(lws()) == CURRENT
    assert leader_worker_set_status(lws(updatedReplicas=1)).message == "1 of 2 groups updated"
    assert leader_worker_set_status(lws(readyReplicas=1)).message == "1 of 2 groups ready"
    not_available = lws(conditions=[{"type": "Available", "status": "False", "reason": "GroupsProgressing"}])
    assert leader_worker_set_status(not_available) == ObjectStatus(
        ObjectState.IN_PROGRESS, "LeaderWorkerSet is not Available", "GroupsProgressing")
    assert leader_worker_set_status(lws(conditions=[])) == ObjectStatus(ObjectState.IN_PROGRESS, "LeaderWorkerSet is not Available")
    stale = lws(conditions=[{"type": "Available", "status": "True", "observedGeneration": 1}])
    assert leader_worker_set_status(stale).message == "Available describes generation 1 < 2"
    unmarked = lws(conditions=[{"type": "Available", "status": "True"}])
    assert leader_worker_set_status(unmarked) == CURRENT


def test_lws_scaled_to_zero_waits_for_its_groups():
    assert leader_worker_set_status(lws(0)) == CURRENT
    assert leader_worker_set_status(lws(0, replicas=1)).message == "1 groups pending termination"
    default = patched(lws(), {"spec": DELETE, "status": {"replicas": 1, "updatedReplicas": 1, "readyReplicas": 1}})
    assert leader_worker_set_status(default) == CURRENT


def test_workload_status_dispatches_by_kind():
    assert workload_status("Deployment", None).message == "Deployment not found"
    assert workload_status("LeaderWorkerSet", None).message == "LeaderWorkerSet not found"
    clique = {"metadata": {"generation": 1, "deletionTimestamp": "x"}}
    assert workload_status("PodClique", clique).state is ObjectState.TERMINATING
    assert workload_status("PodClique", {"metadata": {"generation": 1}}) == CURRENT


def test_an_object_status_prints_its_best_words():
    assert str(ObjectStatus(ObjectState.IN_PROGRESS, "m", "R")) == "R: m"
    assert str(ObjectStatus(ObjectState.IN_PROGRESS, "m")) == "m"
    assert str(ObjectStatus(ObjectState.IN_PROGRESS, "", "R")) == "R"
    assert str(ObjectStatus(ObjectState.IN_PROGRESS)) == "InProgress"


# --- the component's progress words ------------------------------------------------------------


def component(kind: str = "Deployment", ready: bool = False, status: ObjectStatus = CURRENT, **counts: Any) -> ComponentState:
    values: dict[str, Any] = {"desired": 2, "replicas": 2, "updated": 2, "ready_replicas": 2, "available": 2, **counts}
    result = READY if ready else ReadinessResult(False, "r", "message", "detail")
    return ComponentState(component="decode", kind=kind, names=("llm-decode",), result=result, status=status, **values)


def test_a_ready_component_says_so_with_its_serving_count():
    assert component(ready=True).summary() == "decode: 2/2 ready"
    assert component(ready=True).reason() == ""


def test_old_replicas_are_credited_first_while_rolling():
    rolling = component(replicas=3, updated=1, available=2)
    assert rolling.serving == 0
    assert rolling.summary() == "decode: 0/2 ready (Deployment llm-decode: 1 updated, 0 available of 2, 2 old pending termination)"
    assert component(replicas=2, updated=2, available=1).serving == 1
    assert component(replicas=3, updated=2).counts().endswith(", 1 old pending termination")
    assert component(replicas=3, updated=2, available=3).serving == 2


def test_a_component_with_every_replica_up_but_not_ready_does_not_read_as_ready():
    assert component().summary() == "decode: 2/2 up, not ready (Deployment llm-decode: 2 updated, 2 available of 2)"


@pytest.mark.parametrize(("kind", "counts", "words"), [
    ("LeaderWorkerSet", {"ready_replicas": 1, "available": None}, "1 ready of 2"),
    ("PodClique", {"ready_replicas": 1, "available": None}, "1 ready of 2"),
    ("PodCliqueScalingGroup", {"ready_replicas": None, "available": 1}, "1 available of 2"),
    ("Deployment", {"ready_replicas": 2, "available": 1}, "1 available of 2"),
])
def test_each_kind_counts_its_own_serving_replicas(kind: str, counts: dict[str, Any], words: str):
    assert component(kind, **counts).counts() == f"{kind} llm-decode: 2 updated, {words}"


def test_a_component_without_kind_or_names_prints_bare_counts():
    bare = ComponentState(component="x", kind="", names=(), desired=1, replicas=0, updated=0, ready_replicas=None,
                          available=None, result=ReadinessResult(False, "r", "m"))
    assert bare.counts() == "0 updated, 0 available of 1"


def test_the_reason_is_the_objects_state_first_then_the_verdicts_words():
    failing = ObjectStatus(ObjectState.FAILED, "timed out", "ProgressDeadlineExceeded")
    assert component(status=failing).reason() == "ProgressDeadlineExceeded: timed out"
    assert component().reason() == "detail"
    assert ComponentState("c", "Deployment", (), 1, 0, 0, 0, 0, ReadinessResult(False, "r", "m")).reason() == "m"
    assert ComponentState("c", "Deployment", (), 1, 0, 0, 0, 0, ReadinessResult(False, "r", "")).reason() == "r"
