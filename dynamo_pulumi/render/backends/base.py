"""What a backend (vLLM, SGLang, TRT-LLM) needs to rewrite one pod of one component.

The operator hands its backends a long positional argument list (nodes, role, component,
service name, multinode deployer, GPU resolver) plus a few operator settings. We bundle that
into one frozen value so the pod assembler builds it once per role and every backend reads the
same facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from dynamo_pulumi.floor.constants import (
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
    ROLE_LEADER,
    ROLE_MAIN,
    ROLE_WORKER,
)
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.model.platform_file import default_platform
from dynamo_pulumi.render.backends.dra_claims import EMPTY_INVENTORY, DraInventory
from dynamo_pulumi.render.backends.multinode import MultinodeWiring, grove_wiring, lws_wiring

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields
    from dynamo_pulumi.platform import Platform

Role = Literal["main", "leader", "worker"]

__all__ = [
    "ROLE_LEADER",
    "ROLE_MAIN",
    "ROLE_WORKER",
    "BackendInput",
    "MultinodeWiring",
    "Role",
    "grove_wiring",
    "lws_wiring",
]


@record(eq=False, repr=False)  # a context: never compared or printed, so fewer methods built at start
class BackendInput:
    """Everything a backend reads besides the container / pod spec it rewrites.

    * ``framework``: ``vllm`` | ``sglang`` | ``trtllm``; anything else (``""``) is the no-op backend.
    * ``role``: ``main`` for single-node pods, ``leader`` / ``worker`` for multinode pods.
    * ``component``: the component spec (DGD component or DCD spec); read, never mutated.
    * ``dgd_name``: the parent graph's name (names the wait-for-leader ConfigMap).
    * ``component_name``: the service name the operator passes to its deployer.
    * ``number_of_nodes``: ``multinode.nodeCount`` or 1.
    * ``annotations``: the effective pod-template annotations (after graph propagation), where the
      origin version and ``nvidia.com/vllm-distributed-executor-backend`` are read.
    * ``compilation_cache_mount_path``: the mount path of ``compilationCache`` after defaulting,
      or None when the component has no compilation cache.
    * ``wiring``: how this role reaches its leader; None for single-node pods.
    * ``gpu_count``: the main container's GPU count when the caller resolved it; None lets the
      backend resolve it from the container (scalar resources, else its DRA claims via ``dra``).
    * ``dra``: the ResourceClaimTemplates, ResourceClaims and DeviceClasses known offline.

    ``component`` is the role's view of the component (its ``podTemplate`` is the role template
    when the component gives ``roles[].podTemplate``); ``roles`` is kept, so
    :attr:`manual_launch` can tell the two template modes apart.
    """

    framework: str
    role: Role
    component: ComponentSpecFields
    dgd_name: str
    namespace: str
    number_of_nodes: int = 1
    component_name: str = ""
    annotations: Mapping[str, Any] = field(default_factory=dict)
    compilation_cache_mount_path: str | None = None
    platform: Platform = field(default_factory=default_platform)
    wiring: MultinodeWiring | None = None
    gpu_count: int | None = None
    dra: DraInventory = EMPTY_INVENTORY

    @property
    def is_multinode(self) -> bool:
        return self.number_of_nodes > 1

    @property
    def manual_launch(self) -> bool:
        """The user owns this pod's backend launch (the operator's ``IsManualFlagsInjection``).

        True for the leader and worker pods of a multinode component that supplies complete role
        templates (``roles[].podTemplate``). The reference page (``roles[].podTemplate``): such
        templates transfer the backend-specific leader/worker commands and topology arguments to
        the user, so the backends skip their role-dependent launch rewrites and keep only the
        operator-owned multinode wiring; see :mod:`dynamo_pulumi.render.backends` for the split.
        """
        return (
            self.is_multinode
            and self.role in (ROLE_LEADER, ROLE_WORKER)
            and self.component.has_role_pod_templates
        )

    @property
    def origin_version(self) -> Any:
        """The operator version that created the object (None when absent)."""
        return self.annotations.get(KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION)

    @property
    def vllm_executor_backend(self) -> Any:
        """The ``nvidia.com/vllm-distributed-executor-backend`` annotation (None when absent)."""
        return self.annotations.get(KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND)
