"""``eppConfig.config`` against the CRDs' EndpointPickerConfig schema, after the webhook's round trip.

The rule comes from the operator itself: ``tests/fixtures/operator_recordings/corpus-sglang-agg-epp.yaml``
records the API server refusing a v1alpha1 graph whose scheduling-profile plugin has no weight,
with the message the first test expects word for word. The schema is the one of
``../shared/conformance/crds/nvidia.com_dynamographdeployments.yaml`` (checked equal below when
it is present); the v1beta1 refusal of a missing weight was probed on the same operator build
(dynamo_pulumi/api/epp_schema.py).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from dynamo_pulumi.api.epp_schema import SCHEMA, epp_config_errors, go_zero_filled, object_epp_errors
from dynamo_pulumi.errors import GraphValidationError
from dynamo_pulumi.loading.documents import load_documents, validate_loaded

RECORDING = Path(__file__).parent / "fixtures" / "operator_recordings" / "corpus-sglang-agg-epp.yaml"
CRD = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "crds" / "nvidia.com_dynamographdeployments.yaml"
IMAGE = "nvcr.io/nvidia/ai-dynamo/epp:1.0.0"

CONFIG: dict[str, Any] = {
    "plugins": [{"type": "single-profile-handler"}, {"name": "picker", "type": "max-score-picker"}],
    "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "picker", "weight": 1}]}],
}


def _alpha(config: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"services": {"epp": {"componentType": "epp", "eppConfig": {"config": config},
                                      "extraPodSpec": {"mainContainer": {"image": IMAGE}}}}},
    }


def _beta(config: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"components": [{"name": "epp", "type": "epp", "eppConfig": {"config": config},
                                 "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}]},
    }


def _errors(doc: dict[str, Any]) -> list[str]:
    """Every error loading and create admission report for ``doc``."""
    try:
        loaded = load_documents(yaml.safe_dump(doc)).loaded
    except GraphValidationError as exc:
        return [str(e) for e in exc.errors]
    return [str(e) for lo in loaded for e in validate_loaded(lo).errors]


def _without_weight(config: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(config)
    del out["schedulingProfiles"][0]["plugins"][0]["weight"]
    return out


def test_alpha_plugin_without_weight_is_refused_as_the_recorded_api_server_refused_it() -> None:
    recording = yaml.safe_load(RECORDING.read_text())
    recorded = recording["platforms"]["pathway"]["admission"][0]
    assert recorded["accepted"] is False
    errors = _errors(recording["input"][0])
    assert len(errors) == 1
    assert f"\n* {errors[0]}\n" in recorded["message"]
    assert _errors(_alpha(_without_weight(CONFIG)))[0].startswith(
        "spec.services.epp.eppConfig.config.schedulingProfiles[0].plugins[0].weight: ")


def test_alpha_and_beta_configs_with_every_weight_are_admitted() -> None:
    assert _errors(_alpha(CONFIG)) == []
    assert _errors(_beta(CONFIG)) == []


def test_beta_plugin_without_weight_is_refused_too() -> None:
    """Probed on the real operator and API server (2026-12-03, the operator build of the
    recordings): a v1beta1 DGD whose profile plugin has no weight is refused, with this message."""
    path = "spec.components[0].eppConfig.config.schedulingProfiles[0].plugins[0].weight"
    assert _errors(_beta(_without_weight(CONFIG))) == [
        f'{path}: Invalid value: "null": {path} in body must be of type integer: "null"']


def test_beta_lists_the_round_trip_leaves_null_fail_their_type() -> None:
    path = "spec.components[0].eppConfig.config.schedulingProfiles"
    config = {"plugins": [{"type": "x"}], "schedulingProfiles": [{"name": "p"}]}
    assert _errors(_beta(config)) == [
        f'{path}[0].plugins: Invalid value: "null": {path}[0].plugins in body must be of type array: "null"']
    assert _errors(_beta({"plugins": []})) == [
        f'{path}: Invalid value: "null": {path} in body must be of type array: "null"']


def test_alpha_missing_lists_come_back_null_and_fail_their_type() -> None:
    errors = _errors(_alpha({"plugins": []}))
    assert errors == [
        'spec.services.epp.eppConfig.config.schedulingProfiles: Invalid value: "null": '
        'spec.services.epp.eppConfig.config.schedulingProfiles in body must be of type array: "null"'
    ]


def test_string_zero_values_satisfy_required_fields() -> None:
    """``type`` and ``pluginRef`` come back as "" from the Go type, so their absence is no error."""
    config: dict[str, Any] = {"plugins": [{"name": "a"}], "schedulingProfiles": [{"name": "p", "plugins": [{"weight": 2}]}]}
    assert epp_config_errors(config, "c") == []


def test_types_and_unknown_fields_below_the_top_are_refused_and_unknown_top_fields_kept() -> None:
    config = copy.deepcopy(CONFIG)
    config["plugins"][0]["extra"] = 1
    config["schedulingProfiles"][0]["plugins"][0]["weight"] = "2"
    config["futureTopLevel"] = {"a": 1}
    assert [str(e) for e in epp_config_errors(config, "c")] == [
        'unknown field "c.plugins[0].extra"',
        'c.schedulingProfiles[0].plugins[0].weight: Invalid value: "string": '
        'c.schedulingProfiles[0].plugins[0].weight in body must be of type integer: "string"',
    ]


def test_a_value_known_only_at_deploy_time_is_never_an_error() -> None:
    class Later:  # stands in for a pulumi.Output
        pass

    config = copy.deepcopy(CONFIG)
    config["schedulingProfiles"][0]["plugins"][0]["weight"] = Later()
    assert epp_config_errors(config, "c") == []


def test_zero_fill_leaves_the_input_alone() -> None:
    config = _without_weight(CONFIG)
    before = copy.deepcopy(config)
    filled = go_zero_filled(config)
    assert config == before
    assert filled["schedulingProfiles"][0]["plugins"][0] == {"pluginRef": "picker", "weight": None}
    assert filled["plugins"][0] == {"name": "", "type": "single-profile-handler", "parameters": None}


def _plain_schema(node: Any) -> Any:
    """The CRD's schema in the keywords of ours: descriptions dropped, objects closed below the top."""
    if isinstance(node, dict):
        return {k: _plain_schema(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_plain_schema(v) for v in node]
    return node


@pytest.mark.skipif(not CRD.is_file(), reason="../shared/conformance/crds is not present")
@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_schema_is_the_crds(version: str) -> None:
    crd = yaml.safe_load(CRD.read_text())
    spec = next(v for v in crd["spec"]["versions"] if v["name"] == version)["schema"]["openAPIV3Schema"]["properties"]["spec"]
    holder = spec["properties"]["components"]["items"] if version == "v1beta1" else spec["properties"]["services"]["additionalProperties"]
    theirs = _plain_schema(holder["properties"]["eppConfig"]["properties"]["config"])

    def ours(name: str) -> Any:
        node = copy.deepcopy(SCHEMA[name])
        node.pop("additionalProperties", None)
        for prop in node.get("properties", {}).values():
            items = prop.get("items", {})
            if "$ref" in items:
                prop["items"] = ours(items["$ref"].rpartition("/")[2])
            if "$ref" in prop:
                prop.update(ours(prop.pop("$ref").rpartition("/")[2]))
        return node

    mine = ours("EndpointPickerConfig")
    mine["properties"]["plugins"]["items"]["properties"]["parameters"] = {"x-kubernetes-preserve-unknown-fields": True}
    theirs.pop("x-kubernetes-preserve-unknown-fields")
    assert mine == theirs


def _beta_dcd(config: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": {"name": "d"},
            "spec": {"name": "epp", "type": "epp", "eppConfig": {"config": config},
                     "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}}


def _alpha_dcd(config: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoComponentDeployment", "metadata": {"name": "d"},
            "spec": {"componentType": "epp", "eppConfig": {"config": config},
                     "extraPodSpec": {"mainContainer": {"image": IMAGE}}}}


@pytest.mark.parametrize("dcd", [_beta_dcd, _alpha_dcd], ids=["v1beta1", "v1alpha1"])
def test_a_dcd_config_is_checked_at_its_own_path(dcd: Any) -> None:
    assert _errors(dcd(CONFIG)) == []
    path = "spec.eppConfig.config.schedulingProfiles[0].plugins[0].weight"
    assert _errors(dcd(_without_weight(CONFIG))) == [
        f'{path}: Invalid value: "null": {path} in body must be of type integer: "null"']


def test_an_unparseable_staleness_threshold_is_refused_at_its_field_in_gos_words() -> None:
    """As the probe of tests/fixtures/operator_probes saw the webhook refuse it."""
    config = {**CONFIG, "saturationDetector": {"metricsStalenessThreshold": "soon"}}
    path = "spec.components[0].eppConfig.config.saturationDetector.metricsStalenessThreshold"
    assert _errors(_beta(config)) == [f'{path}: Invalid value: "soon": time: invalid duration "soon"']
    assert epp_config_errors({**CONFIG, "saturationDetector": {"metricsStalenessThreshold": "2m"}}, "c") == []


def test_the_whole_re_encoding_leaves_out_empty_omitempty_fields() -> None:
    config = {"apiVersion": "", "kind": None, "featureGates": None, "plugins": [], "schedulingProfiles": [],
              "saturationDetector": {}, "extra": 1}
    assert go_zero_filled(config, whole=True) == {
        "plugins": [], "schedulingProfiles": [], "saturationDetector": {"metricsStalenessThreshold": "0s"}}
    assert go_zero_filled({**config, "saturationDetector": None, "featureGates": []}, whole=True) == {
        "plugins": [], "schedulingProfiles": []}
    kept = go_zero_filled({**config, "featureGates": ["g"], "kind": "EndpointPickerConfig"}, whole=True)
    assert kept["featureGates"] == ["g"] and kept["kind"] == "EndpointPickerConfig"


def test_an_entry_that_is_no_mapping_is_left_to_the_schema() -> None:
    assert [str(e) for e in epp_config_errors({"plugins": ["x"], "schedulingProfiles": []}, "c")] == [
        'c.plugins[0]: Invalid value: "string": c.plugins[0] in body must be of type object: "string"']


def test_wire_mappings_are_read_as_the_models_are() -> None:
    """``object_epp_errors`` takes the wire form too (the conversion path hands it one)."""
    path = "schedulingProfiles[0].plugins[0].weight"
    beta = _beta(_without_weight(CONFIG))
    assert [e.path for e in object_epp_errors(beta)] == [f"spec.components[0].eppConfig.config.{path}"]
    assert [e.path for e in object_epp_errors(_beta_dcd(_without_weight(CONFIG)))] == [f"spec.eppConfig.config.{path}"]
    assert object_epp_errors({**beta, "kind": "SomethingElse"}) == []
    assert object_epp_errors({**beta, "spec": None}) == []
    assert object_epp_errors({**beta, "spec": "text"}) == []
