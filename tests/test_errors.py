"""Field errors print the way kubectl prints an admission rejection."""

from dynamo_pulumi.errors import (
    ErrorType,
    GraphValidationError,
    Path,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_many,
)


def test_path_builds_like_kubernetes_field_path() -> None:
    path = Path("spec").child("components").index(2).child("multinode", "nodeCount")
    assert str(path) == "spec.components[2].multinode.nodeCount"
    assert str(Path("metadata").child("annotations").key("nvidia.com/x")) == "metadata.annotations[nvidia.com/x]"


def test_invalid_error_shows_value_and_detail() -> None:
    err = invalid("spec.components[0].multinode.nodeCount", 1, "must be greater than or equal to 2")
    assert err.type is ErrorType.INVALID
    assert str(err) == "spec.components[0].multinode.nodeCount: Invalid value: 1: must be greater than or equal to 2"


def test_required_and_forbidden_errors_carry_no_value() -> None:
    assert str(required("spec.components", "must have at least one component")) == (
        "spec.components: Required value: must have at least one component"
    )
    assert str(forbidden("spec.priorityClassName", "requires the Grove pathway")) == (
        "spec.priorityClassName: Forbidden: requires the Grove pathway"
    )


def test_unsupported_value_lists_supported_values() -> None:
    err = not_supported("spec.backendFramework", "tgi", ["sglang", "vllm", "trtllm"])
    assert str(err) == (
        'spec.backendFramework: Unsupported value: "tgi": supported values: "sglang", "vllm", "trtllm"'
    )


def test_duplicate_and_too_many() -> None:
    assert str(duplicate("spec.components[1].name", "a")) == 'spec.components[1].name: Duplicate value: "a"'
    assert str(too_many("spec.components", 26, 25)) == "spec.components: Too many: 26: must have at most 25 items"


def test_validation_error_lists_every_error_like_kubectl() -> None:
    errors = [required("spec.components"), invalid("spec.x", "y", "bad")]
    exc = GraphValidationError(errors, "DynamoGraphDeployment", "g")
    assert str(exc).splitlines() == [
        'The DynamoGraphDeployment "g" is invalid: ',
        "* spec.components: Required value",
        '* spec.x: Invalid value: "y": bad',
    ]


def test_single_error_prints_on_one_line() -> None:
    exc = GraphValidationError([required("spec.components")], "DynamoComponentDeployment", "c")
    assert str(exc) == 'The DynamoComponentDeployment "c" is invalid: spec.components: Required value'


def test_object_values_print_as_compact_json_in_field_order() -> None:
    err = invalid("spec.topologyConstraint", {"packDomain": "rack", "clusterTopologyName": "t"}, "is immutable")
    assert str(err) == (
        'spec.topologyConstraint: Invalid value: {"packDomain":"rack","clusterTopologyName":"t"}: is immutable'
    )
