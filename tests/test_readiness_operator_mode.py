"""Operator mode: readiness read off the DGD/DCD custom resource the operator reconciles."""

from __future__ import annotations

import pytest
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


def test_a_ready_condition_of_this_generation_without_the_status_generation_is_not_ready():
    dgd = recording("dgd-ready")
    dgd["metadata"]["generation"] = dgd["status"]["conditions"][0]["observedGeneration"] = 4
    result = dgd_ready(dgd)
    assert not result.ready and result.message == "spec not yet processed: generation=4, observedGeneration=3"


def test_a_terminating_dgd_or_dcd_is_never_ready():
    dgd = recording("dgd-ready")
    dgd["metadata"]["deletionTimestamp"] = "2026-12-01T10:00:00Z"
    status = operator_status("DynamoGraphDeployment", dgd)
    assert not status.is_ready and status.ready.message == "DynamoGraphDeployment is being deleted (deletionTimestamp set)"
    assert status.object_status is not None and status.object_status.state == "Terminating"
    dcd = recording("dcd-ready")
    dcd["metadata"]["deletionTimestamp"] = "2026-12-01T10:00:00Z"
    assert operator_status("DynamoComponentDeployment", dcd).ready.message == (
        "DynamoComponentDeployment is being deleted (deletionTimestamp set)")


def test_the_object_state_of_the_custom_resource():
    assert operator_status("DynamoGraphDeployment", None).object_status.state == "NotFound"
    assert operator_status("DynamoGraphDeployment", recording("dgd-ready")).object_status.state == "Current"
    assert operator_status("DynamoGraphDeployment", recording("dgd-failed")).object_status.state == "Failed"
    assert operator_status("DynamoGraphDeployment", recording("dgd-pending")).object_status.state == "InProgress"
    stale_failure = recording("dgd-failed")
    stale_failure["metadata"]["generation"] = 3
    status = operator_status("DynamoGraphDeployment", stale_failure)
    assert status.object_status.state == "InProgress" and not status.terminal


@pytest.mark.parametrize(("reason", "message", "terminal"), [
    ("unsupported_workload_provider", 'unsupported workload provider "x"',
     'unsupported_workload_provider: unsupported workload provider "x"'),
    ("selected_workload_provider_unavailable", "", "selected_workload_provider_unavailable"),
    ("failed_to_reconcile_the_resources", "RBAC manager not initialized", ""),
])
def test_only_failures_the_operator_gives_up_on_are_terminal(reason, message, terminal):
    dgd = recording("dgd-failed")
    dgd["status"]["conditions"][0].update(reason=reason, message=message)
    assert operator_status("DynamoGraphDeployment", dgd).terminal == terminal
    dgd["status"]["state"] = "pending"
    assert operator_status("DynamoGraphDeployment", dgd).terminal == ""


def test_a_failure_is_reported_before_the_rolling_update_it_interrupted():
    dgd = recording("dgd-failed")
    dgd["status"]["rollingUpdate"] = {"phase": "Pending"}
    result = dgd_ready(dgd)
    assert result.reason == "failed_to_initialize_worker_hash"
    dgd["status"]["state"] = "pending"
    assert dgd_ready(dgd).reason == "rolling_update_in_progress"
