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

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, ValidationError

from dynamo_pulumi.api.base import Bool, NonNegInt32, Str, WireModel
from dynamo_pulumi.errors import FieldError, InputError, invalid

if TYPE_CHECKING:
    from dynamo_pulumi.yaml_source import DocumentPositions

DEFAULT_OPERATOR_VERSION = "1.6.0"


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


class Toggle(WireModel):
    """An orchestrator or feature switch. ``None`` means "auto-detect" in the operator; offline
    we cannot detect, so ``None`` counts as off."""

    enabled: Bool | None = None

    @property
    def on(self) -> bool:
        return bool(self.enabled)


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


class Platform(WireModel):
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

    @property
    def grove_enabled(self) -> bool:
        return self.orchestrators.grove.on

    @property
    def lws_enabled(self) -> bool:
        return self.orchestrators.lws.on

    @property
    def cluster_wide(self) -> bool:
        return self.namespace.restricted == ""


def load_platform(source: str | Path | dict[str, Any] | Platform | None) -> Platform:
    """A Platform from a model, a dict, or a YAML file path; ``None`` gives the defaults."""
    if source is None:
        return Platform()
    if isinstance(source, Platform):
        return source
    name = "platform"
    positions: DocumentPositions | None = None
    if isinstance(source, (str, Path)):
        name = str(source)
        data, positions = _read_platform_file(name)
    else:
        data = source
    if not isinstance(data, dict):
        raise InputError("platform settings must be a mapping", name)
    from dynamo_pulumi.input_hints import graph_given_as_platform_hint, helm_values_hint

    hint = graph_given_as_platform_hint(data) or helm_values_hint(data)
    if hint:
        raise InputError(f"platform file: {hint}", name)
    try:
        platform = Platform.model_validate(data)
    except ValidationError as exc:
        from dynamo_pulumi.api.parse import translate_errors

        raise PlatformError(_located(translate_errors(exc, data, model=Platform), positions), name) from None
    errors = _value_errors(platform)
    if errors:
        raise PlatformError(_located(errors, positions), name)
    return platform


def _read_platform_file(name: str) -> tuple[Any, DocumentPositions | None]:
    """The one YAML document of a platform file and where its fields are, read as graph files
    are read: a directory or a device is an error saying so, YAML errors name ``file:line:col``."""
    from dynamo_pulumi.sources import read_text_file
    from dynamo_pulumi.yaml_source import YamlSyntaxError, parse_documents

    try:
        documents = parse_documents(read_text_file(name), name)
    except YamlSyntaxError as exc:  # keeps its position, for -o json and -o github
        detail = str(exc).removeprefix(f"{exc.source}: ")
        raise YamlSyntaxError(f"platform file: {detail}", name, exc.position) from None
    except InputError as exc:
        detail = str(exc).removeprefix(f"{exc.source}: ")
        raise InputError(f"platform file: {detail}", exc.source) from None
    if len(documents) > 1:
        raise InputError(f"a platform file holds one YAML document, found {len(documents)}", name)
    if not documents:
        return {}, None
    return documents[0].value, documents[0].positions


def _located(errors: list[FieldError], positions: DocumentPositions | None) -> list[FieldError]:
    """Each error with the platform file position of its field (or of its nearest parent)."""
    if positions is None:
        return errors
    return [e if e.position else replace(e, position=positions.position_of(e.path)) for e in errors]


class PlatformError(InputError):
    """A platform file the operator would not run with, at the file's own field paths
    (``operatorVersion``, ``orchestrators.grove.enabled``), never at a graph's."""

    def __init__(self, errors: list[FieldError], source: str = "") -> None:
        self.errors = errors
        # Led by the first error's file:line:col, so an editor or CI annotation jumps to it.
        first = errors[0].position if errors else None
        super().__init__("invalid platform settings: " + "; ".join(e.message for e in errors), str(first or source))


def _value_errors(platform: Platform) -> list[FieldError]:
    """Values the schema admits but the operator cannot use."""
    from dynamo_pulumi.runtime_version import parse_origin_version

    if parse_origin_version(platform.operator_version) is None:
        return [
            invalid(
                "operatorVersion",
                platform.operator_version,
                "must be a semantic version (for example 1.6.0): it is stamped on new graphs as their "
                "origin version, which admission requires to be valid semver",
            )
        ]
    return []
