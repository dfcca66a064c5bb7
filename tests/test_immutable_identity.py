"""The immutable identity behind operator mode's replacement trigger: it changes for every change
the operator's update webhook refuses, and for no change the webhook accepts in place."""

from __future__ import annotations

import pytest
from update_rule_cases import IMMUTABLE_CASES, MUTABLE_CASES, PLATFORM, RuleCase, dgd, frontend, worker

from dynamo_pulumi.loading.documents import load_documents
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.validation import validate_update
from dynamo_pulumi.validation.immutable_identity import changed_rules, identity_of

P = Platform.model_validate(PLATFORM)


def _model(doc):
    return load_documents([doc]).graphs[0].object


def _changed(case: RuleCase) -> list[str]:
    return changed_rules(identity_of(_model(case.old), P), identity_of(_model(case.new), P))


@pytest.mark.parametrize("case", IMMUTABLE_CASES, ids=lambda c: c.id)
def test_every_change_the_webhook_refuses_changes_the_identity(case: RuleCase):
    refused = validate_update(_model(case.old), _model(case.new), P).errors
    assert refused and any(case.rule in str(e) for e in refused)
    assert _changed(case), f"{case.id}: the webhook refuses it but the trigger would not replace"


@pytest.mark.parametrize("case", MUTABLE_CASES, ids=lambda c: c.id)
def test_changes_the_webhook_accepts_keep_the_identity(case: RuleCase):
    assert _changed(case) == []


def test_the_changed_key_names_the_rule():
    by_id = {c.id: c for c in IMMUTABLE_CASES}
    assert _changed(by_id["backend"]) == ["spec.backendFramework"]
    assert _changed(by_id["node-count"]) == ["spec.components[decode] multinode.nodeCount"]


def test_an_added_component_is_reported_once_by_the_component_set_rule():
    by_id = {c.id: c for c in IMMUTABLE_CASES}
    assert _changed(by_id["component-added"]) == ["spec.components (names; none added or removed)"]


def test_component_order_is_not_identity():
    forward = dgd(frontend(), worker("a"), worker("b"))
    backward = dgd(worker("b"), frontend(), worker("a"))
    assert identity_of(_model(forward), P) == identity_of(_model(backward), P)


def test_explicit_min_available_equal_to_the_default_is_no_change():
    implicit = dgd(frontend(), worker())
    explicit = dgd(frontend(), worker(minAvailable=1))
    assert changed_rules(identity_of(_model(implicit), P), identity_of(_model(explicit), P)) == []


def _dcd(**spec):
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": {"name": "w"},
            "spec": {"backendFramework": "vllm", **{k: v for k, v in worker().items() if k != "name"}, **spec}}


def test_a_dcd_identity_covers_its_backend_and_the_shared_component_rules():
    base = identity_of(_model(_dcd()))
    assert changed_rules(base, identity_of(_model(_dcd(backendFramework="sglang")))) == ["spec.backendFramework"]
    assert changed_rules(base, identity_of(_model(_dcd(multinode={"nodeCount": 2})))) == [
        "spec multinode.nodeCount", "spec single-node vs multi-node"
    ]
    assert changed_rules(base, identity_of(_model(_dcd(replicas=5)))) == []
