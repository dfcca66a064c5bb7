"""The v1beta1 kinds, versions and enumerations, as plain constants.

Every stage reads these (a kind to dispatch on, the component types, the backends); keeping
them apart from the models lets a stage that only needs a name avoid importing pydantic.
:mod:`dynamo_pulumi.api.v1beta1` and :mod:`~dynamo_pulumi.api.v1beta1_parts` re-export them.
"""

from __future__ import annotations

from typing import Literal, get_args

API_GROUP = "nvidia.com"
API_VERSION = "nvidia.com/v1beta1"
DGD_KIND = "DynamoGraphDeployment"
DCD_KIND = "DynamoComponentDeployment"
DGDSA_KIND = "DynamoGraphDeploymentScalingAdapter"
#: The v1beta1 kinds, in the order errors list them.
KIND_NAMES = (DGD_KIND, DCD_KIND, DGDSA_KIND)

BackendFramework = Literal["sglang", "vllm", "trtllm"]
ComponentType = Literal["frontend", "worker", "prefill", "decode", "planner", "epp", "lpx"]
#: The ``type`` values the v1beta1 schema admits. A v1alpha1 ``componentType`` outside them (e.g.
#: ``main``) is copied unchanged by the conversion webhook, and the stored object is not re-checked.
COMPONENT_TYPES: frozenset[str] = frozenset(get_args(ComponentType))
WORKER_CLASS_TYPES: frozenset[str] = frozenset({"worker", "prefill", "decode"})
GMSMode = Literal["IntraPod", "InterPod"]
