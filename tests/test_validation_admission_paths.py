"""Rules whose coverage was missing: rule 6 through schema parsing and admission, rule 19's frozen
nodeCount, and rule 25's providerOverride identity immutability at root and role scope."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from validation_component_support import P, dgd_ctx, update_errors

from dynamo_pulumi.api.parse import parse_object
from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment
from dynamo_pulumi.errors import ErrorType, FieldError, GraphValidationError, Path
from dynamo_pulumi.validation import validate
from dynamo_pulumi.validation.graph_update import validate_graph_update
from dynamo_pulumi.validation.power import validate_power_update

# A tag without a version, so the override is what gives the runtime version.
UNVERSIONED = "registry.example/worker:latest"
PATTERN = r"^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$"


def _dgd_wire(override: str) -> dict[str, Any]:
    component = {
        "name": "worker",
        "type": "worker",
        "runtimeVersionOverride": override,
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": UNVERSIONED}]}},
    }
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "g"},
        "spec": {"backendFramework": "vllm", "components": [component]},
    }


def _dcd_wire(override: str) -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoComponentDeployment",
        "metadata": {"name": "w"},
        "spec": {
            "type": "worker",
            "backendFramework": "vllm",
            "runtimeVersionOverride": override,
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": UNVERSIONED}]}},
        },
    }


# --- rule 6: the CRD pattern of runtimeVersionOverride -------------------------------------------


@pytest.mark.parametrize("override", ["1.4.0", "0.9.1", "0.0.0", "9999.9999.9999"])
def test_canonical_runtime_version_override_is_admitted(override: str) -> None:
    """Rule 6: MAJOR.MINOR.PATCH, each part 0-9999 without leading zeros, is accepted end to end."""
    for wire in (_dgd_wire(override), _dcd_wire(override)):
        assert validate(parse_object(wire)).errors == []


@pytest.mark.parametrize("override", ["v1.4.0", "1.4", "01.4.0", "1.4.0-rc1", "10000.0.0", "1.4.0+build"])
def test_non_canonical_runtime_version_override_is_rejected_by_the_schema(override: str) -> None:
    """Rule 6: no ``v`` prefix, no missing part, no leading zero, no pre-release, parts <= 9999."""
    for wire, path in (
        (_dgd_wire(override), "spec.components[0].runtimeVersionOverride"),
        (_dcd_wire(override), "spec.runtimeVersionOverride"),
    ):
        with pytest.raises(GraphValidationError) as info:
            parse_object(wire)
        [error] = info.value.errors
        assert (error.type, error.path, error.value) == (ErrorType.INVALID, path, override)
        assert PATTERN in str(error)


# --- rule 19: nodeCount frozen while the power annotation is present ----------------------------

POWER_KEY = "dynamo.nvidia.com/gpu-power-limit"


def _power_worker(node_count: int, annotated: bool) -> DynamoComponentDeploymentSharedSpec:
    template: dict[str, Any] = {
        "spec": {
            "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H100"},
            "containers": [
                {"name": "main", "image": "img:1.4.0", "resources": {"limits": {"nvidia.com/gpu": 1}}}
            ],
        }
    }
    if annotated:
        template["metadata"] = {"annotations": {POWER_KEY: "300"}}
    return DynamoComponentDeploymentSharedSpec.model_validate(
        {"name": "worker", "type": "worker", "multinode": {"nodeCount": node_count}, "podTemplate": template}
    )


def test_node_count_is_frozen_while_the_power_annotation_is_present() -> None:
    """Rule 19: while annotated, the multinode nodeCount cannot change (power-aware planning)."""
    path = Path("spec", "components").index(0)
    assert validate_power_update(_power_worker(2, True), _power_worker(2, True), path) == []
    assert validate_power_update(_power_worker(3, True), _power_worker(2, True), path) == [
        FieldError(ErrorType.INVALID, f"{P}.multinode.nodeCount", "field is immutable", 3)
    ]
    # Without the annotation the power contract does not freeze it (rule 30 still does).
    assert validate_power_update(_power_worker(3, False), _power_worker(2, False), path) == []


# --- rule 25 update: providerOverride apiVersion/target immutable (root and role) ----------------


def _root_graph(api_version: str, target: str) -> DynamoGraphDeployment:
    override = {
        "apiVersion": api_version,
        "target": target,
        "value": {"spec": {"template": {"topologyConstraint": {"packDomain": "rack"}}}},
    }
    component = {"name": "w", "type": "worker", "podTemplate": {"spec": {"containers": [{"name": "main"}]}}}
    return DynamoGraphDeployment.model_validate(
        {"metadata": {"name": "g"}, "spec": {"components": [component], "providerOverride": override}}
    )


def test_root_provider_override_identity_is_immutable() -> None:
    old = _root_graph("grove.io/v1alpha1", "PodCliqueSet")
    ctx = dgd_ctx("update")
    assert validate_graph_update(old, old, ctx).errors == []
    changed = _root_graph("grove.io/v1alpha2", "PodCliqueTemplateSpec")
    assert [str(e) for e in validate_graph_update(changed, old, ctx).errors] == [
        'spec.providerOverride.apiVersion: Invalid value: "grove.io/v1alpha2": field is immutable',
        'spec.providerOverride.target: Invalid value: "PodCliqueTemplateSpec": field is immutable',
    ]


def _role_worker(
    api_version: str = "grove.io/v1alpha1", target: str = "PodCliqueTemplateSpec"
) -> dict[str, Any]:
    override = {
        "apiVersion": api_version,
        "target": target,
        "value": {"topologyConstraint": {"packDomain": "rack"}},
    }
    return {
        "name": "worker",
        "type": "worker",
        "multinode": {"nodeCount": 2},
        "roles": [{"name": "leader", "providerOverride": override}, {"name": "worker"}],
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": "img:1.4.0"}]}},
    }


def test_role_provider_override_identity_is_immutable() -> None:
    old = _role_worker()
    assert update_errors(old, copy.deepcopy(old)) == []
    assert update_errors(old, _role_worker(api_version="grove.io/v1beta1")) == [
        f'{P}.roles[0].providerOverride.apiVersion: Invalid value: "grove.io/v1beta1": field is immutable'
    ]
    assert update_errors(old, _role_worker(target="PodCliqueScalingGroupConfig")) == [
        f'{P}.roles[0].providerOverride.target: Invalid value: "PodCliqueScalingGroupConfig": field is immutable'
    ]
