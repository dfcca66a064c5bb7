"""Pulumi ComponentResources for Dynamo graphs, and placement helpers for GPU node pools."""

from dynamo_pulumi.planning.placement import (
    GpuPlacement,
    aks_gpu_node_pool,
    eks_gpu_node_group,
    gke_gpu_node_pool,
    gpu_node_pool,
)
from dynamo_pulumi.resources.components import (
    DCD_TYPE,
    DGD_TYPE,
    DynamoComponentDeployment,
    DynamoGraphDeployment,
)
from dynamo_pulumi.resources.readiness import GraphReadiness, ReadinessOptions

__all__ = [
    "DCD_TYPE",
    "DGD_TYPE",
    "DynamoComponentDeployment",
    "DynamoGraphDeployment",
    "GpuPlacement",
    "GraphReadiness",
    "ReadinessOptions",
    "aks_gpu_node_pool",
    "eks_gpu_node_group",
    "gke_gpu_node_pool",
    "gpu_node_pool",
]
