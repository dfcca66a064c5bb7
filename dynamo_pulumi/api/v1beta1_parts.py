"""The parts of a v1beta1 component spec (multinode, roles, model reference, EPP, GMS, failover,
checkpoints, LPX, ...), as typed models with one-line field descriptions.

Split from :mod:`dynamo_pulumi.api.v1beta1`, which re-exports every name, so imports from there
keep working.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from dynamo_pulumi.api.base import (
    COMPONENT_NAME_PATTERN,
    Bool,
    DnsLabel,
    In,
    JSONObject,
    PodTemplate,
    Str,
    TopologyDomain,
    WireModel,
)
from dynamo_pulumi.api.kinds import (  # noqa: F401 - re-exported
    COMPONENT_TYPES,
    WORKER_CLASS_TYPES,
    BackendFramework,
    ComponentType,
    GMSMode,
)
from dynamo_pulumi.api.v1beta1_helpers import (
    CheckpointHelpers,
    FailoverHelpers,
    GPUMemoryServiceHelpers,
    MultinodeSpecHelpers,
)

ComponentName = Annotated[Str, Field(min_length=1, max_length=63, pattern=COMPONENT_NAME_PATTERN)]
PositiveInt32 = Annotated[int, Field(strict=True, ge=1, le=2**31 - 1)]


# --- component parts ------------------------------------------------------------------------------


class ProviderOverride(WireModel):
    """A provider-native fragment merged into the Grove unit a scope produces (section 2.6)."""

    api_version: Annotated[Str, Field(min_length=1)]
    """API group/version of the provider schema the fragment is written in (Grove: `grove.io/v1alpha1`); required."""
    target: In[Str] | None = None
    """Which provider object or embedded schema the fragment patches (e.g. `PodCliqueTemplateSpec`); may be omitted when the location allows only one."""
    value: JSONObject
    """Sparse fragment (a mapping) merged into the generated provider object; only the fields the provider allows at this scope."""


class MultinodeRoleSpec(WireModel):
    """``multinode.leader`` / ``multinode.worker``: the snapshot's spelling of a role's provider
    override (newer graphs use ``roles[].providerOverride``)."""

    provider_override: ProviderOverride | None = None
    """Grove fragment merged into the PodClique template generated for this role (leader or worker)."""


class MultinodeSpec(MultinodeSpecHelpers, WireModel):
    node_count: In[Annotated[int, Field(strict=True, ge=2, le=2**31 - 1)]] | None = None
    """Nodes one replica spans, integer >= 2 (default 2); GPUs per replica = node_count x the main container's GPU limit."""
    leader: MultinodeRoleSpec | None = None
    """Settings of the generated leader unit (older spelling of `roles[name=leader]`)."""
    worker: MultinodeRoleSpec | None = None
    """Settings of the generated worker units (older spelling of `roles[name=worker]`)."""


class ComponentRoleSpec(WireModel):
    name: In[DnsLabel]
    """Role name, a DNS label (`leader` or `worker` for multinode components)."""
    replicas: In[PositiveInt32] | None = None
    """Pods of this role per replica, integer >= 1 (default: the role's natural count)."""
    provider_override: ProviderOverride | None = None
    """Grove fragment merged into the PodClique template of this role."""
    pod_template: PodTemplate | None = None
    """Pod template merged over the component's podTemplate for this role only (dict or PodTemplateSpecArgs)."""


class ModelReference(WireModel):
    name: In[Annotated[Str, Field(min_length=1)]]
    """Base model identifier served by the component (e.g. `Qwen/Qwen3-0.6B`); creates a headless model Service."""
    revision: In[Str] | None = None
    """Model revision or version; optional."""


class ScalingAdapter(WireModel):
    """Presence-only: ``scalingAdapter: {}`` opts into a DGDSA."""


class ConfigMapKeySelector(WireModel):
    name: In[Str] | None = None
    """Name of the ConfigMap (same namespace)."""
    key: In[Str]
    """Key in the ConfigMap holding the configuration; required."""
    optional: In[Bool] | None = None
    """When true, a missing ConfigMap or key is not an error (default false)."""


class EPPConfig(WireModel):
    """Deprecated legacy Go EPP configuration (exactly one of the two, a CEL rule)."""

    config_map_ref: ConfigMapKeySelector | None = None
    """A ConfigMap you provide with the EndpointPickerConfig; exclusive with `config`."""
    config: JSONObject | None = None
    """EndpointPickerConfig as a mapping; the operator writes it into a ConfigMap; exclusive with `config_map_ref`."""


class CompilationCacheConfig(WireModel):
    pvc_name: In[Annotated[Str, Field(min_length=1)]]
    """Existing PVC (same namespace) that holds the backend's compilation cache; required."""
    mount_path: In[Str] | None = None
    """Where the cache is mounted; default: the backend's usual cache directory."""


class TopologyConstraint(WireModel):
    """Component-level placement (``packDomain`` required)."""

    pack_domain: In[TopologyDomain]
    """Topology level (a domain of the ClusterTopology, e.g. `rack`) the component's pods are packed within; required."""


class SpecTopologyConstraint(WireModel):
    """Deployment-level placement against a Grove ClusterTopology."""

    cluster_topology_name: In[Annotated[Str, Field(min_length=1)]]
    """Name of the Grove ClusterTopology whose levels the pack domains refer to; required."""
    pack_domain: In[TopologyDomain] | None = None
    """Default topology level every component is packed within; optional when only components set one."""


class GMSClientPodSpec(WireModel):
    name: In[DnsLabel]
    """Name of the extra GMS client pod, a DNS label."""
    pod_template: JSONObject
    """Pod template of the client pod (mapping, decoded as core/v1 PodTemplateSpec)."""


class GPUMemoryServiceSpec(GPUMemoryServiceHelpers, WireModel):
    mode: In[GMSMode] | None = None
    """`IntraPod` (default: the GMS server runs in the workload pod) or `InterPod` (its own pod)."""
    device_class_name: In[Str] | None = None
    """DRA DeviceClass GPUs are claimed from (default `gpu.nvidia.com`)."""
    extra_client_containers: list[In[DnsLabel]] | None = None
    """Names of your own containers that also get GMS client wiring."""
    extra_client_pods: list[GMSClientPodSpec] | None = None
    """Extra GMS client pods for inter-pod GMS (reserved; refused for now)."""


class FailoverSpec(FailoverHelpers, WireModel):
    mode: In[GMSMode] | None = None
    """Failover topology, must match the GPU Memory Service mode (`IntraPod` default, or `InterPod`)."""
    num_shadows: In[Annotated[int, Field(strict=True, ge=1, le=1)]] | None = None
    """Standby engine containers per rank; only 1 is accepted today."""


class GroveSpec(WireModel):
    force_scaling_group: In[Bool] | None = None
    """Render a single-node component as a PodCliqueScalingGroup (one single-pod clique per replica); default false."""


class DynamoCheckpointIdentity(WireModel):
    model: In[Annotated[Str, Field(min_length=1)]]
    """Model identifier the checkpoint was taken with (deprecated legacy identity)."""
    backend_framework: In[BackendFramework]
    """Backend the checkpoint belongs to: `vllm`, `sglang` or `trtllm` (deprecated legacy identity)."""
    dynamo_version: In[Str] | None = None
    """Dynamo version of the checkpoint (deprecated legacy identity)."""
    tensor_parallel_size: In[PositiveInt32] | None = None
    """Tensor-parallel size, integer >= 1 (deprecated: taken from the pod template)."""
    pipeline_parallel_size: In[PositiveInt32] | None = None
    """Pipeline-parallel size, integer >= 1 (deprecated: taken from the pod template)."""
    dtype: In[Str] | None = None
    """Weights data type such as `bf16` or `fp8` (deprecated legacy identity)."""
    max_model_len: In[PositiveInt32] | None = None
    """Maximum sequence length in tokens, integer >= 1 (deprecated legacy identity)."""
    extra_parameters: dict[str, In[Str]] | None = None
    """Further string parameters hashed into the identity (deprecated legacy identity)."""


class ComponentCheckpointJobConfig(WireModel):
    gms_client_containers: list[In[DnsLabel]] | None = None
    """Containers of the checkpoint Job that get GMS client wiring (needs gpuMemoryService)."""
    pod_template: JSONObject | None = None
    """Pod template merged into the checkpoint Job's pod (mapping, decoded as core/v1 PodTemplateSpec)."""


class ComponentCheckpointConfig(CheckpointHelpers, WireModel):
    enabled: In[Bool]
    """Turn checkpoint snapshot/restore on for this component; required."""
    mode: In[Literal["Auto", "Manual"]] | None = None
    """Deprecated (`Auto`/`Manual`); omit it and use `enabled` with or without `checkpoint_ref`."""
    startup_policy: In[Literal["Immediate", "WaitForCheckpoint"]] | None = None
    """`Immediate` (default: start cold now) or `WaitForCheckpoint` (start once the checkpoint is ready)."""
    deletion_policy: In[Literal["Delete", "Retain"]] | None = None
    """`Delete` or `Retain` the managed checkpoint when the graph is deleted."""
    checkpoint_ref: In[Str] | None = None
    """Name of an existing DynamoCheckpoint to restore from (then `identity` is ignored)."""
    identity: DynamoCheckpointIdentity | None = None
    """Deprecated legacy checkpoint identity; omit for managed checkpoints."""
    target_container_name: In[DnsLabel] | None = None
    """Container that is snapshotted and restored (default `main`)."""
    job: ComponentCheckpointJobConfig | None = None
    """Customises the checkpoint Job the operator runs."""


class ExperimentalSpec(WireModel):
    gpu_memory_service: GPUMemoryServiceSpec | None = None
    """GPU Memory Service: GPUs reached through DRA and shared by GMS clients."""
    failover: FailoverSpec | None = None
    """Active-passive GPU failover (needs gpu_memory_service with the same mode)."""
    grove: GroveSpec | None = None
    """Grove-only rendering options of this component."""
    checkpoint: ComponentCheckpointConfig | None = None
    """Container snapshot and restore of this component's workers."""


class LPXSchedulingSpec(WireModel):
    attempt_deadline_seconds: In[Annotated[int, Field(strict=True, ge=1, le=9223372036)]] | None = None
    """Seconds one LPX scheduling attempt may take, integer >= 1."""


class LPXLocalPartitions(WireModel):
    mode: In[Literal["All", "IDs"]]
    """`All` partitions, or only the listed `IDs`; required."""
    ids: list[Annotated[int, Field(strict=True, ge=0, le=4294967295)]] | None = None
    """Partition IDs used when mode is `IDs` (integers >= 0)."""


class LPXExperimentalSpec(WireModel):
    local_partitions: LPXLocalPartitions | None = None
    """Which local LPX partitions the component uses."""


class LPXConfig(WireModel):
    """Experimental LPX configuration (validated; rendering needs the operator's build registry)."""

    build_id: In[Annotated[Str, Field(min_length=1)]]
    """LPX build to run; required (validated only: rendering needs the operator's build registry)."""
    scheduling: LPXSchedulingSpec | None = None
    """LPX scheduling settings."""
    experimental: LPXExperimentalSpec | None = None
    """Experimental LPX settings."""
