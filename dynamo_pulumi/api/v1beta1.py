"""Typed models of ``nvidia.com/v1beta1`` DynamoGraphDeployment, DynamoComponentDeployment and
DynamoGraphDeploymentScalingAdapter.

Field names, enums, patterns and limits follow the operator's CRD schema and the DCD reference
page (``api-and-validation.md`` sections 1-3, seed page). Only what the schema itself states is
checked here; CEL object rules and webhook rules live in :mod:`dynamo_pulumi.validation`, so that
every violation is reported with its path instead of stopping at the first.

Defaults are *not* filled in on load (round trip must be exact): the ``effective_*`` helpers
give the value the operator would use.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from dynamo_pulumi.api.base import (
    COMPONENT_NAME_PATTERN,
    LABEL_KEY_PATTERN,
    RUNTIME_VERSION_PATTERN,
    Bool,
    DnsLabel,
    Int64,
    JSONObject,
    NonNegInt32,
    OpenModel,
    PodTemplate,
    Quantity,
    Str,
    TopologyDomain,
    WireModel,
)

API_GROUP = "nvidia.com"
API_VERSION = "nvidia.com/v1beta1"
DGD_KIND = "DynamoGraphDeployment"
DCD_KIND = "DynamoComponentDeployment"
DGDSA_KIND = "DynamoGraphDeploymentScalingAdapter"

BackendFramework = Literal["sglang", "vllm", "trtllm"]
ComponentType = Literal["frontend", "worker", "prefill", "decode", "planner", "epp", "lpx"]
#: The ``type`` values the v1beta1 schema admits. A v1alpha1 ``componentType`` outside them (e.g.
#: ``main``) is copied unchanged by the conversion webhook, and the stored object is not re-checked.
COMPONENT_TYPES: frozenset[str] = frozenset(get_args(ComponentType))
WORKER_CLASS_TYPES: frozenset[str] = frozenset({"worker", "prefill", "decode"})
GMSMode = Literal["IntraPod", "InterPod"]
ComponentName = Annotated[Str, Field(min_length=1, max_length=63, pattern=COMPONENT_NAME_PATTERN)]
PositiveInt32 = Annotated[int, Field(strict=True, ge=1, le=2**31 - 1)]


# --- component parts ------------------------------------------------------------------------------


class ProviderOverride(WireModel):
    """A provider-native fragment merged into the Grove unit a scope produces (section 2.6)."""

    api_version: Annotated[Str, Field(min_length=1)]
    target: Str | None = None
    value: JSONObject


class MultinodeRoleSpec(WireModel):
    """``multinode.leader`` / ``multinode.worker``: the snapshot's spelling of a role's provider
    override (newer graphs use ``roles[].providerOverride``)."""

    provider_override: ProviderOverride | None = None


class MultinodeSpec(WireModel):
    node_count: Annotated[int, Field(strict=True, ge=2, le=2**31 - 1)] | None = None
    leader: MultinodeRoleSpec | None = None
    worker: MultinodeRoleSpec | None = None

    @property
    def effective_node_count(self) -> int:
        """CRD default 2 when omitted."""
        return 2 if self.node_count is None else self.node_count


class ComponentRoleSpec(WireModel):
    name: DnsLabel
    replicas: PositiveInt32 | None = None
    provider_override: ProviderOverride | None = None
    pod_template: PodTemplate | None = None


class ModelReference(WireModel):
    name: Annotated[Str, Field(min_length=1)]
    revision: Str | None = None


class ScalingAdapter(WireModel):
    """Presence-only: ``scalingAdapter: {}`` opts into a DGDSA."""


class ConfigMapKeySelector(WireModel):
    name: Str | None = None
    key: Str
    optional: Bool | None = None


class EPPConfig(WireModel):
    """Deprecated legacy Go EPP configuration (exactly one of the two, a CEL rule)."""

    config_map_ref: ConfigMapKeySelector | None = None
    config: JSONObject | None = None


class CompilationCacheConfig(WireModel):
    pvc_name: Annotated[Str, Field(min_length=1)]
    mount_path: Str | None = None


class TopologyConstraint(WireModel):
    """Component-level placement (``packDomain`` required)."""

    pack_domain: TopologyDomain


class SpecTopologyConstraint(WireModel):
    """Deployment-level placement against a Grove ClusterTopology."""

    cluster_topology_name: Annotated[Str, Field(min_length=1)]
    pack_domain: TopologyDomain | None = None


class GMSClientPodSpec(WireModel):
    name: DnsLabel
    pod_template: JSONObject


class GPUMemoryServiceSpec(WireModel):
    mode: GMSMode | None = None
    device_class_name: Str | None = None
    extra_client_containers: list[DnsLabel] | None = None
    extra_client_pods: list[GMSClientPodSpec] | None = None

    @property
    def effective_mode(self) -> str:
        return self.mode or "IntraPod"

    @property
    def effective_device_class(self) -> str:
        return self.device_class_name or "gpu.nvidia.com"


class FailoverSpec(WireModel):
    mode: GMSMode | None = None
    num_shadows: Annotated[int, Field(strict=True, ge=1, le=1)] | None = None

    @property
    def effective_mode(self) -> str:
        return self.mode or "IntraPod"


class GroveSpec(WireModel):
    force_scaling_group: Bool | None = None


class DynamoCheckpointIdentity(WireModel):
    model: Annotated[Str, Field(min_length=1)]
    backend_framework: BackendFramework
    dynamo_version: Str | None = None
    tensor_parallel_size: PositiveInt32 | None = None
    pipeline_parallel_size: PositiveInt32 | None = None
    dtype: Str | None = None
    max_model_len: PositiveInt32 | None = None
    extra_parameters: dict[str, Str] | None = None


class ComponentCheckpointJobConfig(WireModel):
    gms_client_containers: list[DnsLabel] | None = None
    pod_template: JSONObject | None = None


class ComponentCheckpointConfig(WireModel):
    enabled: Bool
    mode: Literal["Auto", "Manual"] | None = None
    startup_policy: Literal["Immediate", "WaitForCheckpoint"] | None = None
    deletion_policy: Literal["Delete", "Retain"] | None = None
    checkpoint_ref: Str | None = None
    identity: DynamoCheckpointIdentity | None = None
    target_container_name: DnsLabel | None = None
    job: ComponentCheckpointJobConfig | None = None

    @property
    def effective_startup_policy(self) -> str:
        return self.startup_policy or "Immediate"

    @property
    def effective_target_container(self) -> str:
        return self.target_container_name or "main"


class ExperimentalSpec(WireModel):
    gpu_memory_service: GPUMemoryServiceSpec | None = None
    failover: FailoverSpec | None = None
    grove: GroveSpec | None = None
    checkpoint: ComponentCheckpointConfig | None = None


class LPXSchedulingSpec(WireModel):
    attempt_deadline_seconds: Annotated[int, Field(strict=True, ge=1, le=9223372036)] | None = None


class LPXLocalPartitions(WireModel):
    mode: Literal["All", "IDs"]
    ids: list[Annotated[int, Field(strict=True, ge=0, le=4294967295)]] | None = None


class LPXExperimentalSpec(WireModel):
    local_partitions: LPXLocalPartitions | None = None


class LPXConfig(WireModel):
    """Experimental LPX configuration (validated; rendering needs the operator's build registry)."""

    build_id: Annotated[Str, Field(min_length=1)]
    scheduling: LPXSchedulingSpec | None = None
    experimental: LPXExperimentalSpec | None = None


# --- the shared component spec --------------------------------------------------------------------


class ComponentSpecFields(WireModel):
    """Fields of ``DynamoComponentDeploymentSharedSpec`` common to DGD components and DCD specs."""

    provider_override: ProviderOverride | None = None
    type: ComponentType | None = None
    lpx: LPXConfig | None = None
    runtime_version_override: Annotated[Str, Field(pattern=RUNTIME_VERSION_PATTERN)] | None = None
    global_dynamo_namespace: Bool | None = None
    pod_template: PodTemplate | None = None
    replicas: NonNegInt32 | None = None
    min_available: PositiveInt32 | None = None
    multinode: MultinodeSpec | None = None
    roles: list[ComponentRoleSpec] | None = None
    shared_memory_size: Quantity | None = None
    model_ref: ModelReference | None = None
    scaling_adapter: ScalingAdapter | None = None
    epp_config: EPPConfig | None = None
    frontend_sidecar: Str | None = None
    compilation_cache: CompilationCacheConfig | None = None
    topology_constraint: TopologyConstraint | None = None
    experimental: ExperimentalSpec | None = None

    # -- derived helpers the operator has under the same names ---------------------------------

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
        return legacy.provider_override if legacy is not None else None

    @property
    def has_role_pod_templates(self) -> bool:
        return any(r.pod_template is not None for r in self.roles or [])


class DynamoComponentDeploymentSharedSpec(ComponentSpecFields):
    """One entry of ``DynamoGraphDeployment.spec.components``."""

    name: ComponentName


# --- DGD ------------------------------------------------------------------------------------------


class RestartStrategy(WireModel):
    type: Literal["Sequential", "Parallel"] | None = None
    order: list[Str] | None = None


class Restart(WireModel):
    id: Annotated[Str, Field(min_length=1)]
    strategy: RestartStrategy | None = None


class KvTransferPolicy(WireModel):
    cluster_topology_name: Annotated[Str, Field(min_length=1)] | None = None
    label_key: Annotated[Str, Field(min_length=1, max_length=317, pattern=LABEL_KEY_PATTERN)] | None = None
    domain: TopologyDomain
    enforcement: Literal["required", "preferred"] | None = None
    preferred_weight: Annotated[float, Field(ge=0, le=1)] | None = None

    @property
    def effective_enforcement(self) -> str:
        return self.enforcement or "required"


class ComponentGroupMember(WireModel):
    name: Annotated[Str, Field(min_length=1)]


class ComponentGroupSpec(WireModel):
    name: ComponentName
    replicas: PositiveInt32
    scaling_adapter: ScalingAdapter | None = None
    components: Annotated[list[ComponentGroupMember], Field(min_length=1, max_length=16)]


class DynamoGraphDeploymentExperimentalSpec(WireModel):
    kv_transfer_policy: KvTransferPolicy | None = None
    component_groups: Annotated[list[ComponentGroupSpec], Field(max_length=16)] | None = None


class DynamoGraphDeploymentSpec(WireModel):
    provider_override: ProviderOverride | None = None
    annotations: dict[str, Str] | None = None
    labels: dict[str, Str] | None = None
    priority_class_name: Str | None = None
    components: Annotated[list[DynamoComponentDeploymentSharedSpec], Field(max_length=25)] | None = None
    env: list[dict[str, Any]] | None = None
    backend_framework: BackendFramework | None = None
    restart: Restart | None = None
    topology_constraint: SpecTopologyConstraint | None = None
    experimental: DynamoGraphDeploymentExperimentalSpec | None = None

    def component(self, name: str) -> DynamoComponentDeploymentSharedSpec | None:
        return next((c for c in self.components or [] if c.name == name), None)


class ObjectMeta(OpenModel):
    """metadata: the fields rules read are typed; everything else is kept as given."""

    name: Str | None = None
    namespace: Str | None = None
    labels: dict[str, Str] | None = None
    annotations: dict[str, Str] | None = None
    generation: Int64 | None = None


class _TopLevel(WireModel):
    """A whole API object; ``status`` is kept opaque (controllers write it, we never render it)."""

    api_version: Literal["nvidia.com/v1beta1"] = API_VERSION
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    status: JSONObject | None = None

    @property
    def name(self) -> str:
        return self.metadata.name or ""

    @property
    def annotations(self) -> dict[str, str]:
        return self.metadata.annotations or {}

    def to_wire(self) -> dict[str, Any]:
        wire = super().to_wire()
        # apiVersion and kind always lead, even when defaulted.
        head = {"apiVersion": self.api_version, "kind": self.kind}  # type: ignore[attr-defined]
        return head | {k: v for k, v in wire.items() if k not in head}


class DynamoGraphDeployment(_TopLevel):
    kind: Literal["DynamoGraphDeployment"] = DGD_KIND
    spec: DynamoGraphDeploymentSpec = Field(default_factory=DynamoGraphDeploymentSpec)

    @property
    def components(self) -> list[DynamoComponentDeploymentSharedSpec]:
        return self.spec.components or []


class DynamoComponentDeploymentSpec(ComponentSpecFields):
    """DCD spec: ``backendFramework`` plus the shared spec inlined (``name`` defaulted from metadata)."""

    backend_framework: BackendFramework | None = None
    name: ComponentName | None = None


class DynamoComponentDeployment(_TopLevel):
    kind: Literal["DynamoComponentDeployment"] = DCD_KIND
    spec: DynamoComponentDeploymentSpec

    @property
    def component_name(self) -> str:
        """``spec.name``, or ``metadata.name`` as the defaulting webhook fills it on create."""
        return self.spec.name or self.name


class DGDRef(WireModel):
    name: Annotated[Str, Field(min_length=1)]
    component_name: Annotated[Str, Field(min_length=1)]


class DynamoGraphDeploymentScalingAdapterSpec(WireModel):
    replicas: NonNegInt32
    dgd_ref: DGDRef


class DynamoGraphDeploymentScalingAdapter(_TopLevel):
    kind: Literal["DynamoGraphDeploymentScalingAdapter"] = DGDSA_KIND
    spec: DynamoGraphDeploymentScalingAdapterSpec


DynamoObject = DynamoGraphDeployment | DynamoComponentDeployment | DynamoGraphDeploymentScalingAdapter
KINDS: dict[str, type[_TopLevel]] = {
    DGD_KIND: DynamoGraphDeployment,
    DCD_KIND: DynamoComponentDeployment,
    DGDSA_KIND: DynamoGraphDeploymentScalingAdapter,
}
