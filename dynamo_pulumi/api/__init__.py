"""The DGD/DCD/DGDSA API as typed models (v1beta1), with v1alpha1 conversion."""

from dynamo_pulumi.api.v1beta1 import (
    DynamoComponentDeployment,
    DynamoComponentDeploymentSharedSpec,
    DynamoGraphDeployment,
    DynamoGraphDeploymentScalingAdapter,
)

__all__ = [
    "DynamoComponentDeployment",
    "DynamoComponentDeploymentSharedSpec",
    "DynamoGraphDeployment",
    "DynamoGraphDeploymentScalingAdapter",
]
