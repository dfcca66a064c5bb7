"""Operator mode drift: predicted expansion vs what the operator created (a warning, never a failure)."""

from __future__ import annotations

import copy

from dynamo_pulumi.readiness.drift import drift, drift_summary, object_id

PREDICTED = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llm-decode-1a2b3c4d", "namespace": "team-a", "labels": {"nvidia.com/dynamo-component": "decode"}},
    "spec": {
        "replicas": 2,
        "template": {"spec": {"containers": [
            {"name": "main", "image": "vllm:1", "env": [{"name": "A", "value": "1"}],
             "resources": {"limits": {"nvidia.com/gpu": 1}}},
        ]}},
    },
}


def _actual(obj):
    live = copy.deepcopy(obj)
    live["metadata"].update({"uid": "u", "resourceVersion": "7", "generation": 1, "creationTimestamp": "t",
                             "managedFields": [{}], "ownerReferences": [{"kind": "DynamoComponentDeployment"}]})
    live["metadata"]["labels"]["added-by-webhook"] = "x"
    container = live["spec"]["template"]["spec"]["containers"][0]
    container["imagePullPolicy"] = "IfNotPresent"
    container["env"].insert(0, {"name": "INJECTED", "value": "y"})
    container["resources"]["limits"]["nvidia.com/gpu"] = "1"  # quantities come back as strings
    live["spec"]["progressDeadlineSeconds"] = 600
    live["status"] = {"replicas": 2}
    return live


def test_server_populated_and_defaulted_fields_are_not_drift():
    assert drift([PREDICTED], {object_id(PREDICTED): _actual(PREDICTED)}) == []


def test_a_changed_predicted_field_is_reported_with_its_path():
    live = _actual(PREDICTED)
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "vllm:2"
    live["spec"]["replicas"] = 3
    assert drift([PREDICTED], {object_id(PREDICTED): live}) == [
        {"object": "Deployment/llm-decode-1a2b3c4d", "path": "spec.replicas", "predicted": 2, "actual": 3},
        {"object": "Deployment/llm-decode-1a2b3c4d", "path": "spec.template.spec.containers[name=main].image",
         "predicted": "vllm:1", "actual": "vllm:2"},
    ]


def test_named_list_entries_are_matched_by_name_not_position():
    live = _actual(PREDICTED)
    live["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "B", "value": "2"}]
    (finding,) = drift([PREDICTED], {object_id(PREDICTED): live})
    assert finding["path"] == "spec.template.spec.containers[name=main].env[name=A]" and finding["actual"] is None


def test_a_predicted_object_the_operator_did_not_create_is_reported_once():
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "llm-decode"}, "spec": {"ports": [{"port": 9090}]}}
    findings = drift([PREDICTED, service], {object_id(PREDICTED): _actual(PREDICTED), object_id(service): None})
    assert findings == [{"object": "Service/llm-decode", "path": "", "predicted": "present", "actual": None}]
    assert drift_summary(findings) == "Service/llm-decode: predicted but not created by the operator"


def test_an_expansion_differing_from_the_prediction_lists_every_difference_in_order():
    other = copy.deepcopy(PREDICTED)
    other["metadata"]["name"] = "llm-frontend"
    live_other = _actual(other)
    live_other["metadata"]["labels"]["nvidia.com/dynamo-component"] = "Frontend"
    findings = drift([PREDICTED, other], {object_id(other): live_other})
    assert [(f["object"], f["path"]) for f in findings] == [
        ("Deployment/llm-decode-1a2b3c4d", ""),
        ("Deployment/llm-frontend", "metadata.labels.nvidia.com/dynamo-component"),
    ]


def test_drift_is_deterministic():
    live = _actual(PREDICTED)
    live["spec"]["replicas"] = 5
    assert drift([PREDICTED], {object_id(PREDICTED): live}) == drift([PREDICTED], {object_id(PREDICTED): live})
