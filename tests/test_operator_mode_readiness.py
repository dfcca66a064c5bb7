"""Operator mode end to end through the readiness provider's waiter, on recorded DGD status objects:
the readiness resource our DGD registers (its targets, its predicted expansion) is judged ready,
not ready during a rolling update, failed with the operator's reasons; and an operator expansion
that differs from our prediction comes back as a drift report, never a failure."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from update_rule_cases import BASE, PLATFORM

from dynamo_pulumi.cluster.api import ResourceRef
from dynamo_pulumi.cluster.provider import wait_request
from dynamo_pulumi.cluster.session import drift_after_wait
from dynamo_pulumi.cluster.waiter import Waiter
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DynamoGraphDeployment

READINESS_TYPE = "pulumi-python:dynamic/dynamo:GraphReadiness"


class RecordedApi:
    """A cluster that holds recorded objects: ``list`` and ``get`` only (no watch needed for a
    one-shot status or the drift read)."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.objects = objects

    def _matches(self, obj: dict[str, Any], ref: ResourceRef, namespace: str) -> bool:
        meta = obj.get("metadata") or {}
        return (obj.get("apiVersion"), obj.get("kind")) == (ref.api_version, ref.kind) and meta.get("namespace", namespace) == namespace

    def list(self, ref: ResourceRef, namespace: str, field_selector: str = "", label_selector: str = "",
             **_options: Any) -> dict[str, Any]:
        items = [o for o in self.objects if self._matches(o, ref, namespace)]
        if field_selector.startswith("metadata.name="):
            items = [o for o in items if o["metadata"]["name"] == field_selector.split("=", 1)[1]]
        return {"metadata": {"resourceVersion": "1"}, "items": copy.deepcopy(items)}

    def get(self, ref: ResourceRef, namespace: str, name: str, **_options: Any) -> dict[str, Any] | None:
        return next((copy.deepcopy(o) for o in self.objects
                     if self._matches(o, ref, namespace) and o["metadata"]["name"] == name), None)


@pytest.fixture(scope="module")
def readiness_inputs() -> dict[str, Any]:
    rec, _ = run_program(lambda: DynamoGraphDeployment("g", BASE, platform=PLATFORM, mode="operator"))
    (readiness,) = rec.by_type(READINESS_TYPE)
    return readiness.inputs


def _dgd(generation: int = 2, observed: int = 2, ready: str = "True", state: str = "successful",
         reason: str = "AllResourcesReady", message: str = "", rolling: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {
        "observedGeneration": observed,
        "state": state,
        "conditions": [{"type": "Ready", "status": ready, "reason": reason, "message": message,
                        "observedGeneration": observed}],
        "components": {"decode": {"componentKind": "PodClique", "componentNames": ["g-0-decode"],
                                  "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2 if ready == "True" else 0}},
    }
    if rolling is not None:
        status["rollingUpdate"] = {"phase": rolling}
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": "g", "namespace": "ns", "generation": generation}, **BASE_SPEC, "status": status}


BASE_SPEC = {"spec": BASE["spec"]}


def _waiter(inputs: dict[str, Any], objects: list[dict[str, Any]]) -> Waiter:
    return Waiter(RecordedApi(objects), wait_request(inputs))  # type: ignore[arg-type]


def test_the_readiness_resource_watches_the_dgd_itself_with_the_predicted_expansion(readiness_inputs):
    assert readiness_inputs["mode"] == "operator"
    assert [(t["kind"], t["name"]) for t in readiness_inputs["targets"]] == [("DynamoGraphDeployment", "g")]
    kinds = {e["kind"] for e in readiness_inputs["expansion"]}
    assert "PodCliqueSet" in kinds
    assert len(readiness_inputs["predicted"]) == len(readiness_inputs["expansion"])


def test_a_caught_up_ready_successful_dgd_is_ready(readiness_inputs):
    status = _waiter(readiness_inputs, [_dgd()]).status()
    assert status.is_ready and status.state == "successful"
    assert status.components_status()["decode"]["readyReplicas"] == 2


def test_a_rolling_update_in_progress_is_not_ready(readiness_inputs):
    status = _waiter(readiness_inputs, [_dgd(rolling="InProgress")]).status()
    assert not status.is_ready and "rolling update InProgress" in status.ready.message


def test_a_status_for_an_older_generation_is_not_ready(readiness_inputs):
    assert not _waiter(readiness_inputs, [_dgd(generation=3, observed=2)]).status().is_ready


def test_a_failed_dgd_carries_the_operators_reason(readiness_inputs):
    failed = _dgd(ready="False", state="failed", reason="SomeResourcesNotReady",
                  message="decode: PodClique g-0-decode not ready")
    status = _waiter(readiness_inputs, [failed]).status()
    assert not status.is_ready and status.state == "failed"
    assert status.ready.reason == "SomeResourcesNotReady" and "g-0-decode" in status.ready.message
    assert not status.terminal  # the operator requeues it: keep waiting


def test_an_operator_expansion_that_differs_from_the_prediction_is_a_drift_report(readiness_inputs, monkeypatch):
    monkeypatch.setattr("pulumi.log.warn", lambda *args, **kwargs: None)
    predicted = readiness_inputs["predicted"]
    made = copy.deepcopy(predicted)
    pcs = next(o for o in made if o["kind"] == "PodCliqueSet")
    pcs["spec"]["replicas"] = 3  # the operator made something else than we predicted
    missing = next(o for o in made if o["kind"] == "Service")
    made.remove(missing)
    waiter = _waiter(readiness_inputs, [_dgd(), *made])
    findings = drift_after_wait(waiter, predicted)
    assert {"object": f"PodCliqueSet/{pcs['metadata']['name']}", "path": "spec.replicas",
            "predicted": 1, "actual": 3} in findings
    assert any(f["object"] == f"Service/{missing['metadata']['name']}" and f["actual"] is None for f in findings)


def test_an_expansion_as_predicted_has_no_drift(readiness_inputs):
    predicted = readiness_inputs["predicted"]
    assert drift_after_wait(_waiter(readiness_inputs, [_dgd(), *copy.deepcopy(predicted)]), predicted) == []
