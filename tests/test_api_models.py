"""The v1beta1 models: exact round trip, strict scalar types, derived helpers."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from dynamo_pulumi.api.v1beta1 import DynamoComponentDeploymentSharedSpec, DynamoGraphDeployment

GRAPH = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g"},
    "spec": {
        "components": [
            {
                "name": "Worker",
                "type": "worker",
                "multinode": {"nodeCount": 3, "leader": {"providerOverride": {"apiVersion": "grove.io/v1alpha1", "value": {"topologyConstraint": {"packDomain": "rack"}}}}},
                "podTemplate": {"spec": {"containers": [{"name": "main", "image": "x:1.4.0", "unknownField": 1}]}},
            }
        ]
    },
}


def test_load_then_dump_gives_the_same_document() -> None:
    assert DynamoGraphDeployment.model_validate(GRAPH).to_wire() == GRAPH


def test_a_graph_without_spec_loads_and_dumps_without_inventing_one() -> None:
    doc = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"}}
    graph = DynamoGraphDeployment.model_validate(doc)
    assert graph.components == []
    assert graph.to_wire() == doc


def test_shared_memory_size_refuses_a_boolean() -> None:
    with pytest.raises(ValidationError):
        DynamoComponentDeploymentSharedSpec.model_validate({"name": "w", "sharedMemorySize": True})


def test_role_provider_override_reads_roles_first_then_the_multinode_spelling() -> None:
    comp = DynamoGraphDeployment.model_validate(GRAPH).components[0]
    assert comp.role_provider_override("leader") is not None
    assert comp.role_provider_override("worker") is None
    with_roles = comp.model_copy(
        update={"roles": DynamoComponentDeploymentSharedSpec.model_validate(
            {"name": "w", "roles": [{"name": "leader", "providerOverride": {"apiVersion": "v", "value": {"a": 1}}}]}
        ).roles}
    )
    override = with_roles.role_provider_override("leader")
    assert override is not None and override.value == {"a": 1}


def test_derived_helpers_follow_the_operator() -> None:
    comp = DynamoGraphDeployment.model_validate(GRAPH).components[0]
    assert comp.number_of_nodes == 3 and comp.is_multinode and comp.uses_pcsg
    assert comp.effective_replicas == 1
