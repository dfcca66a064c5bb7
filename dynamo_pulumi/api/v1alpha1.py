"""Typed models of ``nvidia.com/v1alpha1`` DynamoGraphDeployment, DynamoComponentDeployment and
DynamoGraphDeploymentScalingAdapter.

The alpha API is served but not stored: the API server checks an alpha object against the
alpha OpenAPI schema (these models), then the conversion webhook turns it into v1beta1
(:mod:`dynamo_pulumi.api.conversion`). Field names, enums, patterns and limits follow the
v1alpha1 schema of the operator's CRDs; CRD defaults are not filled in (conversion applies the
few that change the converted object). Kubernetes core types (PodSpec, Container, EnvVar,
Probe, HPA metrics) stay plain mappings, as they do in v1beta1.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from dynamo_pulumi.api.base import (
    RUNTIME_VERSION_PATTERN,
    Bool,
    DnsLabel,
    JSONObject,
    NonNegInt32,
    ObjectMetaFields,
    OpenModel,
    Str,
    TopologyDomain,
    WireModel,
)

# Structs whose v1alpha1 schema is the v1beta1 one are the beta models. ModelReference and
# DynamoCheckpointIdentity are reused although beta adds minLength 1 (name, model) that the
# alpha schema lacks.
from dynamo_pulumi.api.v1beta1 import (
    BackendFramework,
    ConfigMapKeySelector,
    DynamoCheckpointIdentity,
    GMSClientPodSpec,
    KvTransferPolicy,
    ModelReference,
    MultinodeRoleSpec,
    PositiveInt32,
    ProviderOverride,
    Restart,
    TopologyConstraint,
)

ALPHA_API_VERSION = "nvidia.com/v1alpha1"

#: resource.Quantity as the alpha schema declares it (int-or-string with the quantity pattern).
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
QuantityString = Annotated[Str, Field(pattern=QUANTITY_PATTERN)]
Quantity = QuantityString | Annotated[int, Field(strict=True)]
AlphaGMSMode = Literal["intraPod", "interPod"]
StringMap = dict[str, Str]
#: A core/v1 Container, EnvVar, Probe, ... kept as the user's mapping.
K8sObject = dict[str, Any]


# --- component parts --------------------------------------------------------------------------


class ResourceItem(WireModel):
    """Alpha resources: flat strings, the GPU key chosen by ``gpuType``."""

    cpu: Str | None = None
    memory: Str | None = None
    gpu: Str | None = None
    gpu_type: Str | None = None
    custom: StringMap | None = None


class Resources(WireModel):
    requests: ResourceItem | None = None
    limits: ResourceItem | None = None
    claims: list[K8sObject] | None = None


class VolumeMount(WireModel):
    name: Str
    mount_point: Str | None = None
    use_as_compilation_cache: Bool | None = None


class SharedMemorySpec(WireModel):
    disabled: Bool | None = None
    size: Quantity | None = None


class ExtraPodMetadata(WireModel):
    annotations: StringMap | None = None
    labels: StringMap | None = None


class FrontendSidecarSpec(WireModel):
    image: Str
    args: list[Str] | None = None
    env_from_secret: Str | None = None
    envs: list[K8sObject] | None = None


class ScalingAdapter(WireModel):
    """Differs from beta: an ``enabled`` flag (beta's is presence-only)."""

    enabled: Bool | None = None


class IngressTLSSpec(WireModel):
    secret_name: Str | None = None


class IngressSpec(WireModel):
    enabled: Bool | None = None
    host: Str | None = None
    use_virtual_service: Bool | None = None
    virtual_service_gateway: Str | None = None
    host_prefix: Str | None = None
    annotations: StringMap | None = None
    labels: StringMap | None = None
    tls: IngressTLSSpec | None = None
    host_suffix: Str | None = None
    ingress_controller_class_name: Str | None = None


class GPUMemoryServiceSpec(WireModel):
    """Differs from beta: required ``enabled``, camelCase modes."""

    enabled: Bool
    mode: AlphaGMSMode | None = None
    device_class_name: Str | None = None
    extra_client_containers: list[DnsLabel] | None = None  # the alpha schema's pattern too
    extra_client_pods: list[GMSClientPodSpec] | None = None


class FailoverSpec(WireModel):
    """Differs from beta: required ``enabled``, camelCase modes, no ``numShadows`` maximum."""

    enabled: Bool
    mode: AlphaGMSMode | None = None
    num_shadows: PositiveInt32 | None = None


class CheckpointJobConfig(WireModel):
    """Schema as beta's, but names are not pattern-checked here (a bad one fails after conversion)."""

    gms_client_containers: list[Str] | None = None
    pod_template: JSONObject | None = None


class ServiceCheckpointConfig(WireModel):
    """Differs from beta: ``enabled`` optional (CRD default false)."""

    enabled: Bool | None = None
    mode: Literal["Auto", "Manual"] | None = None
    startup_policy: Literal["Immediate", "WaitForCheckpoint"] | None = None
    deletion_policy: Literal["Delete", "Retain"] | None = None
    checkpoint_ref: Str | None = None
    identity: DynamoCheckpointIdentity | None = None
    target_container_name: DnsLabel | None = None
    job: CheckpointJobConfig | None = None


class EPPConfig(WireModel):
    """Differs from beta: the alpha schema has no exactly-one-of CEL rule."""

    config_map_ref: ConfigMapKeySelector | None = None
    config: JSONObject | None = None


class MultinodeSpec(WireModel):
    """Differs from beta: the alpha schema lists ``nodeCount`` as required (default 2)."""

    node_count: Annotated[int, Field(strict=True, ge=2, le=2**31 - 1)] | None = None
    leader: MultinodeRoleSpec | None = None
    worker: MultinodeRoleSpec | None = None


class Autoscaling(OpenModel):
    """Deprecated and ignored by the operator; kept only to warn and round-trip."""

    enabled: Bool | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None
    behavior: JSONObject | None = None
    metrics: list[K8sObject] | None = None


# --- the shared component spec ----------------------------------------------------------------


class DynamoComponentDeploymentSharedSpec(WireModel):
    """One service of ``spec.services`` (or the inlined spec of an alpha DCD)."""

    annotations: StringMap | None = None
    labels: StringMap | None = None
    service_name: Str | None = None
    component_type: Str | None = None
    sub_component_type: Str | None = None
    dynamo_namespace: Str | None = None
    global_dynamo_namespace: Bool | None = None
    runtime_version_override: Annotated[Str, Field(pattern=RUNTIME_VERSION_PATTERN)] | None = None
    resources: Resources | None = None
    autoscaling: Autoscaling | None = None
    envs: list[K8sObject] | None = None
    env_from_secret: Str | None = None
    volume_mounts: list[VolumeMount] | None = None
    ingress: IngressSpec | None = None
    model_ref: ModelReference | None = None
    shared_memory: SharedMemorySpec | None = None
    extra_pod_metadata: ExtraPodMetadata | None = None
    #: core/v1 PodSpec plus ``mainContainer`` (a core/v1 Container), kept as given.
    extra_pod_spec: K8sObject | None = None
    liveness_probe: K8sObject | None = None
    readiness_probe: K8sObject | None = None
    replicas: NonNegInt32 | None = None
    min_available: PositiveInt32 | None = None
    multinode: MultinodeSpec | None = None
    scaling_adapter: ScalingAdapter | None = None
    epp_config: EPPConfig | None = None
    frontend_sidecar: FrontendSidecarSpec | None = None
    provider_override: ProviderOverride | None = None
    topology_constraint: TopologyConstraint | None = None
    gpu_memory_service: GPUMemoryServiceSpec | None = None
    failover: FailoverSpec | None = None
    checkpoint: ServiceCheckpointConfig | None = None

    @property
    def main_container(self) -> dict[str, Any] | None:
        """``extraPodSpec.mainContainer`` when it is a mapping."""
        main = (self.extra_pod_spec or {}).get("mainContainer")
        return main if isinstance(main, dict) else None


# --- DGD --------------------------------------------------------------------------------------


class PVC(WireModel):
    create: Bool | None = None
    name: Str
    storage_class: Str | None = None
    size: Quantity | None = None
    volume_access_mode: Str | None = None


class SpecTopologyConstraint(WireModel):
    """Differs from beta: ``topologyProfile`` where beta has ``clusterTopologyName``."""

    topology_profile: Annotated[Str, Field(min_length=1)]
    pack_domain: TopologyDomain | None = None


class DynamoGraphDeploymentExperimentalSpec(WireModel):
    """Differs from beta's model: no ``componentGroups``."""

    kv_transfer_policy: KvTransferPolicy | None = None


class DynamoGraphDeploymentSpec(WireModel):
    annotations: StringMap | None = None
    labels: StringMap | None = None
    provider_override: ProviderOverride | None = None
    priority_class_name: Str | None = None
    pvcs: Annotated[list[PVC], Field(max_length=100)] | None = None
    services: dict[str, DynamoComponentDeploymentSharedSpec | None] | None = None
    envs: list[K8sObject] | None = None
    backend_framework: BackendFramework | None = None
    restart: Restart | None = None
    topology_constraint: SpecTopologyConstraint | None = None
    experimental: DynamoGraphDeploymentExperimentalSpec | None = None


class ObjectMeta(ObjectMetaFields):
    """Differs from beta: ``generation`` is not typed (any value kept as given)."""

    name: Str | None = None
    namespace: Str | None = None
    labels: StringMap | None = None
    annotations: StringMap | None = None
    generation: Any = None


class _TopLevel(WireModel):
    """Differs from beta: the alpha apiVersion; no ``to_wire`` that puts apiVersion and kind first."""

    api_version: Literal["nvidia.com/v1alpha1"] = ALPHA_API_VERSION
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    status: JSONObject | None = None

    @property
    def name(self) -> str:
        return self.metadata.name or ""


class DynamoGraphDeployment(_TopLevel):
    kind: Literal["DynamoGraphDeployment"] = "DynamoGraphDeployment"
    #: The schema does not require spec; an absent one is the empty spec.
    spec: DynamoGraphDeploymentSpec = Field(default_factory=DynamoGraphDeploymentSpec)


class DynamoComponentDeploymentSpec(DynamoComponentDeploymentSharedSpec):
    backend_framework: BackendFramework | None = None


class DynamoComponentDeployment(_TopLevel):
    kind: Literal["DynamoComponentDeployment"] = "DynamoComponentDeployment"
    spec: DynamoComponentDeploymentSpec = Field(default_factory=DynamoComponentDeploymentSpec)


class DynamoGraphDeploymentServiceRef(WireModel):
    """Differs from beta's DGDRef: ``serviceName`` where beta has ``componentName``."""

    name: Annotated[Str, Field(min_length=1)]
    service_name: Annotated[Str, Field(min_length=1)]


class DynamoGraphDeploymentScalingAdapterSpec(WireModel):
    replicas: NonNegInt32
    dgd_ref: DynamoGraphDeploymentServiceRef


class DynamoGraphDeploymentScalingAdapter(_TopLevel):
    kind: Literal["DynamoGraphDeploymentScalingAdapter"] = "DynamoGraphDeploymentScalingAdapter"
    spec: DynamoGraphDeploymentScalingAdapterSpec


AlphaObject = DynamoGraphDeployment | DynamoComponentDeployment | DynamoGraphDeploymentScalingAdapter
ALPHA_KINDS: dict[str, type[_TopLevel]] = {
    "DynamoGraphDeployment": DynamoGraphDeployment,
    "DynamoComponentDeployment": DynamoComponentDeployment,
    "DynamoGraphDeploymentScalingAdapter": DynamoGraphDeploymentScalingAdapter,
}
