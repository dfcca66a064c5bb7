"""The admission edges issue 16 fixed, at their limits: CEL beside a refused ``replicas``, v1alpha1
values beyond v1beta1's bounds, a provider override that cannot decode, and who sends an update."""

from __future__ import annotations

import pytest
from webhook_envtest_support import admission_errors, alpha_dgd, beta_dcd, beta_dgd, worker

from dynamo_pulumi.errors import FieldError, Path
from dynamo_pulumi.validation.cel import replica_cel_beside_schema

RULE = "minAvailable must be less than or equal to replicas unless replicas is 0"


def _refused(path: str) -> list[FieldError]:
    from dynamo_pulumi.errors import invalid

    return [invalid(path, -1, "should be greater than or equal to 0")]


def _dgd(replicas: object, annotations: dict | None = None, **component: object) -> dict:
    return {"kind": "DynamoGraphDeployment", "metadata": {"annotations": annotations or {}},
            "spec": {"components": [{"name": "w", "replicas": replicas, **component}]}}


@pytest.mark.parametrize(("doc", "found"), [
    (_dgd(-1), True),  # Grove default minAvailable 1 > -1
    (_dgd(-1, {"nvidia.com/enable-grove": "false"}), False),  # no Grove default, no minAvailable
    (_dgd(-1, {"nvidia.com/enable-grove": "False"}, minAvailable=1), True),  # written minimum
    (_dgd(0), False),  # replicas 0 keeps any minimum
    (_dgd(-1, minAvailable="x"), False),  # a minimum that does not parse: no CEL value
    (_dgd(True), False),  # a bool is no integer
])
def test_min_available_rule_beside_a_refused_dgd_replicas(doc: dict, found: bool) -> None:
    errors = replica_cel_beside_schema(doc, _refused("spec.components[0].replicas"))
    assert [str(e) for e in errors] == ([f'spec.components[0]: Invalid value: "object": {RULE}'] if found else [])


def test_min_available_rule_only_where_the_schema_refused_replicas() -> None:
    assert replica_cel_beside_schema(_dgd(-1), _refused("spec.components[1].replicas")) == []
    assert replica_cel_beside_schema({"kind": "DynamoGraphDeployment"}, []) == []


def test_a_dcd_gets_the_rule_only_for_a_written_minimum() -> None:
    dcd = {"kind": "DynamoComponentDeployment", "spec": {"replicas": -1}}
    assert replica_cel_beside_schema(dcd, _refused("spec.replicas")) == []
    dcd["spec"]["minAvailable"] = 1
    assert [e.path for e in replica_cel_beside_schema(dcd, _refused("spec.replicas"))] == [str(Path("spec"))]


def test_a_dcd_with_negative_replicas_reports_schema_and_cel() -> None:
    errors = admission_errors(beta_dcd(lambda d: d["spec"].update(replicas=-1, minAvailable=1)))
    assert errors == ["spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
                      f"spec: Invalid value: {RULE}"]


def test_alpha_num_shadows_beyond_beta_bound_gets_the_webhook_words() -> None:
    """The alpha CRD has a minimum of 1 and no maximum: 2 reaches the webhook (intra-pod message)."""
    errors = admission_errors(alpha_dgd(lambda d: worker(d).update(
        failover={"enabled": True, "mode": "intraPod", "numShadows": 2})))
    assert any(e.startswith("spec.services[worker].failover.numShadows: Invalid value: 2: is invalid for "
                            'mode="intraPod"') for e in errors), errors
    assert not any("less than or equal to 1" in e for e in errors)


def test_alpha_num_shadows_below_the_alpha_minimum_is_refused_by_the_alpha_schema() -> None:
    errors = admission_errors(alpha_dgd(lambda d: worker(d).update(
        failover={"enabled": True, "mode": "interPod", "numShadows": 0})))
    assert errors and "greater than or equal to 1" in errors[0]


def test_empty_alpha_service_key_is_admitted_and_a_clear_refusal_in_render_mode() -> None:
    from dynamo_pulumi.loading.documents import load_documents
    from dynamo_pulumi.verdict.deployability import judge

    doc = alpha_dgd()
    doc["spec"]["services"] = {"": doc["spec"]["services"]["worker"]}
    verdict = judge(load_documents(doc).loaded[0], mode="render")
    assert [str(e) for e in verdict.errors] == [
        "spec.services[]: Forbidden: cannot be rendered: a component with an empty name has no object names to render"]
    operator = judge(load_documents(doc).loaded[0], mode="operator")  # admitted; the operator renders it
    assert operator.errors == [] and any("empty name" in w for w in operator.warnings)


@pytest.mark.parametrize("pack", ["rack", 1, ["rack"]])
def test_a_provider_override_pack_that_is_no_object_is_refused(pack: object) -> None:
    value = {"spec": {"template": {"topologyConstraint": {"topologyName": "grove-topology", "pack": pack}}}}
    errors = admission_errors(beta_dgd(lambda d: d["spec"].update(providerOverride={
        "apiVersion": "grove.io/v1alpha1", "target": "PodCliqueSet", "value": value})))
    assert len(errors) == 1 and "of type v1alpha1.TopologyPackConstraint" in errors[0]
    assert "Go struct field TopologyConstraint.spec.template.topologyConstraint.pack" in errors[0]


def test_a_provider_override_required_domain_that_is_no_string_is_refused() -> None:
    value = {"spec": {"template": {"topologyConstraint": {"pack": {"required": 3}}}}}
    errors = admission_errors(beta_dgd(lambda d: d["spec"].update(providerOverride={
        "apiVersion": "grove.io/v1alpha1", "target": "PodCliqueSet", "value": value})))
    assert errors == ["spec.providerOverride.value: Invalid value: null: does not match the registered PodCliqueSet "
                      "schema: json: cannot unmarshal number into Go struct field "
                      "TopologyPackConstraint.spec.template.topologyConstraint.pack.required of type "
                      "v1alpha1.TopologyDomain"]


def test_update_verdict_refuses_an_unknown_client() -> None:
    from dynamo_pulumi.loading.documents import load_documents
    from dynamo_pulumi.platform import Platform
    from dynamo_pulumi.verdict.update import update_verdict

    loaded = load_documents(beta_dgd()).loaded[0]
    with pytest.raises(ValueError, match="client must be one of pulumi, kubectl"):
        update_verdict(loaded.object, loaded, Platform(), "operator", client="argo")  # type: ignore[arg-type]


def _root_override_errors(value: dict) -> list[str]:
    return admission_errors(beta_dgd(lambda d: d["spec"].update(providerOverride={
        "apiVersion": "grove.io/v1alpha1", "target": "PodCliqueSet", "value": value})))


def test_a_key_no_grove_struct_declares_does_not_end_the_decoding_check() -> None:
    """``aaa`` sorts before ``template`` and is no Grove field: the walk goes on to the bad ``pack``."""
    errors = _root_override_errors({"spec": {"aaa": 1, "template": {"topologyConstraint": {"pack": "rack"}}}})
    assert any("cannot unmarshal string into Go struct field TopologyConstraint" in e for e in errors), errors


def test_a_bool_where_an_int32_belongs_does_not_decode() -> None:
    errors = _root_override_errors({"spec": {"replicas": True, "template": {"topologyConstraint": {}}}})
    assert errors == ["spec.providerOverride.value: Invalid value: null: does not match the registered PodCliqueSet "
                      "schema: json: cannot unmarshal bool into Go struct field PodCliqueSetSpec.spec.replicas of "
                      "type int32"]


def test_a_defaulted_minimum_says_it_was_not_written() -> None:
    """Issue 23: ``replicas: -2`` also breaks the rule against the minAvailable the defaulting
    webhook filled in; the API server's line stays, our fix says the field is not the user's."""
    [error] = replica_cel_beside_schema(_dgd(-2), _refused("spec.components[0].replicas"))
    assert "minAvailable is not in your file" in error.fix and "replicas of -2" in error.fix
    [written] = replica_cel_beside_schema(_dgd(-2, minAvailable=1), _refused("spec.components[0].replicas"))
    assert written.fix == ""
