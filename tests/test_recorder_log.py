"""What the recorder reads from the Dynamo operator's log (``localcluster/recorder.py``): a DCD its
controller cannot build fails only there (the graph's status stays pending), so its reconcile
errors are the operator's verdict. The lines below are the operator's own format (zap's console
encoder: time, level, message, then the fields as JSON), as its log of 2026-12-03 held them."""

from __future__ import annotations

import json
from pathlib import Path

from localcluster.agreement import operator_verdict
from localcluster.recorder import reconcile_errors


def _line(controller: str, name: str, namespace: str, error: str, message: str = "Reconciler error") -> str:
    fields = {"controller": controller, "controllerGroup": "nvidia.com", "controllerKind": controller,
              controller: {"name": name, "namespace": namespace}, "namespace": namespace, "name": name,
              "reconcileID": "606d6cd8-eed3-467c-a099-843ff799173e", "error": error}
    return f"2026-12-03T15:33:24Z\tERROR\t{message}\t{json.dumps(fields)}"


def test_reconcile_errors_of_one_namespace_distinct_without_conflicts(tmp_path: Path) -> None:
    log = tmp_path / "dynamo-operator.log"
    failover = "failed to build failover pod: failover is currently supported only for vLLM (detected: trtllm)"
    log.write_text("\n".join([
        "2026-12-03T15:33:20Z\tINFO\tStarting workers\t{\"worker count\": 1}",
        _line("DynamoComponentDeployment", "g-worker", "o1", failover),
        _line("DynamoComponentDeployment", "g-worker", "o1", failover),
        _line("DynamoComponentDeployment", "g-frontend", "o1",
              'failed to update DynamoComponentDeployment status: Operation cannot be fulfilled on '
              'dynamocomponentdeployments.nvidia.com "g-frontend": the object has been modified; please apply '
              "your changes to the latest version and try again"),
        _line("DynamoComponentDeployment", "h-worker", "o2", "another namespace"),
        _line("DynamoComponentDeployment", "g-worker", "o1", "not a reconcile error", message="Reconciling"),
        "not a log line at all",
    ]) + "\n")
    assert reconcile_errors(log, "o1") == [
        {"controller": "DynamoComponentDeployment", "name": "g-worker", "error": failover}]
    assert reconcile_errors(log, "o3") == []
    assert reconcile_errors(tmp_path / "missing.log", "o1") == []
    assert reconcile_errors(None, "o1") == []


def test_a_pending_graph_is_failed_by_the_errors_of_the_dcds_it_still_reports_unprocessed() -> None:
    """Only a DCD the graph still reports "spec not yet processed" failed; the error of an object
    that was built after all (the DGD controller's MPI Secret read before the operator made it)
    is not the verdict."""
    unprocessed = ("Resources not ready: g-w-8a994d6c: spec not yet processed: generation=1, "
                   "observedGeneration=0")
    result = {"admission": [{"kind": "DynamoGraphDeployment", "name": "g", "accepted": True}],
              "status": [{"kind": "DynamoGraphDeployment", "name": "g", "state": "pending",
                          "conditions": [{"type": "Ready", "status": "False", "message": unprocessed}]}],
              "objects": []}
    assert operator_verdict(result) == "objects"
    result["reconcile_errors"] = [
        {"controller": "DynamoGraphDeployment", "name": "g", "error": 'reading source secret: Secret "k" not found'},
        {"controller": "DynamoComponentDeployment", "name": "g-frontend", "error": "a retry that succeeded"},
    ]
    assert operator_verdict(result) == "objects"
    result["reconcile_errors"].append({"controller": "DynamoComponentDeployment", "name": "g-w-8a994d6c", "error": "boom"})
    assert operator_verdict(result) == "failed: reconcile error of DynamoComponentDeployment g-w-8a994d6c: boom"
