"""The target platform: the operator configuration rendering reads, and the cluster facts
admission asks the API server for.

The YAML form uses the operator's own ``OperatorConfiguration`` key names
(``discovery.backend``, ``infrastructure.natsAddress``, ``orchestrators.grove.enabled`` ...), so
a platform team can copy values from the operator's Helm values. Defaults equal the operator's.

What the operator discovers in a live cluster and we cannot (image pull secrets, the
InferencePool API, ClusterTopologyBinding levels, the operator's own principal) is given here
explicitly, under ``imagePullSecrets`` and ``cluster``; nothing in this package makes a live call
to learn it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dynamo_pulumi.api.base import Bool, NonNegInt32, Str, WireModel
from dynamo_pulumi.model.platform_file import (  # noqa: F401 - re-exported: the platform file's loader
    DEFAULT_OPERATOR_VERSION,
    PlatformError,
    load_platform,
)
from dynamo_pulumi.model.platform_helpers import PlatformHelpers, ToggleHelpers


class Discovery(WireModel):
    backend: Literal["kubernetes", "etcd", ""] = "kubernetes"


class Infrastructure(WireModel):
    nats_address: Str = ""
    etcd_address: Str = ""
    model_express_url: Str = Field("", alias="modelExpressURL")
    prometheus_endpoint: Str = ""
    nats_tls_ca_path: Str = Field("", alias="natsTLSCAPath")
    nats_tls_client_cert_path: Str = Field("", alias="natsTLSClientCertPath")
    nats_tls_client_key_path: Str = Field("", alias="natsTLSClientKeyPath")
    tcp_tls_cert_path: Str = Field("", alias="tcpTLSCertPath")
    tcp_tls_key_path: Str = Field("", alias="tcpTLSKeyPath")
    tcp_tls_ca_path: Str = Field("", alias="tcpTLSCAPath")
    tcp_tls_client_cert_path: Str = Field("", alias="tcpTLSClientCertPath")
    tcp_tls_client_key_path: Str = Field("", alias="tcpTLSClientKeyPath")
    tcp_tls_client_ca_path: Str = Field("", alias="tcpTLSClientCAPath")
    tcp_tls_server_name: Str = Field("", alias="tcpTLSServerName")


class Toggle(ToggleHelpers, WireModel):
    """An orchestrator or feature switch. ``None`` means "auto-detect" in the operator; offline
    we cannot detect, so ``None`` counts as off."""

    enabled: Bool | None = None


class LPXSettings(Toggle):
    """The operator's ``lpx`` block: the feature switch and the compiled-model registry."""

    model_registry_url: Str = Field("", alias="modelRegistryURL")


class GroveSettings(Toggle):
    """``orchestrators.grove``: the gate plus the PodCliqueSet termination delay (a Go duration
    such as ``"4h"``; None keeps the operator's default)."""

    termination_delay: Str | None = None


class Orchestrators(WireModel):
    grove: GroveSettings = Field(default_factory=GroveSettings)
    lws: Toggle = Field(default_factory=Toggle)
    kai_scheduler: Toggle = Field(default_factory=Toggle)
    volcano_scheduler: Toggle = Field(default_factory=Toggle)


class NamespaceConfig(WireModel):
    restricted: Str = ""


class RBACConfig(WireModel):
    planner_cluster_role_name: Str = "dynamo-platform-dynamo-operator-planner"
    epp_cluster_role_name: Str = "dynamo-platform-dynamo-operator-epp"


class MPIConfig(WireModel):
    ssh_secret_name: Str = "mpirun-ssh-key"
    ssh_secret_namespace: Str = ""


class IngressConfig(WireModel):
    virtual_service_gateway: Str = ""
    controller_class_name: Str = ""
    controller_tls_secret_name: Str = Field("", alias="controllerTLSSecretName")
    host_suffix: Str = ""


class IstioConfig(WireModel):
    tls_mode: Str = "SIMPLE"
    insecure_skip_verify: Bool = True
    client_certificate: Str = ""
    private_key: Str = ""
    ca_certificates: Str = ""


class ServiceMeshConfig(WireModel):
    provider: Str = ""
    istio: IstioConfig = Field(default_factory=IstioConfig)


class GPUConfig(WireModel):
    discovery_enabled: Bool = False


class ClusterFacts(WireModel):
    """What admission would ask the live cluster; stated explicitly instead."""

    #: Is the Gateway API Inference Extension (InferencePool) installed?
    inference_pool_available: Bool = True
    #: Grove ClusterTopologyBinding name -> its level domains, ordered broad to narrow.
    cluster_topologies: dict[str, list[Str]] = Field(default_factory=dict)
    #: Principals allowed to write operator-owned fields (full SA usernames).
    operator_principals: list[Str] = Field(default_factory=list)
    #: The user the request is made as (for DGDSA-owned replicas); None = not known.
    requester: Str | None = None
    #: ResourceClaimTemplate (or ResourceClaim) name -> GPUs a container gets from it, for DRA
    #: claims whose template is not given beside the graph (the operator reads it from the cluster).
    resource_claim_gpus: dict[Str, NonNegInt32] = Field(default_factory=dict)


class Platform(PlatformHelpers, WireModel):
    """Operator configuration plus the cluster facts admission and rendering need."""

    operator_version: Str = DEFAULT_OPERATOR_VERSION
    discovery: Discovery = Field(default_factory=Discovery)
    infrastructure: Infrastructure = Field(default_factory=Infrastructure)
    orchestrators: Orchestrators = Field(default_factory=Orchestrators)
    namespace: NamespaceConfig = Field(default_factory=NamespaceConfig)
    rbac: RBACConfig = Field(default_factory=RBACConfig)
    mpi: MPIConfig = Field(default_factory=MPIConfig)
    ingress: IngressConfig = Field(default_factory=IngressConfig)
    service_mesh: ServiceMeshConfig = Field(default_factory=ServiceMeshConfig)
    gpu: GPUConfig = Field(default_factory=GPUConfig)
    checkpoint: Toggle = Field(default_factory=Toggle)
    #: ``dra.enabled``: None means "available" offline (Kubernetes 1.34+ serves resource.k8s.io/v1);
    #: only an explicit false turns DRA-backed features off.
    dra: Toggle = Field(default_factory=Toggle)
    lpx: LPXSettings = Field(default_factory=LPXSettings)
    image_pull_secrets: list[Str] = Field(default_factory=list)
    cluster: ClusterFacts = Field(default_factory=ClusterFacts)
