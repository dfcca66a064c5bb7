"""What a validation rule may know besides the object itself.

Rules that the operator answers by asking the cluster (InferencePool API present,
ClusterTopologyBinding levels, the requester's identity) read :class:`Platform` facts given
explicitly, never a live call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.model.platform_file import default_platform

if TYPE_CHECKING:
    from dynamo_pulumi.platform import Platform

DGD = "DynamoGraphDeployment"
DCD = "DynamoComponentDeployment"


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class ValidationContext:
    """The admission request around one object (or one component of a DGD)."""

    kind: Literal["DynamoGraphDeployment", "DynamoComponentDeployment"]
    operation: Literal["create", "update"]
    platform: Platform = field(default_factory=default_platform)
    #: ``spec.backendFramework`` of the DGD, or of the DCD itself.
    backend_framework: str | None = None
    #: ``metadata.annotations`` of the DGD (or the DCD).
    annotations: Mapping[str, str] = field(default_factory=dict)
    #: Effective ``nvidia.com/workload-provider`` after defaulting: "grove", "component", or None
    #: when unselected (an update of an object that never had it).
    workload_provider: str | None = None
    #: DGD on the Grove pathway: Grove enabled in the platform and ``nvidia.com/enable-grove`` is
    #: not "false". Always False for a standalone DCD.
    grove_pathway: bool = False
    #: Why the DGD is not on the Grove pathway (the Forbidden detail Grove-only fields get); "" on it.
    grove_pathway_reason: str = ""
    #: Standalone DCD whose controller ownerReference is a DGD of group nvidia.com.
    owner_is_dgd: bool = False

    @property
    def in_dgd(self) -> bool:
        return self.kind == DGD

    @property
    def is_create(self) -> bool:
        return self.operation == "create"
