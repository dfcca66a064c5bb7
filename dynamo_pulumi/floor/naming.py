"""Object names, name hashes and the Dynamo namespace, computed the way the operator does.

Every function here is pure and total: it takes plain strings and returns plain strings, so the
renderer, the Pulumi layer and the readiness code all name things identically.
"""

from __future__ import annotations

from dynamo_pulumi.floor.constants import (
    DNS1123_LABEL_MAX_LENGTH,
    GLOBAL_DYNAMO_NAMESPACE,
    K8S_SERVICE_DISCOVERY_SA_SUFFIX,
    LABEL_VALUE_MAX_LENGTH,
    LWS_NAME_SUFFIX,
    MODEL_SERVICE_NAME_PREFIX,
    ROLE_BINDING_NAME_SUFFIX,
    ROLE_NAME_SUFFIX,
    WORKER_COMPONENT_TYPES,
)
from dynamo_pulumi.floor.digests import sha256_hex

#: Length of the hash appended to a Dynamo namespace that would exceed 63 characters (seed page).
DYNAMO_NAMESPACE_HASH_LENGTH = 16

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


def fnv1a_32(text: str) -> int:
    """FNV-1a 32-bit hash of the UTF-8 bytes (Go's ``hash/fnv.New32a``)."""
    h = _FNV32_OFFSET
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def fnv_suffix(text: str) -> str:
    """The 4-hex-digit suffix the operator uses for truncated names: ``%04x`` of the low 16 bits."""
    return f"{fnv1a_32(text) & 0xFFFF:04x}"


def truncate_with_fnv(name: str, limit: int = DNS1123_LABEL_MAX_LENGTH) -> str:
    """``name`` if it fits ``limit``; else a prefix, ``-`` and :func:`fnv_suffix` of the full name."""
    if len(name) <= limit:
        return name
    suffix = fnv_suffix(name)
    return f"{name[: limit - len(suffix) - 1]}-{suffix}"


# --- Dynamo namespace -----------------------------------------------------------------------------


def dynamo_namespace(k8s_namespace: str, graph_name: str, global_namespace: bool = False) -> str:
    """``ComputeDynamoNamespace`` plus the seed page's length rule.

    Global components use ``dynamo``. Otherwise ``<ns>-<graph name with dots as hyphens>``. The
    value is also a label value, so when it exceeds 63 characters it is shortened and a
    16-character hash of the *original* pair is appended. Our choice of hash (the seed page does
    not name one): the first 16 lowercase hex characters of SHA-256 of ``"<ns>/<name>"`` (the
    undotted name), joined with ``-`` to a prefix of the base value cut to 63 - 17 = 46 characters,
    with trailing ``-`` removed so no ``--`` appears. The result is at most 63 characters and
    ends in a hex digit, so it is always a valid label value.
    """
    if global_namespace:
        return GLOBAL_DYNAMO_NAMESPACE
    base = f"{k8s_namespace}-{graph_name.replace('.', '-')}"
    if len(base) <= LABEL_VALUE_MAX_LENGTH:
        return base
    digest = sha256_hex(f"{k8s_namespace}/{graph_name}")[:DYNAMO_NAMESPACE_HASH_LENGTH]
    prefix = base[: LABEL_VALUE_MAX_LENGTH - DYNAMO_NAMESPACE_HASH_LENGTH - 1].rstrip("-.")
    return f"{prefix}-{digest}"


def runtime_namespace(dynamo_ns: str, worker_hash: str | None) -> str:
    """The namespace workers register under: ``<dyn ns>-<worker hash>`` (status ``runtimeNamespace``)."""
    return f"{dynamo_ns}-{worker_hash}" if worker_hash else dynamo_ns


# --- component objects ----------------------------------------------------------------------------


def is_worker_type(component_type: str | None) -> bool:
    """``IsWorkerComponent``: worker, prefill and decode."""
    return (component_type or "") in WORKER_COMPONENT_TYPES


def dcd_name(graph_name: str, component_name: str, component_type: str | None = None, worker_hash: str = "") -> str:
    """``GetDCDResourceName``: ``<dgd>-<lower(component)>``, plus ``-<hash>`` for worker types.

    Dots stay and nothing is truncated, as in the operator.
    """
    base = f"{graph_name}-{component_name.lower()}"
    if is_worker_type(component_type) and worker_hash:
        return f"{base}-{worker_hash}"
    return base


def normalize_kube_resource_name(name: str) -> str:
    """``NormalizeKubeResourceName``: lowercase with ``.`` as ``-`` (Services reject dots)."""
    return name.replace(".", "-").lower()


def component_service_name(dcd_object_name: str) -> str:
    """The component Service (also Ingress, VirtualService) name for a DCD."""
    return normalize_kube_resource_name(dcd_object_name)


def lws_name(dcd_object_name: str, index: int = 0) -> str:
    """LeaderWorkerSet name: ``<dcd>-<index>`` so it never collides with the ``<dcd>`` Service."""
    return f"{dcd_object_name}{LWS_NAME_SUFFIX}" if index == 0 else f"{dcd_object_name}-{index}"


def model_name_hash(model_name: str) -> str:
    """First 8 hex characters of SHA-256 of the model name (the base-model-hash label value)."""
    return sha256_hex(model_name)[:8]


def model_service_name(model_name: str) -> str:
    """Headless model Service: ``dynamo-model-<hash8>``."""
    return f"{MODEL_SERVICE_NAME_PREFIX}{model_name_hash(model_name)}"


# --- RBAC -----------------------------------------------------------------------------------------


def discovery_service_account_name(graph_name: str) -> str:
    """The Kubernetes-discovery ServiceAccount of a graph: ``<dgd>-k8s-service-discovery``."""
    return f"{graph_name}{K8S_SERVICE_DISCOVERY_SA_SUFFIX}"


def role_name(service_account: str) -> str:
    return f"{service_account}{ROLE_NAME_SUFFIX}"


def role_binding_name(service_account: str) -> str:
    return f"{service_account}{ROLE_BINDING_NAME_SUFFIX}"


def rbac_name_label_value(name: str) -> str:
    """The ``app.kubernetes.io/name`` value: capped at 63 as first 54 chars + ``-`` + sha256[:8]."""
    if len(name) <= LABEL_VALUE_MAX_LENGTH:
        return name
    return f"{name[:54]}-{sha256_hex(name)[:8]}"
