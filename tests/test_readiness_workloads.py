"""Deployment, LeaderWorkerSet and DCD readiness (ERRATA 3.1-3.3, readiness-lifecycle A2-A3)."""

from __future__ import annotations

import pytest
from test_readiness_support import DELETE, condition, patched, recorded

from dynamo_pulumi.readiness import (
    SOME_RESOURCES_ARE_NOT_READY,
    ReadinessResult,
    dcd_ready,
    deployment_ready,
    leader_worker_set_ready,
    workload_as_dcd,
)

DEPLOYMENT_READY = ReadinessResult(True, "DeploymentReady", "Deployment is ready")
LWS_READY = ReadinessResult(True, "LeaderWorkerSetReady", "LeaderWorkerSet is ready")


def deployment_not_ready(detail: str) -> ReadinessResult:
    return ReadinessResult(False, "DeploymentNotReady", "Deployment is not ready", detail)


def lws_not_ready(detail: str) -> ReadinessResult:
    return ReadinessResult(False, "LeaderWorkerSetNotReady", "LeaderWorkerSet is not ready", detail)


# --- Deployment ------------------------------------------------------------------------------------


def test_recorded_deployment_is_ready() -> None:
    assert deployment_ready(recorded("deployment")) == DEPLOYMENT_READY


@pytest.mark.parametrize(
    ("patch", "detail"),
    [
        ({"spec": {"paused": True}}, "spec.paused is true"),
        # The spec was just edited: generation moved on, the controller has not caught up.
        ({"metadata": {"generation": 3}}, "observedGeneration=2 < generation=3"),
        # Mid rollout: one pod of the new ReplicaSet, surge pod still around.
        ({"status": {"updatedReplicas": 1, "replicas": 3}}, "updatedReplicas=1 < desired=2"),
        ({"status": {"availableReplicas": 1, "readyReplicas": 1}}, "availableReplicas=1 < desired=2"),
        # All new pods available but an old surge pod is still terminating.
        ({"status": {"replicas": 3}}, "replicas=3 != desired=2"),
        ({"status": {"availableReplicas": DELETE}}, "availableReplicas=0 < desired=2"),
        (
            {
                "status": {
                    "conditions": [
                        condition(
                            "Available",
                            "False",
                            "MinimumReplicasUnavailable",
                            "Deployment does not have minimum availability.",
                        )
                    ]
                }
            },
            "condition Available is not True",
        ),
        ({"status": {"conditions": DELETE}}, "condition Available is not True"),
    ],
)
def test_deployment_not_ready(patch: dict, detail: str) -> None:
    assert deployment_ready(patched(recorded("deployment"), patch)) == deployment_not_ready(detail)


def test_deployment_check_order_generation_before_counts() -> None:
    """A stale generation is reported even when the counts are also short."""
    deployment = patched(
        recorded("deployment"), {"metadata": {"generation": 5}, "status": {"availableReplicas": 0}}
    )
    assert deployment_ready(deployment).detail == "observedGeneration=2 < generation=5"


def test_deployment_surplus_counts_are_fine_but_surplus_replicas_are_not() -> None:
    """``updated``/``available`` need only reach desired; ``replicas`` must equal it."""
    over = patched(recorded("deployment"), {"status": {"updatedReplicas": 3, "availableReplicas": 3}})
    assert deployment_ready(over).ready


def test_deployment_any_available_true_condition_counts() -> None:
    """The operator loops over every condition, so a later Available=True still counts."""
    conditions = [
        condition("Available", "False", "MinimumReplicasUnavailable"),
        condition("Available", "True", "MinimumReplicasAvailable"),
    ]
    assert deployment_ready(patched(recorded("deployment"), {"status": {"conditions": conditions}})).ready


def test_deployment_replicas_zero_is_ready_whatever_the_status() -> None:
    deployment = patched(recorded("deployment"), {"spec": {"replicas": 0}, "metadata": {"generation": 9}})
    deployment["status"] = {"observedGeneration": 1}
    assert deployment_ready(deployment) == DEPLOYMENT_READY


def test_paused_beats_replicas_zero() -> None:
    deployment = patched(recorded("deployment"), {"spec": {"replicas": 0, "paused": True}})
    assert deployment_ready(deployment) == deployment_not_ready("spec.paused is true")


def test_deployment_replicas_default_to_one() -> None:
    deployment = patched(
        recorded("deployment"),
        {
            "spec": {"replicas": DELETE},
            "status": {"replicas": 1, "updatedReplicas": 1, "availableReplicas": 1},
        },
    )
    assert deployment_ready(deployment).ready
    deployment["status"]["replicas"] = 2
    assert deployment_ready(deployment).detail == "replicas=2 != desired=1"


def test_fresh_deployment_without_status() -> None:
    """Just created: the API server returns no status block at all."""
    deployment = recorded("deployment")
    deployment["metadata"]["generation"] = 1
    del deployment["status"]
    assert deployment_ready(deployment) == deployment_not_ready("observedGeneration=0 < generation=1")


def test_missing_deployment() -> None:
    assert deployment_ready(None) == deployment_not_ready("Deployment not found")


# --- LeaderWorkerSet -------------------------------------------------------------------------------


def test_recorded_lws_is_ready() -> None:
    assert leader_worker_set_ready(recorded("leaderworkerset")) == LWS_READY


@pytest.mark.parametrize(
    ("patch", "detail"),
    [
        ({"status": {"readyReplicas": 1}}, "readyReplicas=1 < desired=2"),
        ({"status": {"readyReplicas": DELETE}}, "readyReplicas=0 < desired=2"),
        (
            {"status": {"conditions": [condition("Available", "False", "AllGroupsReady")]}},
            "condition Available is not True",
        ),
        ({"status": {"conditions": DELETE}}, "condition Available is not True"),
    ],
)
def test_lws_not_ready(patch: dict, detail: str) -> None:
    assert leader_worker_set_ready(patched(recorded("leaderworkerset"), patch)) == lws_not_ready(detail)


def test_lws_has_no_generation_check() -> None:
    """The operator's LWS predicate ignores generations (a known gap we keep)."""
    lws = patched(recorded("leaderworkerset"), {"metadata": {"generation": 7}})
    assert leader_worker_set_ready(lws).ready


def test_lws_only_the_first_available_condition_counts() -> None:
    conditions = [
        condition("Available", "False", "GroupsNotReady"),
        condition("Available", "True", "AllGroupsReady"),
    ]
    lws = patched(recorded("leaderworkerset"), {"status": {"conditions": conditions}})
    assert leader_worker_set_ready(lws) == lws_not_ready("condition Available is not True")


def test_lws_replicas_zero_and_default() -> None:
    assert leader_worker_set_ready(
        patched(recorded("leaderworkerset"), {"spec": {"replicas": 0}, "status": DELETE})
    ).ready
    lws = patched(recorded("leaderworkerset"), {"spec": {"replicas": DELETE}, "status": {"readyReplicas": 1}})
    assert leader_worker_set_ready(lws).ready
    lws["status"]["readyReplicas"] = 0
    assert leader_worker_set_ready(lws).detail == "readyReplicas=0 < desired=1"


def test_missing_lws() -> None:
    assert leader_worker_set_ready(None) == lws_not_ready("LeaderWorkerSet not found")


# --- DCD -------------------------------------------------------------------------------------------


def test_recorded_dcd_is_ready() -> None:
    assert dcd_ready(recorded("dcd")) == ReadinessResult(True, "", "")


def test_dcd_stale_generation() -> None:
    dcd = patched(recorded("dcd"), {"metadata": {"generation": 4}})
    assert dcd_ready(dcd) == ReadinessResult(
        False, SOME_RESOURCES_ARE_NOT_READY, "spec not yet processed: generation=4, observedGeneration=3"
    )


def test_dcd_without_status_is_stale() -> None:
    dcd = recorded("dcd")
    dcd["metadata"]["generation"] = 1
    del dcd["status"]
    assert dcd_ready(dcd).message == "spec not yet processed: generation=1, observedGeneration=0"


@pytest.mark.parametrize(
    "conditions",
    [
        [condition("Available", "False", "DeploymentNotReady", "Deployment is not ready")],
        [condition("Available", "Unknown", "Reconciling", "Starting to reconcile DynamoComponentDeployment")],
        # DynamoComponentReady alone does not count: only Available is read.
        [condition("DynamoComponentReady", "True", "ComponentReady", "DynamoComponent is ready")],
        [],
    ],
)
def test_dcd_not_available(conditions: list) -> None:
    dcd = patched(recorded("dcd"), {"status": {"conditions": conditions}})
    assert dcd_ready(dcd) == ReadinessResult(
        False, SOME_RESOURCES_ARE_NOT_READY, "Component deployment not ready - Available condition not true"
    )


def test_dcd_generation_checked_before_conditions() -> None:
    dcd = patched(recorded("dcd"), {"metadata": {"generation": 4}, "status": {"conditions": []}})
    assert dcd_ready(dcd).message.startswith("spec not yet processed")


def test_missing_dcd() -> None:
    assert dcd_ready(None) == ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, "resource not found")


# --- workload standing in for its DCD ----------------------------------------------------------------


def test_workload_as_dcd() -> None:
    assert workload_as_dcd(DEPLOYMENT_READY) == ReadinessResult(True, "", "")
    not_ready = deployment_ready(patched(recorded("deployment"), {"status": {"availableReplicas": 0}}))
    assert workload_as_dcd(not_ready) == ReadinessResult(
        False,
        SOME_RESOURCES_ARE_NOT_READY,
        "Component deployment not ready - Available condition not true",
        "Deployment is not ready: availableReplicas=0 < desired=2",
    )
