"""Oracle: kstatus, kubernetes-sigs/cli-utils ``pkg/kstatus/status/status_compute_test.go``.

Translated: ``TestDeploymentStatus`` (5 cases, judged as render-mode workloads) and
``TestCRDGenericStatus`` (5 cases: kstatus' rules for any custom resource, applied to our custom
resource, a DynamoGraphDeployment in operator mode), plus the deletion rule of
``generic.go`` (``checkGenericProperties``), which no kstatus test covers.

Not applicable (kinds we never judge): ``TestPodStatus``, ``TestPVCStatus``, ``TestStsStatus``,
``TestDaemonsetStatus``, ``TestReplicasetStatus``, ``TestPDBStatus``, ``TestJobStatus``,
``TestCronJobStatus``, ``TestServiceStatus``, ``TestCRDStatus`` (CustomResourceDefinitions);
``status_augment_test.go``, ``core_test.go`` and ``util_test.go`` test condition plumbing.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from oracle_readiness import OracleCase, judge_custom_resource, judge_workload

from dynamo_pulumi.readiness.object_status import ObjectState

SOURCE = "kubernetes-sigs/cli-utils pkg/kstatus/status/status_compute_test.go"
GENERIC = "kubernetes-sigs/cli-utils pkg/kstatus/status/generic.go"
CUR, PROG, FAIL, TERM = ObjectState.CURRENT, ObjectState.IN_PROGRESS, ObjectState.FAILED, ObjectState.TERMINATING

DEP_NO_STATUS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: test, generation: 1}
"""
DEP_OK = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: test, generation: 1, namespace: qual}
status:
  observedGeneration: 1
  updatedReplicas: 1
  readyReplicas: 1
  availableReplicas: 1
  replicas: 1
  conditions:
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable}
  - {type: Available, status: "True"}
"""
DEP_NOT_PROGRESSING = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: test, generation: 1, namespace: qual}
spec: {progressDeadlineSeconds: 45}
status:
  observedGeneration: 1
  updatedReplicas: 1
  readyReplicas: 1
  availableReplicas: 1
  replicas: 1
  conditions:
  - {type: Progressing, status: "False", reason: Some reason}
  - {type: Available, status: "True"}
"""
DEP_NO_PROGRESS_DEADLINE_SECONDS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: test, generation: 1, namespace: qual}
status:
  observedGeneration: 1
  updatedReplicas: 1
  readyReplicas: 1
  availableReplicas: 1
  replicas: 1
  conditions:
  - {type: Available, status: "True"}
"""
DEP_NOT_AVAILABLE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: test, generation: 1, namespace: qual}
status:
  observedGeneration: 1
  updatedReplicas: 1
  readyReplicas: 1
  availableReplicas: 1
  replicas: 1
  conditions:
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable}
  - {type: Available, status: "False"}
"""

# The generic custom-resource fixtures, with our custom resource's apiVersion and kind.
CR_NO_STATUS = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {generation: 1, name: test, namespace: qual}
"""
CR_MISMATCH_STATUS_GENERATION = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: test, namespace: qual, generation: 2}
status: {observedGeneration: 1}
"""
CR_READY = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: test, namespace: qual, generation: 1}
status:
  conditions:
  - {type: Ready, status: "True", message: All looks ok, reason: AllOk}
"""
CR_NOT_READY = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {generation: 1, name: test, namespace: qual}
status:
  observedGeneration: 1
  conditions:
  - {type: Ready, status: "False", reason: NotReadyYet}
"""
CR_NO_CONDITION = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: test, namespace: qual, generation: 1}
status:
  conditions:
  - {type: SomeCondition, status: "False"}
"""
#: generic.go: a resource with ``metadata.deletionTimestamp`` is Terminating whatever its status says.
CR_TERMINATING = """
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: test, namespace: qual, generation: 1, deletionTimestamp: "2026-12-01T10:00:00Z"}
status:
  observedGeneration: 1
  state: successful
  conditions:
  - {type: Ready, status: "True", observedGeneration: 1, reason: all_resources_are_ready}
"""
NOT_RECONCILED = ("kstatus knows nothing of this kind, so a resource without observedGeneration is Current to it; the "
                  "operator always writes observedGeneration (or the Ready condition's) when it reconciles, so until "
                  "then the spec is not processed")


def _obj(text: str) -> dict[str, Any]:
    return yaml.safe_load(text)


def case(test: str, name: str, text: str, ready: bool, state: str, reason: str = "", stricter: str = "",
         source: str = SOURCE) -> OracleCase:
    return OracleCase(source, f"{test}/{name}", _obj(text), ready, state, reason, stricter)


DEPLOYMENT_CASES = [
    case("TestDeploymentStatus", "depNoStatus", DEP_NO_STATUS, False, PROG, "Deployment generation 1 not yet observed"),
    case("TestDeploymentStatus", "depOK", DEP_OK, True, CUR),
    # kstatus: InProgress (ReplicaSetNotAvailable). Ours: Failed, the reason shown, still waited on.
    case("TestDeploymentStatus", "depNotProgressing", DEP_NOT_PROGRESSING, False, FAIL, "Some reason"),
    case("TestDeploymentStatus", "depNoProgressDeadlineSeconds", DEP_NO_PROGRESS_DEADLINE_SECONDS, True, CUR),
    case("TestDeploymentStatus", "depNotAvailable", DEP_NOT_AVAILABLE, False, PROG, "Deployment is not Available"),
]
CUSTOM_RESOURCE_CASES = [
    case("TestCRDGenericStatus", "crdNoStatus", CR_NO_STATUS, True, PROG,
         "spec not yet processed: generation=1, observedGeneration=0", NOT_RECONCILED),
    case("TestCRDGenericStatus", "crdReady", CR_READY, True, PROG,
         "spec not yet processed: generation=1, observedGeneration=0", NOT_RECONCILED),
    case("TestCRDGenericStatus", "crdNotReady", CR_NOT_READY, False, PROG, "NotReadyYet"),
    case("TestCRDGenericStatus", "crdNoCondition", CR_NO_CONDITION, True, PROG, "spec not yet processed", NOT_RECONCILED),
    case("TestCRDGenericStatus", "crdMismatchStatusGeneration", CR_MISMATCH_STATUS_GENERATION, False, PROG,
         "spec not yet processed: generation=2, observedGeneration=1"),
    case("checkGenericProperties", "deletionTimestamp", CR_TERMINATING, False, TERM, "being deleted", source=GENERIC),
]
CASES = [*DEPLOYMENT_CASES, *CUSTOM_RESOURCE_CASES]


@pytest.mark.parametrize("oracle", DEPLOYMENT_CASES, ids=lambda c: c.id)
def test_kstatus_deployment_verdict(oracle: OracleCase):
    assert oracle.obj is not None
    state = judge_workload(oracle.obj)
    assert state.ready is oracle.ready
    assert state.status.state == oracle.state
    assert oracle.text in state.reason()


@pytest.mark.parametrize("oracle", CUSTOM_RESOURCE_CASES, ids=lambda c: c.id)
def test_kstatus_generic_rules_on_our_custom_resource(oracle: OracleCase):
    status = judge_custom_resource(oracle.obj)
    assert status.is_ready is oracle.ready
    assert status.object_status is not None and status.object_status.state == oracle.state
    assert oracle.text in str(status.object_status)
    assert not status.terminal


def test_a_terminating_deployment_is_not_ready_however_complete():
    """generic.go's deletion rule on a Deployment kstatus would otherwise call Current (depOK)."""
    terminating = _obj(DEP_OK)
    terminating["metadata"]["deletionTimestamp"] = "2026-12-01T10:00:00Z"
    state = judge_workload(terminating)
    assert not state.ready and state.status.state == TERM
    assert state.reason() == "Deployment is being deleted (deletionTimestamp set)"
