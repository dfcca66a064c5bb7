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

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from dynamo_pulumi.api.base import (
    LABEL_KEY_PATTERN,
    RUNTIME_VERSION_PATTERN,
    Bool,
    In,
    Int64,
    JSONObject,
    NonNegInt32,
    ObjectMetaFields,
    PodTemplate,
    Quantity,
    Str,
    TopologyDomain,
    WireModel,
)
from dynamo_pulumi.api.kinds import API_GROUP, API_VERSION, DCD_KIND, DGD_KIND, DGDSA_KIND  # noqa: F401
from dynamo_pulumi.api.v1beta1_helpers import (
    ComponentDeploymentHelpers,
    ComponentSpecHelpers,
    GraphHelpers,
    GraphSpecHelpers,
    KvTransferPolicyHelpers,
    ScalingAdapterHelpers,
    TopLevelHelpers,
)
from dynamo_pulumi.api.v1beta1_parts import (  # noqa: F401 - re-exported
    COMPONENT_TYPES,
    WORKER_CLASS_TYPES,
    BackendFramework,
    CompilationCacheConfig,
    ComponentCheckpointConfig,
    ComponentCheckpointJobConfig,
    ComponentName,
    ComponentRoleSpec,
    ComponentType,
    ConfigMapKeySelector,
    DynamoCheckpointIdentity,
    EPPConfig,
    ExperimentalSpec,
    FailoverSpec,
    GMSClientPodSpec,
    GMSMode,
    GPUMemoryServiceSpec,
    GroveSpec,
    LPXConfig,
    LPXExperimentalSpec,
    LPXLocalPartitions,
    LPXSchedulingSpec,
    ModelReference,
    MultinodeRoleSpec,
    MultinodeSpec,
    PositiveInt32,
    ProviderOverride,
    ScalingAdapter,
    SpecTopologyConstraint,
    TopologyConstraint,
)

# --- the shared component spec --------------------------------------------------------------------


class ComponentSpecFields(ComponentSpecHelpers, WireModel):
    """Fields of ``DynamoComponentDeploymentSharedSpec`` common to DGD components and DCD specs."""

    provider_override: ProviderOverride | None = None
    """Grove fragment merged into the PodClique (or scaling group) generated for this component."""
    type: In[ComponentType] | None = None
    """Role of the component: `frontend`, `worker`, `prefill`, `decode`, `planner`, `epp` or `lpx`; sets ports, probes, labels and RBAC."""
    lpx: LPXConfig | None = None
    """LPX configuration, for `type: lpx` components."""
    runtime_version_override: In[Annotated[Str, Field(pattern=RUNTIME_VERSION_PATTERN)]] | None = None
    """Dynamo runtime version `X.Y.Z` to assume instead of the main image's tag (needed when the tag is not a version or the image is a pulumi.Output)."""
    global_dynamo_namespace: In[Bool] | None = None
    """Put the component in the cluster-wide Dynamo namespace instead of the graph's own (default false)."""
    pod_template: PodTemplate | None = None
    """Pod template of the component (dict or pulumi_kubernetes PodTemplateSpecArgs); needs a container named `main` with an image."""
    replicas: In[NonNegInt32] | None = None
    """Pods (or multinode groups) of the component, integer >= 0 (default 1); owned by the scaling adapter when `scaling_adapter` is set."""
    min_available: In[PositiveInt32] | None = None
    """Grove scaling-group minAvailable, integer >= 1, for components rendered as a scaling group."""
    multinode: MultinodeSpec | None = None
    """Spread one replica over several nodes (LeaderWorkerSet or Grove scaling group)."""
    roles: list[ComponentRoleSpec] | None = None
    """Per-role settings of a multinode component (`leader`, `worker`)."""
    shared_memory_size: In[Quantity] | None = None
    """Size of the /dev/shm tmpfs, a quantity (default 8Gi; `0` leaves /dev/shm out)."""
    model_ref: ModelReference | None = None
    """The model this component serves; adds a headless Service for discovery."""
    scaling_adapter: ScalingAdapter | None = None
    """`{}` creates a DynamoGraphDeploymentScalingAdapter that owns `replicas` (Pulumi then ignores replica changes)."""
    epp_config: EPPConfig | None = None
    """Endpoint Picker configuration, for `type: epp` components."""
    frontend_sidecar: In[Str] | None = None
    """Name of a podTemplate container to run as the frontend sidecar of this component."""
    compilation_cache: CompilationCacheConfig | None = None
    """A PVC-backed compilation cache mounted where the backend expects it."""
    topology_constraint: TopologyConstraint | None = None
    """Topology level this component's pods are packed within (Grove)."""
    experimental: ExperimentalSpec | None = None
    """Preview features of this component (GMS, failover, checkpoints, Grove options)."""


class DynamoComponentDeploymentSharedSpec(ComponentSpecFields):
    """One entry of ``DynamoGraphDeployment.spec.components``."""

    public_name: ClassVar[str] = "ComponentSpec"

    name: In[ComponentName]
    """Component name, unique in the graph (letters, digits, '-'; at most 63); part of every object name."""


# --- DGD ------------------------------------------------------------------------------------------


class RestartStrategy(WireModel):
    type: In[Literal["Sequential", "Parallel"]] | None = None
    """`Sequential` (one component after another) or `Parallel` restart."""
    order: list[In[Str]] | None = None
    """Component names in the order a sequential restart follows (default: the controller's order)."""


class Restart(WireModel):
    id: In[Annotated[Str, Field(min_length=1)]]
    """Any string; changing it restarts the graph's pods; required."""
    strategy: RestartStrategy | None = None
    """How the restart proceeds (sequential or parallel)."""


class KvTransferPolicy(KvTransferPolicyHelpers, WireModel):
    cluster_topology_name: In[Annotated[Str, Field(min_length=1)]] | None = None
    """Grove ClusterTopology whose levels define the domains (exclusive with `label_key`)."""
    label_key: In[Annotated[Str, Field(min_length=1, max_length=317, pattern=LABEL_KEY_PATTERN)]] | None = None
    """Node label whose value names a worker's domain, e.g. `topology.kubernetes.io/zone` (exclusive with `cluster_topology_name`)."""
    domain: In[TopologyDomain]
    """Topology level KV transfers should stay within (e.g. `zone`, `rack`); required."""
    enforcement: In[Literal["required", "preferred"]] | None = None
    """`required` (default: only same-domain decode workers) or `preferred`."""
    preferred_weight: In[Annotated[float, Field(ge=0, le=1)]] | None = None
    """Strength of the same-domain preference, 0.0 to 1.0; required when enforcement is `preferred`."""


class ComponentGroupMember(WireModel):
    name: In[Annotated[Str, Field(min_length=1)]]
    """Name of a component of this graph that belongs to the group."""


class ComponentGroupSpec(WireModel):
    name: In[ComponentName]
    """Group name (letters, digits, '-'; at most 63)."""
    replicas: In[PositiveInt32]
    """Replicas of the whole group, integer >= 1."""
    scaling_adapter: ScalingAdapter | None = None
    """`{}` creates a scaling adapter for the group."""
    components: Annotated[list[ComponentGroupMember], Field(min_length=1, max_length=16)]
    """Member components, 1 to 16."""


class DynamoGraphDeploymentExperimentalSpec(WireModel):
    kv_transfer_policy: KvTransferPolicy | None = None
    """Topology-aware routing of KV-cache transfers from prefill to decode workers."""
    component_groups: Annotated[list[ComponentGroupSpec], Field(max_length=16)] | None = None
    """Components scaled together as one group (at most 16 groups)."""


class DynamoGraphDeploymentSpec(GraphSpecHelpers, WireModel):

    public_name: ClassVar[str] = "GraphSpec"
    provider_override: ProviderOverride | None = None
    """Grove fragment merged into the generated PodCliqueSet."""
    annotations: dict[str, In[Str]] | None = None
    """Annotations copied onto every child object and pod (a component's own podTemplate values win)."""
    labels: dict[str, In[Str]] | None = None
    """Labels copied onto every child object and pod (a component's own podTemplate values win)."""
    priority_class_name: In[Str] | None = None
    """PriorityClass of the Grove PodCliqueSet (Grove pathway only)."""
    components: Annotated[list[DynamoComponentDeploymentSharedSpec], Field(max_length=25)] | None = None
    """The graph's components, at most 25, names unique."""
    env: list[dict[str, Any]] | None = None
    """Environment variables (core/v1 EnvVar mappings) put before every component's own; a component's entry of the same name wins."""
    backend_framework: In[BackendFramework] | None = None
    """`vllm`, `sglang` or `trtllm`; default: detected from each worker's command."""
    restart: Restart | None = None
    """Change `restart.id` to restart the graph's pods."""
    topology_constraint: SpecTopologyConstraint | None = None
    """Graph-wide topology placement against a Grove ClusterTopology."""
    experimental: DynamoGraphDeploymentExperimentalSpec | None = None
    """Graph-level preview features (KV transfer policy, component groups)."""


class ObjectMeta(ObjectMetaFields):
    """metadata: every ObjectMeta field, unknown ones refused (see :class:`ObjectMetaFields`)."""

    public_name: ClassVar[str] = "Metadata"

    name: In[Str] | None = None
    """Object name, a DNS-1123 subdomain; default: the Pulumi resource name; part of every child object's name."""
    namespace: In[Str] | None = None
    """Namespace (default: the component's `namespace=` argument, else `default`)."""
    labels: dict[str, In[Str]] | None = None
    """Labels of the object itself."""
    annotations: dict[str, In[Str]] | None = None
    """Annotations of the object itself (some configure the operator, e.g. the Grove update strategy)."""
    generation: In[Int64] | None = None
    """Set by the API server; ignored on input."""


class _TopLevel(TopLevelHelpers, WireModel):
    """A whole API object; ``status`` is kept opaque (controllers write it, we never render it)."""

    api_version: Literal["nvidia.com/v1beta1"] = API_VERSION
    """Always `nvidia.com/v1beta1` (v1alpha1 files are converted when loaded)."""
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    """Name, namespace, labels and annotations of the object."""
    status: JSONObject | None = None
    """Written by the operator in the cluster; kept as given, never rendered."""


class DynamoGraphDeployment(GraphHelpers, _TopLevel):
    public_name: ClassVar[str] = "Graph"
    kind: Literal["DynamoGraphDeployment"] = DGD_KIND
    """Always `DynamoGraphDeployment`."""
    spec: DynamoGraphDeploymentSpec = Field(default_factory=DynamoGraphDeploymentSpec)
    """The graph: its components and graph-wide settings."""


class DynamoComponentDeploymentSpec(ComponentSpecFields):
    """DCD spec: ``backendFramework`` plus the shared spec inlined (``name`` defaulted from metadata)."""

    public_name: ClassVar[str] = "StandaloneComponentSpec"

    backend_framework: In[BackendFramework] | None = None
    """`vllm`, `sglang` or `trtllm`; default: detected from the command."""
    name: In[ComponentName] | None = None
    """Component name (default: metadata.name)."""


class DynamoComponentDeployment(ComponentDeploymentHelpers, _TopLevel):
    public_name: ClassVar[str] = "StandaloneComponent"
    kind: Literal["DynamoComponentDeployment"] = DCD_KIND
    """Always `DynamoComponentDeployment`."""
    spec: DynamoComponentDeploymentSpec
    """The component."""


class DGDRef(WireModel):
    name: In[Annotated[Str, Field(min_length=1)]]
    """Name of the DynamoGraphDeployment the adapter scales."""
    component_name: In[Annotated[Str, Field(min_length=1)]]
    """Component of that graph the adapter scales."""


class DynamoGraphDeploymentScalingAdapterSpec(WireModel):
    replicas: In[NonNegInt32]
    """Replicas the adapter sets on the component, integer >= 0."""
    dgd_ref: DGDRef
    """The graph and component this adapter scales."""


class DynamoGraphDeploymentScalingAdapter(ScalingAdapterHelpers, _TopLevel):
    kind: Literal["DynamoGraphDeploymentScalingAdapter"] = DGDSA_KIND
    """Always `DynamoGraphDeploymentScalingAdapter`."""
    spec: DynamoGraphDeploymentScalingAdapterSpec
    """What the adapter scales and to how many replicas."""


DynamoObject = DynamoGraphDeployment | DynamoComponentDeployment | DynamoGraphDeploymentScalingAdapter
KINDS: dict[str, type[_TopLevel]] = {
    DGD_KIND: DynamoGraphDeployment,
    DCD_KIND: DynamoComponentDeployment,
    DGDSA_KIND: DynamoGraphDeploymentScalingAdapter,
}
