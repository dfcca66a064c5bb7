"""Oracle: pulumi-kubernetes' Deployment awaiter, ``provider/pkg/await/deployment_test.go``.

Every case of ``Test_Apps_Deployment``, ``Test_Apps_Deployment_With_PersistentVolumeClaims``,
``Test_Apps_Deployment_Without_PersistentVolumeClaims``, ``Test_Apps_Deployment_MultipleUpdates``
and ``Test_Core_Deployment_Read``. The Go tests stream watch events into the awaiter; the verdict
is decided by the last state of *our* Deployment (an unrelated Deployment ``bar`` is another
object, which our waiter never reads), so each case is that final object, rebuilt field for field
from the file's fixtures (``deploymentAdded``, ``deploymentRolloutComplete``, ...).

pulumi also cross-checks the ReplicaSet of the Deployment's revision; cases that depend on it
(``REPLICA_SET_CASES``) are judged by :func:`deployment_status` with the case's ReplicaSets,
since the waiter lists no ReplicaSets (docs/READINESS.md).

Not applicable (kinds we never judge): ``daemonset_test.go``, ``statefulset_test.go``,
``ingress_test.go``, ``service_test.go``; ``await_test.go``, ``watchers_test.go`` and
``util_test.go`` test the watch plumbing, not a verdict.
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_readiness import OracleCase, judge_workload, merged

from dynamo_pulumi.readiness.object_status import ObjectState, deployment_status
from dynamo_pulumi.readiness.reasons import component_problems
from dynamo_pulumi.readiness.revisions import current_pods

SOURCE = "pulumi/pulumi-kubernetes provider/pkg/await/deployment_test.go"
NAME = "foo-4setj4y6"
RS_NAME = "foo-4setj4y6-7cdf7ddc54"
PDE = 'ProgressDeadlineExceeded: ReplicaSet "foo-13y9rdnu-b94df86d6" has timed out progressing.'

AVAILABLE = {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
             "message": "Deployment has minimum availability."}
NEW_RS_AVAILABLE = {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
                    "message": 'ReplicaSet "foo-lobqxn87-546cb87d96" has successfully progressed.'}
NEW_RS_CREATED = {"type": "Progressing", "status": "True", "reason": "NewReplicaSetCreated",
                  "message": 'Created new replica set "foo-lobqxn87-546cb87d96"'}
RS_UPDATED = {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
              "message": 'ReplicaSet "foo-13y9rdnu-58ddf8f46" is progressing.'}
TIMED_OUT = {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
             "message": 'ReplicaSet "foo-13y9rdnu-b94df86d6" has timed out progressing.'}
UNAVAILABLE = {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
               "message": "Deployment does not have minimum availability."}


def deployment(revision: str, generation: int, status: dict[str, Any], image: str = "nginx", replicas: int = 1,
               name: str = NAME) -> dict[str, Any]:
    """The file's Deployment fixtures: one nginx container, ``app: foo``, the revision annotation."""
    return {
        "kind": "Deployment", "apiVersion": "apps/v1",
        "metadata": {"namespace": "default", "name": name, "uid": f"{name}-deployment-uid", "generation": generation,
                     "labels": {"app": "foo"},
                     "annotations": {"deployment.kubernetes.io/revision": revision, "pulumi.com/autonamed": "true"}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "foo"}},
                 "template": {"metadata": {"creationTimestamp": None, "labels": {"app": "foo"}},
                              "spec": {"containers": [{"name": "nginx", "image": image}]}}},
        "status": status,
    }


def added(rev: str) -> dict[str, Any]:
    return deployment(rev, 1, {"observedGeneration": 1})


def progressing(rev: str) -> dict[str, Any]:
    return deployment(rev, 1, {"observedGeneration": 1, "conditions": [NEW_RS_CREATED]})


def not_progressing(rev: str) -> dict[str, Any]:
    return deployment(rev, 3, {"availableReplicas": 1, "conditions": [AVAILABLE, TIMED_OUT], "observedGeneration": 3,
                               "readyReplicas": 1, "replicas": 2, "unavailableReplicas": 1, "updatedReplicas": 1},
                      image="sdkjsdjkljklds")


def invalid_container(rev: str) -> dict[str, Any]:
    return deployment(rev, 4, {"availableReplicas": 1, "conditions": [AVAILABLE, RS_UPDATED], "observedGeneration": 4,
                               "readyReplicas": 1, "replicas": 2, "unavailableReplicas": 1, "updatedReplicas": 1},
                      image="sdkjlsdlkj")


def progressing_unavailable(rev: str) -> dict[str, Any]:
    return deployment(rev, 1, {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "unavailableReplicas": 1,
                               "conditions": [NEW_RS_CREATED, UNAVAILABLE]})


def created(rev: str) -> dict[str, Any]:
    """``deploymentRevision1Created`` / ``deploymentRevision2Created``: available, no Progressing."""
    return deployment(rev, 1, {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                               "availableReplicas": 1, "conditions": [AVAILABLE]})


def rollout_complete(rev: str) -> dict[str, Any]:
    return deployment(rev, 1, {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                               "availableReplicas": 1, "conditions": [AVAILABLE, NEW_RS_AVAILABLE]})


def updated(rev: str) -> dict[str, Any]:
    return deployment(rev, 2, {"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                               "availableReplicas": 1, "conditions": [AVAILABLE, NEW_RS_AVAILABLE]},
                      image="nginx:1.15-alpine")


def scaled_to_zero(rev: str) -> dict[str, Any]:
    """``deploymentScaledToZero`` as written: ``spec.replicas`` 1 (sic), ``status.replicas`` 0."""
    return deployment(rev, 2, {"observedGeneration": 2, "replicas": 0, "conditions": [AVAILABLE, NEW_RS_AVAILABLE]},
                      image="nginx:1.15-alpine")


def updated_rs_progressing(rev: str) -> dict[str, Any]:
    return deployment(rev, 2, {"observedGeneration": 2, "replicas": 2, "updatedReplicas": 1, "readyReplicas": 2,
                               "availableReplicas": 2, "conditions": [AVAILABLE, RS_UPDATED]}, image="nginx:1.15-alpine")


def updated_rs_progressed(rev: str) -> dict[str, Any]:
    return deployment(rev, 2, {"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                               "availableReplicas": 1, "conditions": [AVAILABLE, NEW_RS_AVAILABLE]},
                      image="nginx:1.15-alpine")


def regression_scaled(replicas: int) -> dict[str, Any]:
    """``regressionDeploymentScaled5`` / ``...Scaled3ExplicitDefault``: a 600 s deadline, all replicas up."""
    obj = deployment("1", 2, {"observedGeneration": 2, "replicas": replicas, "updatedReplicas": replicas,
                              "readyReplicas": replicas, "availableReplicas": replicas,
                              "conditions": [NEW_RS_AVAILABLE, AVAILABLE]}, replicas=replicas)
    return merged(obj, {"spec": {"progressDeadlineSeconds": 600, "revisionHistoryLimit": 2,
                                 "strategy": {"type": "RollingUpdate"}}})


def replica_set(revision: str, name: str = RS_NAME, owner: str = NAME) -> dict[str, Any]:
    """``availableReplicaSet``: 3 of 3 available, owned by the Deployment."""
    return {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"annotations": {"deployment.kubernetes.io/desired-replicas": "3",
                                     "deployment.kubernetes.io/revision": revision},
                     "generation": 1, "labels": {"app": "foo", "pod-template-hash": "3789388710"},
                     "namespace": "default", "name": name, "uid": f"{name}-replicaset-uid",
                     "ownerReferences": [{"apiVersion": "apps/v1", "controller": True, "kind": "Deployment",
                                          "name": owner, "uid": f"{owner}-deployment-uid"}]},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "foo", "pod-template-hash": "3789388710"}}},
        "status": {"availableReplicas": 3, "fullyLabeledReplicas": 3, "observedGeneration": 3, "readyReplicas": 3,
                   "replicas": 3},
    }


def pod(name: str, replica_set_name: str, failed: bool) -> dict[str, Any]:
    """``deployedReadyPod`` / ``deployedFailedPod`` (the failed one cannot pull ``sdkjlsdlkj``)."""
    state = ({"waiting": {"reason": "ImagePullBackOff", "message": 'Back-off pulling image "sdkjlsdlkj"'}}
             if failed else {"running": {"startedAt": "2018-08-03T06:16:40Z"}})
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"generateName": f"{replica_set_name}-", "labels": {"app": "foo", "pod-template-hash": "3789350985"},
                     "namespace": "default", "name": name,
                     "ownerReferences": [{"apiVersion": "apps/v1", "controller": True, "kind": "ReplicaSet",
                                          "name": replica_set_name, "uid": f"{replica_set_name}-replicaset-uid"}]},
        "spec": {"containers": [{"image": "sdkjlsdlkj" if failed else "nginx", "name": "nginx"}], "nodeName": "minikube"},
        "status": {"phase": "Pending" if failed else "Running",
                   "containerStatuses": [{"name": "nginx", "image": "sdkjlsdlkj" if failed else "nginx",
                                          "ready": not failed, "restartCount": 0, "state": state}]},
    }


def case(name: str, obj: dict[str, Any], ready: bool, state: str, text: str = "", stricter: str = "",
         test: str = "Test_Apps_Deployment") -> OracleCase:
    return OracleCase(SOURCE, f"{test}/{name}", obj, ready, state, text, stricter)


CUR, PROG, FAIL = ObjectState.CURRENT, ObjectState.IN_PROGRESS, ObjectState.FAILED
SCALED_TO_ZERO_STRICTER = ("the fixture keeps spec.replicas 1 with status.replicas 0; pulumi reads the replica count "
                           "from the ReplicaSet, kubectl and kstatus from the Deployment (0 of 1 updated)")
READ = "Test_Core_Deployment_Read"

CASES = [
    case("[Revision 1] Should succeed after creating ReplicaSet", rollout_complete("1"), True, CUR),
    case("[Revision 2] Should succeed after creating ReplicaSet", rollout_complete("2"), True, CUR),
    case("[Revision 1] Succeed if ReplicaSet becomes available before Deployment repots it", rollout_complete("1"), True, CUR),
    case("[Revision 2] Succeed if ReplicaSet becomes available before Deployment repots it", rollout_complete("2"), True, CUR),
    case("[Revision 2] Should succeed if update has rolled out", updated_rs_progressed("2"), True, CUR),
    case("Should succeed if Deployment scaled to 0", scaled_to_zero("2"), True, PROG, "0 of 1 replicas updated",
         SCALED_TO_ZERO_STRICTER),
    case("[Revision 1] Should fail if unrelated Deployment succeeds", added("1"), False, PROG, "0 of 1 replicas updated"),
    case("[Revision 2] Should fail if unrelated Deployment succeeds", added("2"), False, PROG, "0 of 1 replicas updated"),
    case("[Revision 1] Should succeed when unrelated deployment fails", rollout_complete("1"), True, CUR),
    case("[Revision 2] Should succeed when unrelated deployment fails", rollout_complete("2"), True, CUR),
    case("[Revision 1] Should report success even if the next event is a failure", rollout_complete("1"), True, CUR),
    case("[Revision 2] Should report success even if the next event is a failure", rollout_complete("2"), True, CUR),
    case("[Revision 1] Should fail if timeout occurs before ReplicaSet becomes available", added("1"), False, PROG),
    case("[Revision 2] Should fail if timeout occurs before Deployment controller progresses", added("2"), False, PROG),
    case("[Revision 2] Should fail if timeout occurs before ReplicaSet is created", progressing("2"), False, PROG),
    case("[Revision 2] Should fail if timeout occurs before ReplicaSet becomes available", progressing_unavailable("2"),
         False, PROG, "MinimumReplicasUnavailable: 0 of 1 updated replicas available (Deployment does not have minimum "
         "availability.)"),
    case("[Revision 2] Should fail if timeout before new ReplicaSet becomes available", updated_rs_progressing("2"),
         False, PROG, "1 old replicas pending termination"),
    case("[Revision 1] Deployment should succeed and not report 'Progressing' condition", created("1"), True, CUR),
    case("[Revision 2] Deployment should fail if 'Progressing' condition is missing", created("2"), False, PROG,
         "new ReplicaSet not yet available"),
    case("[Revision 2] Deployment should fail if Deployment reports 'Progressing' failure", not_progressing("2"), False,
         FAIL, PDE),
    case("[Revision 2] Should fail if Deployment is progressing but new ReplicaSet not available",
         invalid_container("2"), False, PROG, "1 old replicas pending termination"),
    *(case(f"[Revision {rev}] Failure should only report Pods from active ReplicaSet, part {part}", progressing(rev),
           False, PROG) for part in (1, 2) for rev in ("1", "2")),
    case("[Revision 1] Deployment should fail if Deployment reports 'Progressing' failure due to a "
         "PersistentVolumeClaim being in the 'Pending' phase: it has not successfully bounded to a PersistentVolume",
         merged(not_progressing("1"), {}), False, FAIL, PDE, test="Test_Apps_Deployment_With_PersistentVolumeClaims"),
    case("[Revision 1] Deployment should always succeed when any non-referenced PersistentVolumeClaims in the "
         "namespace are not in the 'Bound' phase", rollout_complete("1"), True, CUR,
         test="Test_Apps_Deployment_Without_PersistentVolumeClaims"),
    case("Should succeed if replicas are scaled", regression_scaled(5), True, CUR, test="Test_Apps_Deployment_MultipleUpdates"),
    case("Should succeed if deployment spec has a no-op replicaset change that doesn't trigger a rollout",
         regression_scaled(3), True, CUR, test="Test_Apps_Deployment_MultipleUpdates"),
    case("Read should fail if Deployment status empty", added("1"), False, PROG, test=READ),
    case("Read should fail if Deployment status empty (second entry)", added("1"), False, PROG, test=READ),
    case("Read should fail if Deployment is progressing", progressing("1"), False, PROG, test=READ),
    case("[Revision 2] Read should fail if Deployment Progressing status set to False", not_progressing("2"), False,
         FAIL, PDE, test=READ),
    case("[Revision 2] Read should fail if Deployment has invalid container", invalid_container("2"), False, PROG, test=READ),
    case("[Revision 2] Read should fail if Deployment progressing but unavailable", progressing_unavailable("2"), False,
         PROG, "MinimumReplicasUnavailable", test=READ),
    case("[Revision 1] Read should succeed if Deployment reported available", created("1"), True, CUR, test=READ),
    case("[Revision 2] Read should fail if Deployment available but no progressing status", created("2"), False, PROG,
         test=READ),
    case("[Revision 2] Read should succeed if rollout completes", rollout_complete("2"), True, CUR, test=READ),
    case("[Revision 2] Read should fail Deployment if new ReplicaSet still progressing", updated_rs_progressing("2"),
         False, PROG, test=READ),
    case("[Revision 2] Read should succeed Deployment if new ReplicaSet still rolled out", updated_rs_progressed("2"),
         True, CUR, test=READ),
]

#: Cases whose verdict needs the ReplicaSets pulumi sees: (case, ReplicaSets, pulumi's ready).
REPLICA_SET_CASES = [
    (case("[Revision 2] Should fail if new ReplicaSet isn't created after an update", updated("2"), False, PROG,
          "no ReplicaSet of revision 2 yet"), []),
    (case("Should fail if ReplicaSet generations do not match", rollout_complete("1"), False, PROG,
          "no ReplicaSet of revision 1 yet"), [replica_set("2")]),
    (case("[Revision 2] Read should fail Deployment if new ReplicaSet not created", updated("2"), False, PROG,
          "no ReplicaSet of revision 2 yet", test=READ), [replica_set("1")]),
    (case("[Revision 2] Read should succeed if rollout completes (with its ReplicaSet)", rollout_complete("2"), True, CUR,
          test=READ), [replica_set("2")]),
]


@pytest.mark.parametrize("oracle", CASES, ids=lambda c: c.id)
def test_pulumi_deployment_await_verdict(oracle: OracleCase):
    assert oracle.obj is not None
    state = judge_workload(oracle.obj)
    assert state.ready is oracle.ready
    assert state.status.state == oracle.state
    assert oracle.text in state.reason()


@pytest.mark.parametrize(("oracle", "replica_sets"), REPLICA_SET_CASES, ids=lambda c: getattr(c, "id", ""))
def test_pulumi_replica_set_cross_check(oracle: OracleCase, replica_sets: list[dict[str, Any]]):
    status = deployment_status(oracle.obj, replica_sets)
    assert status.current is oracle.ready and status.state == oracle.state
    assert oracle.text in status.message


@pytest.mark.parametrize("rev", ["1", "2"])
def test_failure_reports_only_pods_of_the_active_replica_set_part_1(rev: str):
    """``[Revision N] Failure should only report Pods from active ReplicaSet, part 1``: the failed
    pod belongs to ReplicaSet ``bar``, so nothing is reported."""
    pods = [pod("foo-4setj4y6-7cdf7ddc54-kvh2w", RS_NAME, failed=False), pod("foo-4setj4y6-7cdf7ddc54-kvh2w", "bar", failed=True)]
    current = current_pods("Deployment", progressing(rev), pods, [replica_set(rev)])
    assert component_problems(current) == []


@pytest.mark.parametrize("rev", ["1", "2"])
def test_failure_reports_only_pods_of_the_active_replica_set_part_2(rev: str):
    """``... part 2``: the failed pod is the active ReplicaSet's; the ready one of ``bar`` is ignored."""
    pods = [pod("foo-4setj4y6-7cdf7ddc54-kvh2w", RS_NAME, failed=True), pod("foo-4setj4y6-7cdf7ddc54-kvh2w", "bar", failed=False)]
    current = current_pods("Deployment", progressing(rev), pods, [replica_set(rev)])
    assert [p["metadata"]["ownerReferences"][0]["name"] for p in current] == [RS_NAME]
    assert component_problems(current) == ['ImagePullBackOff: image sdkjlsdlkj: Back-off pulling image "sdkjlsdlkj"']


def test_scaled_to_zero_with_the_replica_count_it_names_is_ready():
    """The same case with ``spec.replicas: 0``, which the case's name describes: all agree."""
    assert judge_workload(merged(scaled_to_zero("2"), {"spec": {"replicas": 0}})).ready
