"""The DGD/DCD/DGDSA API as typed models (v1beta1), with v1alpha1 conversion.

Write a graph in typed Python (snake_case field names, IDE completion, ``mypy --strict``)::

    from dynamo_pulumi.api import ComponentSpec, GraphSpec

    spec = GraphSpec(
        backend_framework="vllm",
        components=[ComponentSpec(name="Frontend", type="frontend", pod_template={...})],
    )
    DynamoGraphDeployment("llama", spec)   # the Pulumi component (dynamo_pulumi.resources)

The model names here do not clash with the Pulumi components: ``Graph`` is a whole
DynamoGraphDeployment object (apiVersion, kind, metadata, spec), ``GraphSpec`` what goes under its
``spec``, ``ComponentSpec`` one of ``spec.components``; ``StandaloneComponent`` and
``StandaloneComponentSpec`` the same for a DynamoComponentDeployment. Pod templates are plain
mappings or ``pulumi_kubernetes.core.v1.PodTemplateSpecArgs``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.floor.lazy import lazy_getattr

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        DynamoComponentDeployment,
        DynamoComponentDeploymentSharedSpec,
        DynamoComponentDeploymentSpec,
        DynamoGraphDeployment,
        DynamoGraphDeploymentScalingAdapter,
        DynamoGraphDeploymentSpec,
        ObjectMeta,
        Restart,
    )
    from dynamo_pulumi.api.v1beta1_parts import (
        CompilationCacheConfig,
        ComponentRoleSpec,
        ModelReference,
        MultinodeSpec,
        ScalingAdapter,
        TopologyConstraint,
    )

    #: A whole DynamoGraphDeployment object (the model; the Pulumi component has the CRD's name).
    Graph = DynamoGraphDeployment
    #: ``spec`` of a DynamoGraphDeployment.
    GraphSpec = DynamoGraphDeploymentSpec
    #: One entry of ``spec.components``.
    ComponentSpec = DynamoComponentDeploymentSharedSpec
    #: A whole standalone DynamoComponentDeployment object.
    StandaloneComponent = DynamoComponentDeployment
    #: ``spec`` of a standalone DynamoComponentDeployment.
    StandaloneComponentSpec = DynamoComponentDeploymentSpec
    #: ``metadata`` of a Graph or StandaloneComponent.
    Metadata = ObjectMeta

#: Public name -> (module, model name). The models load on first use (PEP 562): the submodules of
#: this package (``api.pods``, ``api.kinds``, ...) are imported by stages that must not pay for
#: pydantic, and importing a submodule runs this file first.
_PUBLIC = {
    **{name: ("v1beta1", name) for name in (
        "DynamoComponentDeployment", "DynamoComponentDeploymentSharedSpec", "DynamoComponentDeploymentSpec",
        "DynamoGraphDeployment", "DynamoGraphDeploymentScalingAdapter", "DynamoGraphDeploymentSpec",
        "ObjectMeta", "Restart")},
    **{name: ("v1beta1_parts", name) for name in (
        "CompilationCacheConfig", "ComponentRoleSpec", "ModelReference", "MultinodeSpec", "ScalingAdapter",
        "TopologyConstraint")},
    "Graph": ("v1beta1", "DynamoGraphDeployment"),
    "GraphSpec": ("v1beta1", "DynamoGraphDeploymentSpec"),
    "ComponentSpec": ("v1beta1", "DynamoComponentDeploymentSharedSpec"),
    "StandaloneComponent": ("v1beta1", "DynamoComponentDeployment"),
    "StandaloneComponentSpec": ("v1beta1", "DynamoComponentDeploymentSpec"),
    "Metadata": ("v1beta1", "ObjectMeta"),
}


__getattr__ = lazy_getattr(__name__, _PUBLIC, globals())


__all__ = [
    "CompilationCacheConfig",
    "ComponentRoleSpec",
    "ComponentSpec",
    "DynamoComponentDeployment",
    "DynamoComponentDeploymentSharedSpec",
    "DynamoGraphDeployment",
    "DynamoGraphDeploymentScalingAdapter",
    "Graph",
    "GraphSpec",
    "Metadata",
    "ModelReference",
    "MultinodeSpec",
    "Restart",
    "ScalingAdapter",
    "StandaloneComponent",
    "StandaloneComponentSpec",
    "TopologyConstraint",
]
