"""Operator mode: readiness read off the DGD/DCD custom resource the operator reconciles."""

from __future__ import annotations

from cluster_recordings import recording

from dynamo_pulumi.readiness.operator_mode import dgd_ready, operator_status


def test_a_reconciled_successful_dgd_is_ready():
    status = operator_status("DynamoGraphDeployment", recording("dgd-ready"))
    assert status.is_ready and status.state == "successful"
    assert status.ready_condition() == {"type": "Ready", "status": "True", "reason": "all_resources_are_ready",
                                        "message": "All resources are ready"}
    assert status.components_status()["decode"] == {
        "componentKind": "Deployment", "componentNames": ["llm-decode-1a2b3c4d"], "replicas": 2,
        "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2,
    }


def test_a_stale_status_is_never_ready_whatever_it_says():
    dgd = recording("dgd-ready")
    dgd["metadata"]["generation"] = 4
    result = dgd_ready(dgd)
    assert not result.ready and result.message == "spec not yet processed: generation=4, observedGeneration=3"


def test_a_ready_condition_for_an_older_generation_is_not_ready():
    dgd = recording("dgd-ready")
    dgd["status"]["conditions"][0]["observedGeneration"] = 2
    assert not dgd_ready(dgd).ready


def test_a_rolling_update_in_progress_is_not_ready_even_with_ready_true():
    dgd = recording("dgd-rollout")
    dgd["status"]["conditions"][0]["status"] = "True"
    result = dgd_ready(dgd)
    assert not result.ready and result.reason == "rolling_update_in_progress"


def test_during_a_rollout_the_rolling_component_is_the_unready_one():
    status = operator_status("DynamoGraphDeployment", recording("dgd-rollout"))
    assert [c.component for c in status.not_ready()] == ["decode"]
    assert status.components_status()["decode"]["componentNames"] == ["llm-decode-1a2b3c4d", "llm-decode-5e6f7a8b"]


def test_ready_true_but_state_not_successful_is_not_ready():
    dgd = recording("dgd-ready")
    dgd["status"]["state"] = "pending"
    assert not dgd_ready(dgd).ready


def test_a_failed_state_is_not_terminal_the_operator_retries_it():
    status = operator_status("DynamoGraphDeployment", recording("dgd-failed"))
    assert not status.is_ready and not status.terminal
    assert status.ready.reason == "failed_to_initialize_worker_hash"
    assert status.ready.message == "failed to compute worker hash: json: unsupported value: NaN"


def test_a_pending_graph_keeps_the_operators_reason():
    status = operator_status("DynamoGraphDeployment", recording("dgd-pending"))
    assert status.ready.reason == "some_resources_are_not_ready" and not status.terminal
    assert [c.summary() for c in status.not_ready()] == ["decode: 0/2 ready (Deployment llm-decode-1a2b3c4d: 2 updated, 0 available of 2)"]


def test_a_missing_dgd_is_not_ready_and_not_terminal():
    status = operator_status("DynamoGraphDeployment", None)
    assert not status.is_ready and status.ready.message == "resource not found" and not status.terminal


def test_a_standalone_dcd_is_ready_on_available_true_with_caught_up_generation():
    status = operator_status("DynamoComponentDeployment", recording("dcd-ready"))
    assert status.is_ready and status.components_status()["solo"]["readyReplicas"] == 1
    stale = recording("dcd-ready")
    stale["metadata"]["generation"] = 3
    assert not operator_status("DynamoComponentDeployment", stale).is_ready
