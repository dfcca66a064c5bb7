"""Oracle: ``kubectl rollout status``, kubernetes/kubernetes
``staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status_test.go``.

``TestDeploymentStatusViewerStatus`` (test1-test5) is translated whole: the Deployment ``foo`` in
namespace ``bar`` with the case's generation, ``spec.replicas`` and status; ``done`` is kubectl's
ready, and its message's content is what our reason must say.

Not applicable, listed so the count is honest: ``TestDaemonSetStatusViewerStatus`` (4 cases),
``TestStatefulSetStatusViewerStatus`` (6 cases) and
``TestDaemonSetStatusViewerStatusWithWrongUpdateStrategyType`` (1): we never judge a DaemonSet,
and the only StatefulSets of a graph are the ones a LeaderWorkerSet owns, which we judge through
the LeaderWorkerSet's own status (tests/test_oracle_lws_status.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_readiness import OracleCase, judge_workload, merged

from dynamo_pulumi.readiness.object_status import ObjectState, deployment_status

SOURCE = "kubernetes/kubernetes staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status_test.go"
NO_CONDITIONS = ("kubectl reads only the counts; the operator and kstatus also need readyReplicas and Available=True, "
                 "which the Deployment controller always writes (see test_test4_as_the_controller_writes_it)")


def deployment(generation: int, replicas: int, status: dict[str, Any]) -> dict[str, Any]:
    """The test's Deployment: namespace ``bar``, name ``foo``, the fixed UID, no template."""
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"namespace": "bar", "name": "foo", "uid": "8764ae47-9092-11e4-8393-42010af018ff",
                         "generation": generation},
            "spec": {"replicas": replicas}, "status": status}


def counts(observed: int, replicas: int, updated: int, available: int, unavailable: int) -> dict[str, int]:
    return {"observedGeneration": observed, "replicas": replicas, "updatedReplicas": updated,
            "availableReplicas": available, "unavailableReplicas": unavailable}


def case(name: str, obj: dict[str, Any], done: bool, state: str, text: str, stricter: str = "") -> OracleCase:
    return OracleCase(SOURCE, f"TestDeploymentStatusViewerStatus/{name}", obj, done, state, text, stricter)


PROG = ObjectState.IN_PROGRESS
CASES = [
    # "Waiting for deployment "foo" rollout to finish: 0 out of 1 new replicas have been updated..."
    case("test1", deployment(0, 1, counts(1, 1, 0, 1, 0)), False, PROG, "0 of 1 replicas updated"),
    # "... 1 old replicas are pending termination..."
    case("test2", deployment(1, 1, counts(1, 2, 1, 2, 0)), False, PROG, "1 old replicas pending termination"),
    # "... 1 of 2 updated replicas are available..."
    case("test3", deployment(1, 2, counts(1, 2, 2, 1, 1)), False, PROG, "1 of 2 updated replicas available"),
    # "deployment "foo" successfully rolled out"
    case("test4", deployment(1, 2, counts(1, 2, 2, 2, 0)), True, PROG, "0 of 2 replicas ready", NO_CONDITIONS),
    # "Waiting for deployment spec update to be observed..."
    case("test5", deployment(2, 2, counts(1, 2, 2, 2, 0)), False, PROG,
         "Deployment generation 2 not yet observed (observedGeneration 1)"),
]


@pytest.mark.parametrize("oracle", CASES, ids=lambda c: c.id)
def test_kubectl_rollout_status_verdict(oracle: OracleCase):
    assert oracle.obj is not None
    state = judge_workload(oracle.obj)
    assert state.ready is oracle.ready
    assert state.status.state == oracle.state
    assert oracle.text in state.reason()


def test_test4_as_the_controller_writes_it_is_ready():
    """test4 with the ready count and conditions a real Deployment controller writes beside the counts."""
    written = merged(CASES[3].obj or {}, {"status": {"readyReplicas": 2, "conditions": [
        {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
        {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}]}})
    assert judge_workload(written).ready


def test_progress_deadline_exceeded_is_reported_but_not_final():
    """``rollout_status.go`` (DeploymentStatusViewer.Status) ends with an error on
    ``ProgressDeadlineExceeded``; we report the reason and keep waiting (a model load may pass the
    600 s default deadline and recover: issue 15)."""
    stalled = merged(deployment(1, 1, counts(1, 1, 1, 0, 1)), {"status": {"conditions": [
        {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
         "message": 'ReplicaSet "foo-5d4c8b7f9" has timed out progressing.'}]}})
    status = deployment_status(stalled)
    assert status.state is ObjectState.FAILED and not status.current
    assert str(status) == 'ProgressDeadlineExceeded: ReplicaSet "foo-5d4c8b7f9" has timed out progressing.'
