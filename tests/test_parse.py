"""Schema violations are reported the way the API server reports them: wire path, error type,
kube-openapi's wording, every violation at once."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo_pulumi.api.parse import parse_object, wire_path
from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError, GraphValidationError, InputError


def dgd(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": spec,
    }


def errors_of(data: dict[str, Any]) -> list[FieldError]:
    with pytest.raises(GraphValidationError) as info:
        parse_object(data)
    return info.value.errors


def only_error(data: dict[str, Any]) -> FieldError:
    errors = errors_of(data)
    assert len(errors) == 1, [str(e) for e in errors]
    return errors[0]


def test_valid_graph_parses_to_its_model() -> None:
    obj = parse_object(dgd({"components": [{"name": "Frontend", "type": "frontend"}]}))
    assert isinstance(obj, DynamoGraphDeployment)
    assert obj.components[0].name == "Frontend"


def test_dcd_kind_selects_the_dcd_model() -> None:
    obj = parse_object(
        {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoComponentDeployment", "metadata": {"name": "d"},
         "spec": {"type": "frontend"}}
    )
    assert isinstance(obj, DynamoComponentDeployment)


def test_missing_required_field_is_required_value() -> None:
    err = only_error(dgd({"components": [{"type": "frontend"}]}))
    assert err.type is ErrorType.REQUIRED
    assert err.path == "spec.components[0].name"
    assert str(err) == "spec.components[0].name: Required value"


def test_null_on_a_required_field_is_required_value() -> None:
    err = only_error(dgd({"components": [{"name": None}]}))
    assert err.type is ErrorType.REQUIRED
    assert err.path == "spec.components[0].name"


def test_unknown_field_reads_like_strict_decoding() -> None:
    err = only_error(dgd({"foo": 1}))
    assert err.path == "spec.foo"
    assert str(err) == 'unknown field "spec.foo"'


def test_unknown_field_inside_a_list_item_has_the_indexed_path() -> None:
    err = only_error(dgd({"components": [{"name": "a", "bogus": True}]}))
    assert str(err) == 'unknown field "spec.components[0].bogus"'


def test_enum_violation_lists_supported_values() -> None:
    err = only_error(dgd({"backendFramework": "tensorflow"}))
    assert err.type is ErrorType.NOT_SUPPORTED
    assert str(err) == (
        'spec.backendFramework: Unsupported value: "tensorflow": supported values: "sglang", "vllm", "trtllm"'
    )


def test_string_for_integer_is_a_type_error_in_apiserver_words() -> None:
    err = only_error(dgd({"components": [{"name": "a", "replicas": "3"}]}))
    assert err.type is ErrorType.INVALID
    assert err.value == "string"  # kube-openapi hands field.TypeInvalid the JSON type, not the value
    assert str(err) == (
        'spec.components[0].replicas: Invalid value: "string": '
        'spec.components[0].replicas in body must be of type integer: "string"'
    )


def test_list_where_object_expected_names_both_types() -> None:
    err = only_error(dgd({"restart": ["x"]}))
    assert err.detail == 'spec.restart in body must be of type object: "array"'


def test_minimum_violation_says_greater_than_or_equal() -> None:
    err = only_error(dgd({"components": [{"name": "a", "multinode": {"nodeCount": 1}}]}))
    assert str(err) == (
        "spec.components[0].multinode.nodeCount: Invalid value: 1: "
        "spec.components[0].multinode.nodeCount in body should be greater than or equal to 2"
    )


def test_maximum_violation_says_less_than_or_equal() -> None:
    err = only_error(
        dgd({"experimental": {"kvTransferPolicy": {"domain": "rack", "labelKey": "k", "preferredWeight": 2}}})
    )
    assert err.detail == "spec.experimental.kvTransferPolicy.preferredWeight in body should be less than or equal to 1"


def test_pattern_violation_quotes_the_regular_expression() -> None:
    err = only_error(dgd({"components": [{"name": "bad_name"}]}))
    assert err.path == "spec.components[0].name"
    assert err.detail == (
        "spec.components[0].name in body should match '^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$'"
    )


def test_min_length_violation_counts_chars() -> None:
    err = only_error(dgd({"restart": {"id": ""}}))
    assert err.detail == "spec.restart.id in body should be at least 1 chars long"


def test_too_many_items_reports_count_and_limit() -> None:
    components = [{"name": f"c{i}"} for i in range(26)]
    err = only_error(dgd({"components": components}))
    assert err.type is ErrorType.TOO_MANY
    assert err.path == "spec.components"
    assert str(err) == "spec.components: Too many: 26: must have at most 25 items"


def test_too_long_string_is_too_long() -> None:
    err = only_error(dgd({"components": [{"name": "a" * 64}]}))
    assert err.type is ErrorType.TOO_LONG
    assert str(err) == "spec.components[0].name: Too long: may not be more than 63 bytes"


def test_every_schema_violation_is_reported_together() -> None:
    errors = errors_of(dgd({"backendFramework": "x", "components": [{"replicas": -1}]}))
    paths = {e.path for e in errors}
    assert paths == {"spec.backendFramework", "spec.components[0].name", "spec.components[0].replicas"}


def test_unknown_fields_alone_are_reported_as_strict_decoding_stops_first() -> None:
    errors = errors_of(dgd({"foo": 1, "bar": 2, "backendFramework": "x"}))
    assert [str(e) for e in errors] == ['unknown field "spec.foo"', 'unknown field "spec.bar"']


def test_union_typed_field_reports_one_error_per_path() -> None:
    errors = errors_of(dgd({"components": [{"name": "a", "sharedMemorySize": ["1Gi"]}]}))
    assert [e.path for e in errors] == ["spec.components[0].sharedMemorySize"]


def test_error_message_names_kind_and_object() -> None:
    with pytest.raises(GraphValidationError) as info:
        parse_object(dgd({"foo": 1}))
    assert str(info.value).startswith('The DynamoGraphDeployment "g" is invalid: ')


def test_unknown_kind_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown kind 'Widget'"):
        parse_object({"apiVersion": "nvidia.com/v1beta1", "kind": "Widget"})


def test_non_mapping_is_an_input_error() -> None:
    with pytest.raises(InputError, match="expected a mapping"):
        parse_object(["not", "an", "object"])


def test_wire_path_formats_indexes_in_brackets() -> None:
    assert wire_path(("spec", "components", 2, "podTemplate")) == "spec.components[2].podTemplate"


# --- core/v1 types embedded in pod templates ----------------------------------------------------


def with_pod_spec(pod_spec: dict[str, Any]) -> dict[str, Any]:
    return dgd({"components": [{"name": "w", "podTemplate": {"spec": pod_spec}}]})


POD = "spec.components[0].podTemplate.spec"


def test_container_without_name_is_required_value() -> None:
    err = only_error(with_pod_spec({"containers": [{"image": "x"}]}))
    assert str(err) == f"{POD}.containers[0].name: Required value"


def test_pod_template_spec_without_containers_is_required_value() -> None:
    err = only_error(with_pod_spec({"nodeSelector": {"a": "b"}}))
    assert str(err) == f"{POD}.containers: Required value"


def test_unknown_field_inside_a_pod_template_is_an_error_with_the_nearest_name() -> None:
    # kubectl apply's strict field validation refuses it (issue 10: it used to be kept silently).
    err = only_error(with_pod_spec({"containers": [{"name": "main", "imagee": "x"}]}))
    assert err.message == f'unknown field "{POD}.containers[0].imagee" (did you mean "image"?)'
    assert (str(err), err.advice) == (f'unknown field "{POD}.containers[0].imagee"', 'did you mean "image"?')


def test_string_container_port_is_a_type_error() -> None:
    err = only_error(with_pod_spec({"containers": [{"name": "main", "ports": [{"containerPort": "80"}]}]}))
    assert err.detail == f'{POD}.containers[0].ports[0].containerPort in body must be of type integer: "string"'


def test_unparsable_resource_quantity_must_match_the_quantity_pattern() -> None:
    err = only_error(with_pod_spec({"containers": [{"name": "main", "resources": {"limits": {"cpu": "lots"}}}]}))
    assert err.path == f"{POD}.containers[0].resources.limits[cpu]"  # the key, as other resource errors name it
    assert err.detail.startswith(f"{POD}.containers[0].resources.limits.cpu in body should match '^(\\+|-)?")


def test_integer_quantity_is_accepted() -> None:
    parse_object(with_pod_spec({"containers": [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}))


def test_unresolved_deploy_time_value_is_not_judged_by_type() -> None:
    token = "__dynamo_pulumi_output_0123456789ab__"  # as planning/unknowns.py parks an Output
    parse_object(with_pod_spec({"containers": [{"name": "main", "ports": [{"containerPort": token}]}]}))
    # Not a parked Output: an ordinary string where an integer belongs.
    err = only_error(with_pod_spec({"containers": [{"name": "main", "ports": [{"containerPort": "80"}]}]}))
    assert err.path == f"{POD}.containers[0].ports[0].containerPort"


def test_pod_template_metadata_is_not_checked() -> None:
    data = dgd({"components": [{"name": "w", "podTemplate": {"metadata": {"creationTimestamp": None}}}]})
    parse_object(data)


def test_role_pod_templates_are_checked_too() -> None:
    data = dgd({"components": [{"name": "w", "roles": [{"name": "leader", "podTemplate": {"spec": {"containers": [{}]}}}]}]})
    assert [e.path for e in errors_of(data)] == ["spec.components[0].roles[0].podTemplate.spec.containers[0].name"]


def test_model_and_pod_schema_errors_are_reported_together() -> None:
    data = with_pod_spec({"containers": [{"image": "x"}]})
    data["spec"]["backendFramework"] = "jax"
    assert {e.path for e in errors_of(data)} == {"spec.backendFramework", f"{POD}.containers[0].name"}


def test_graph_env_entries_are_env_vars() -> None:
    err = only_error(dgd({"env": [{"value": "1"}]}))
    assert str(err) == "spec.env[0].name: Required value"
    # Strict decoding: an unknown field is reported alone, before the schema's Required value.
    err = only_error(dgd({"env": [{"valu": "1"}]}))
    assert err.message == 'unknown field "spec.env[0].valu" (did you mean "value"?)'
