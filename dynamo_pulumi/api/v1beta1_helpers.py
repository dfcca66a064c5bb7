"""The operator's derived helpers of the v1beta1 types (``GetNumberOfNodes``, ``UsesPCSG``, ...).

They are mixed into the pydantic models (:mod:`dynamo_pulumi.api.v1beta1`) and into the models'
pydantic-free twins (:mod:`dynamo_pulumi.model.twin`), so a rule reads ``component.uses_pcsg`` the
same way whichever built the object. The classes here also name a kind for ``isinstance``
without importing pydantic (:class:`GraphHelpers` is every v1beta1 DynamoGraphDeployment, model
or twin). Only fields are read; nothing here validates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.kinds import WORKER_CLASS_TYPES

if TYPE_CHECKING:
    from typing import ClassVar

    from dynamo_pulumi.api.v1beta1 import (
        DynamoComponentDeploymentSharedSpec,
        DynamoComponentDeploymentSpec,
        DynamoGraphDeploymentSpec,
        ObjectMeta,
    )
    from dynamo_pulumi.api.v1beta1_parts import (
        ComponentCheckpointConfig,
        ComponentRoleSpec,
        ExperimentalSpec,
        FailoverSpec,
        GPUMemoryServiceSpec,
        MultinodeSpec,
        ProviderOverride,
    )


class MultinodeSpecHelpers:
    if TYPE_CHECKING:
        node_count: int | None

    @property
    def effective_node_count(self) -> int:
        """CRD default 2 when omitted."""
        return 2 if self.node_count is None else self.node_count


class GPUMemoryServiceHelpers:
    if TYPE_CHECKING:
        mode: str | None
        device_class_name: str | None

    @property
    def effective_mode(self) -> str:
        return self.mode or "IntraPod"

    @property
    def effective_device_class(self) -> str:
        return self.device_class_name or "gpu.nvidia.com"


class FailoverHelpers:
    if TYPE_CHECKING:
        mode: str | None

    @property
    def effective_mode(self) -> str:
        return self.mode or "IntraPod"


class CheckpointHelpers:
    if TYPE_CHECKING:
        startup_policy: str | None
        target_container_name: str | None

    @property
    def effective_startup_policy(self) -> str:
        return self.startup_policy or "Immediate"

    @property
    def effective_target_container(self) -> str:
        return self.target_container_name or "main"


class ComponentSpecHelpers:
    """What a DGD component and a DCD spec derive from their shared fields."""

    if TYPE_CHECKING:
        type: str | None
        replicas: int | None
        multinode: MultinodeSpec | None
        roles: list[ComponentRoleSpec] | None
        experimental: ExperimentalSpec | None

    @property
    def number_of_nodes(self) -> int:
        """``GetNumberOfNodes``: nodeCount when ``multinode`` is set, else 1."""
        return self.multinode.effective_node_count if self.multinode is not None else 1

    @property
    def is_multinode(self) -> bool:
        return self.number_of_nodes > 1

    @property
    def is_worker_class(self) -> bool:
        return self.type in WORKER_CLASS_TYPES

    @property
    def gms(self) -> GPUMemoryServiceSpec | None:
        return self.experimental.gpu_memory_service if self.experimental else None

    @property
    def failover(self) -> FailoverSpec | None:
        return self.experimental.failover if self.experimental else None

    @property
    def checkpoint(self) -> ComponentCheckpointConfig | None:
        return self.experimental.checkpoint if self.experimental else None

    @property
    def is_inter_pod_gms(self) -> bool:
        gms = self.gms
        return gms is not None and gms.effective_mode == "InterPod"

    @property
    def is_scaling_group_forced(self) -> bool:
        grove = self.experimental.grove if self.experimental else None
        return bool(grove and grove.force_scaling_group)

    @property
    def uses_pcsg(self) -> bool:
        """``UsesPCSG``: multinode, inter-pod GMS or a forced scaling group."""
        return self.is_multinode or self.is_inter_pod_gms or self.is_scaling_group_forced

    @property
    def effective_replicas(self) -> int:
        """Replicas after the defaulting webhook (nil -> 1)."""
        return 1 if self.replicas is None else self.replicas

    def role_provider_override(self, role: str) -> ProviderOverride | None:
        """The provider override of a multinode role (``leader``/``worker``), from ``roles[]`` or
        from the older ``multinode.<role>.providerOverride`` spelling."""
        for spec in self.roles or []:
            if spec.name == role and spec.provider_override is not None:
                return spec.provider_override
        legacy = getattr(self.multinode, role, None) if self.multinode is not None else None
        return legacy.provider_override if legacy is not None else None  # type: ignore[no-any-return]

    @property
    def has_role_pod_templates(self) -> bool:
        return any(r.pod_template is not None for r in self.roles or [])


class KvTransferPolicyHelpers:
    if TYPE_CHECKING:
        enforcement: str | None

    @property
    def effective_enforcement(self) -> str:
        return self.enforcement or "required"


class GraphSpecHelpers:
    if TYPE_CHECKING:
        components: list[DynamoComponentDeploymentSharedSpec] | None

    def component(self, name: str) -> DynamoComponentDeploymentSharedSpec | None:
        return next((c for c in self.components or [] if c.name == name), None)


#: The metadata fields the rules type; :attr:`ObjectMetaHelpers.model_extra` returns the others.
_TYPED_METADATA = frozenset({"name", "namespace", "labels", "annotations"})


class ObjectMetaHelpers:
    if TYPE_CHECKING:
        model_fields: ClassVar[dict[str, Any]]
        model_fields_set: set[str]

    @property
    def model_extra(self) -> dict[str, Any] | None:
        """The metadata fields no rule types (``ownerReferences``, ``deletionTimestamp``, ...) that
        were written, by wire name: what the open model kept as extras before metadata became
        strict, so the readers of those fields keep one way to reach them."""
        fields = type(self).model_fields
        return {
            fields[name].alias or name: getattr(self, name)
            for name in self.model_fields_set
            if name in fields and name not in _TYPED_METADATA
        }


class TopLevelHelpers:
    """A whole API object: its name and annotations, and its wire form led by apiVersion and kind."""

    if TYPE_CHECKING:
        api_version: str
        kind: str
        metadata: ObjectMeta

    @property
    def name(self) -> str:
        return self.metadata.name or ""

    @property
    def annotations(self) -> dict[str, str]:
        return self.metadata.annotations or {}

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = super().to_wire()  # type: ignore[misc]
        # apiVersion and kind always lead, even when defaulted.
        head = {"apiVersion": self.api_version, "kind": self.kind}
        return head | {k: v for k, v in wire.items() if k not in head}


class GraphHelpers(TopLevelHelpers):
    """Every v1beta1 DynamoGraphDeployment (model or twin)."""

    if TYPE_CHECKING:
        spec: DynamoGraphDeploymentSpec

    @property
    def components(self) -> list[DynamoComponentDeploymentSharedSpec]:
        return self.spec.components or []


class ComponentDeploymentHelpers(TopLevelHelpers):
    """Every v1beta1 DynamoComponentDeployment (model or twin)."""

    if TYPE_CHECKING:
        spec: DynamoComponentDeploymentSpec

    @property
    def component_name(self) -> str:
        """``spec.name``, or ``metadata.name`` as the defaulting webhook fills it on create."""
        return self.spec.name or self.name


class ScalingAdapterHelpers(TopLevelHelpers):
    """Every v1beta1 DynamoGraphDeploymentScalingAdapter (model or twin)."""
