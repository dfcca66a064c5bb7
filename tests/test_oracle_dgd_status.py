"""Oracle: the Dynamo operator's DGD status, wxsms/dynamo ``deploy/operator/internal/controller/``
``dgd_workload_program_test.go``, ``dynamographdeployment_controller_test.go``.

Each case is the custom resource as the case leaves it (the status the program writes), judged in
operator mode. The operator's own word for "ready" is ``state: successful`` with ``Ready=True``;
what it does after a failure decides whether waiting can still succeed: ``Fail()`` marks
``state: failed`` and writes the failed generation only on the ``Ready`` condition, and the
controller requeues every failure except those it returns as ``reconcile.TerminalError``
(``unsupported_workload_provider``, ``selected_workload_provider_unavailable``), which we call
terminal. The checkpoint-compatibility failure is not requeued either, but it shares its reason
(``failed_to_reconcile_the_resources``) with retried failures, so it is waited on until the
deadline with its message shown (docs/READINESS.md).

Translated, ``dgd_workload_program_test.go``: ``TestWorkloadProgramResultOwnsReadyAndObservedGeneration``
(3), ``TestSelectedGroveProgramDoesNotFallbackWhenUnavailable`` (1),
``TestComponentProgram_ReconcilePreservesResultOnError``,
``TestComponentProgram_ReconcileRejectsInvalidLegacyGMSClient``,
``TestGroveProgram_ReconcilePreservesResultOnError``,
``TestComponentProgram_ReconcileReturnsPartialRolloutStatusOnLaterError`` (1 each);
``dynamographdeployment_controller_test.go``: the two ``TestDynamoGraphDeploymentReconcile*``
cases and the three single-service cases of ``TestComponentWorkloadsReconciler_Reconcile`` (a DCD
judged as a standalone DCD; the multi-service ones aggregate DCDs, covered by tests/test_oracle_graph.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_readiness import OracleCase, judge_custom_resource

from dynamo_pulumi.readiness.object_status import ObjectState

PROGRAM = "wxsms/dynamo deploy/operator/internal/controller/dgd_workload_program_test.go"
CONTROLLER = "wxsms/dynamo deploy/operator/internal/controller/dynamographdeployment_controller_test.go"
CUR, PROG, FAIL, TERM = ObjectState.CURRENT, ObjectState.IN_PROGRESS, ObjectState.FAILED, ObjectState.TERMINATING
CHECKPOINT_MESSAGE = ('component "prefill": Snapshot with gpuMemoryService.mode=InterPod is unsupported\n'
                      'component "prefill": Snapshot with active/passive failover is temporarily unsupported\n'
                      'component "decode": Snapshot with active/passive failover is temporarily unsupported')


def dgd(generation: int, status: dict[str, Any], *, name: str = "test-dgd", deleting: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "default", "generation": generation}
    if deleting:
        metadata |= {"deletionTimestamp": "2026-12-01T10:00:00Z", "finalizers": ["nvidia.com/finalizer"]}
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": metadata,
            "spec": {"backendFramework": "vllm", "components": [{"name": "worker", "type": "worker", "replicas": 1}]},
            "status": status}


def ready(status: str, generation: int, reason: str, message: str) -> dict[str, Any]:
    return {"type": "Ready", "status": status, "observedGeneration": generation, "reason": reason, "message": message,
            "lastTransitionTime": "2026-12-01T10:00:00Z"}


def failed(generation: int, reason: str, message: str, observed: int | None = None, **extra: Any) -> dict[str, Any]:
    """``workloadProgramResult.Fail(generation, reason, err)``: state failed, Ready False for
    ``generation``; ``status.observedGeneration`` keeps the last success (absent after none)."""
    status: dict[str, Any] = {"state": "failed", "conditions": [ready("False", generation, reason, message)], **extra}
    if observed is not None:
        status["observedGeneration"] = observed
    return dgd(generation, status)


def dcd(generation: int, observed: int | None, available: str) -> dict[str, Any]:
    """``betaDCD(...)``: the frontend DCD of ``test-dgd`` with its Available condition."""
    status: dict[str, Any] = {
        "conditions": [{"type": "Available", "status": available}],
        "component": {"componentKind": "Deployment", "componentNames": ["test-dgd-frontend-deployment"], "replicas": 2,
                      "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2},
    }
    if observed is not None:
        status["observedGeneration"] = observed
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment",
            "metadata": {"name": "test-dgd-frontend", "namespace": "default", "generation": generation},
            "spec": {"backendFramework": "vllm", "name": "frontend", "replicas": 2}, "status": status}


OWNS = "TestWorkloadProgramResultOwnsReadyAndObservedGeneration"
CASES = [
    OracleCase(PROGRAM, f"{OWNS}/success installs Ready and advances observed generation",
               dgd(7, {"state": "successful", "observedGeneration": 7,
                       "conditions": [ready("True", 7, "all_resources_are_ready", "All resources are ready")]}), True, CUR),
    OracleCase(PROGRAM, f"{OWNS}/active rolling update keeps an otherwise ready deployment pending",
               dgd(8, {"state": "pending", "observedGeneration": 8, "rollingUpdate": {"phase": "InProgress"},
                       "conditions": [ready("False", 8, "rolling_update_in_progress", "Rolling update in progress")]}),
               False, PROG, "rolling_update_in_progress: Rolling update in progress"),
    OracleCase(PROGRAM, f"{OWNS}/failure preserves the last successfully observed generation",
               failed(6, "failed_to_reconcile_the_resources", "workload failed", observed=5), False, FAIL,
               "failed_to_reconcile_the_resources: workload failed"),
    OracleCase(PROGRAM, "TestSelectedGroveProgramDoesNotFallbackWhenUnavailable",
               failed(3, "selected_workload_provider_unavailable",
                      'selected workload provider "grove" is unavailable because Grove is disabled'),
               False, FAIL, "Grove is disabled"),
    OracleCase(PROGRAM, "TestComponentProgram_ReconcilePreservesResultOnError",
               failed(0, "failed_to_initialize_worker_hash", "reconcile failed",
                      components={"worker": {"replicas": 1}}), False, FAIL, "failed_to_initialize_worker_hash"),
    OracleCase(PROGRAM, "TestComponentProgram_ReconcileRejectsInvalidLegacyGMSClient",
               failed(0, "failed_to_initialize_worker_hash",
                      'component "worker": gpuMemoryService.extraClientContainers names "missing-client", which is '
                      "not a container of the pod template"), False, FAIL, "gpuMemoryService.extraClientContainers"),
    OracleCase(PROGRAM, "TestGroveProgram_ReconcilePreservesResultOnError",
               failed(0, "failed_to_reconcile_the_resources", "RBAC manager not initialized",
                      components={"worker": {"replicas": 1}}), False, FAIL, "RBAC manager not initialized"),
    OracleCase(PROGRAM, "TestComponentProgram_ReconcileReturnsPartialRolloutStatusOnLaterError",
               failed(0, "failed_to_reconcile_the_resources", "RBAC manager not initialized",
                      rollingUpdate={"phase": "Pending"}), False, FAIL, "RBAC manager not initialized"),
    OracleCase(CONTROLLER, "TestDynamoGraphDeploymentReconcileLocksProviderBeforeRejectingStoredCheckpointIncompatibility",
               failed(7, "failed_to_reconcile_the_resources", CHECKPOINT_MESSAGE), False, FAIL,
               "Snapshot with gpuMemoryService.mode=InterPod is unsupported"),
    OracleCase(CONTROLLER, "TestDynamoGraphDeploymentReconcileFinalizesDeletingStoredCheckpointIncompatibility",
               dgd(1, {"state": "successful", "observedGeneration": 1,
                       "conditions": [ready("True", 1, "all_resources_are_ready", "All resources are ready")]},
                   deleting=True), False, TERM, "being deleted"),
    OracleCase(CONTROLLER, "TestComponentWorkloadsReconciler_Reconcile/single service - DCD ready (Available condition = True)",
               dcd(0, None, "True"), True, CUR),
    OracleCase(CONTROLLER, "TestComponentWorkloadsReconciler_Reconcile/single service - DCD stale observed generation stays pending",
               dcd(2, 1, "True"), False, PROG, "spec not yet processed: generation=2, observedGeneration=1"),
    OracleCase(CONTROLLER, "TestComponentWorkloadsReconciler_Reconcile/single service - DCD not ready (Available condition = False)",
               dcd(0, None, "False"), False, PROG, "Component deployment not ready - Available condition not true"),
]
#: The failures the operator returns as ``reconcile.TerminalError``: it will not retry them.
TERMINAL = {"TestSelectedGroveProgramDoesNotFallbackWhenUnavailable"}


@pytest.mark.parametrize("oracle", CASES, ids=lambda c: c.id)
def test_dgd_status_verdict(oracle: OracleCase):
    assert oracle.obj is not None
    status = judge_custom_resource(oracle.obj, str(oracle.obj["kind"]))
    assert status.is_ready is oracle.ready
    assert status.object_status is not None and status.object_status.state == oracle.state
    assert oracle.text in str(status.object_status)
    assert bool(status.terminal) is (oracle.name in TERMINAL)


def test_a_failure_the_operator_does_not_retry_is_terminal_with_its_reason():
    (case,) = [c for c in CASES if c.name in TERMINAL]
    status = judge_custom_resource(case.obj)
    assert status.terminal == ('selected_workload_provider_unavailable: selected workload provider "grove" is '
                               "unavailable because Grove is disabled")


def test_a_terminal_reason_of_an_older_generation_is_not_terminal():
    """After a spec change the operator reconciles again; until its Ready condition describes the
    new generation, the old failure says nothing about it."""
    older = failed(3, "unsupported_workload_provider", "unsupported workload provider \"x\"", observed=3)
    older["metadata"]["generation"] = 4
    status = judge_custom_resource(older)
    assert not status.terminal and not status.is_ready
    assert status.ready.message == "spec not yet processed: generation=4, observedGeneration=3"


def test_the_failure_of_the_current_generation_is_shown_not_spec_not_yet_processed():
    """Issue 15: ``Fail()`` writes the failed generation only on Ready (observedGeneration stays 5)."""
    (case,) = [c for c in CASES if c.name.endswith("failure preserves the last successfully observed generation")]
    status = judge_custom_resource(case.obj)
    assert status.ready.reason == "failed_to_reconcile_the_resources" and status.ready.message == "workload failed"
