"""DGD metadata rules (api-and-validation.md 4.2, rules 8-13; rule 14 is an update rule).

The operator reads a handful of DGD annotations as configuration; a malformed value would
otherwise surface only as a silent fallback at render time, so admission rejects it up front.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from dynamo_pulumi.errors import FieldError, Path, invalid, not_supported
from dynamo_pulumi.floor.constants import (
    KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE,
    KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION,
    KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY,
    KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND,
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
    WORKLOAD_PROVIDER_COMPONENT,
    WORKLOAD_PROVIDER_GROVE,
)
from dynamo_pulumi.model.runtime_version import parse_origin_version
from dynamo_pulumi.validation.cel import VLLM_DISTRIBUTED_EXECUTOR_BACKENDS
from dynamo_pulumi.validation.component_common import GMS_MODE_INTRA_POD

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment

#: ``Coherent`` needs a Coherent-capable Grove (rendering-grove section 7); the seed reference lets
#: the DGD strategy annotation select it explicitly, so admission accepts it.
GROVE_UPDATE_STRATEGIES = ("RollingRecreate", "OnDelete", "Coherent")
KUBE_DISCOVERY_MODE_POD = "pod"
KUBE_DISCOVERY_MODE_CONTAINER = "container"
KUBE_DISCOVERY_MODES = (KUBE_DISCOVERY_MODE_POD, KUBE_DISCOVERY_MODE_CONTAINER)
WORKLOAD_PROVIDERS = (WORKLOAD_PROVIDER_COMPONENT, WORKLOAD_PROVIDER_GROVE)

ANNOTATIONS_PATH = Path("metadata", "annotations")


def validate_graph_metadata(dgd: DynamoGraphDeployment) -> list[FieldError]:
    """Rules 8-13 on ``metadata.annotations`` of a DGD (create and update alike)."""
    annotations = dgd.annotations
    errors = _origin_version_errors(annotations)
    errors += _vllm_backend_errors(annotations)
    errors += _enum_errors(annotations, KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY, GROVE_UPDATE_STRATEGIES)
    errors += _enum_errors(annotations, KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE, KUBE_DISCOVERY_MODES)
    errors += _enum_errors(annotations, KUBE_ANNOTATION_WORKLOAD_PROVIDER, WORKLOAD_PROVIDERS)
    if has_intra_pod_failover(dgd):
        errors += _intra_pod_failover_errors(annotations)
    return errors


def has_intra_pod_failover(dgd: DynamoGraphDeployment) -> bool:
    """Any component with failover whose effective mode is IntraPod."""
    return any(
        c.failover is not None and c.failover.effective_mode == GMS_MODE_INTRA_POD for c in dgd.components
    )


def annotation_path(key: str) -> Path:
    return ANNOTATIONS_PATH.key(key)


def _origin_version_errors(annotations: Mapping[str, str]) -> list[FieldError]:
    """Rule 8: the origin version must parse as (lenient) semver."""
    key = KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION
    if key not in annotations or parse_origin_version(annotations[key]) is not None:
        return []
    return [invalid(annotation_path(key), annotations[key], "must be valid semver")]


def _vllm_backend_errors(annotations: Mapping[str, str]) -> list[FieldError]:
    """Rule 9: ``mp`` or ``ray``, case-insensitively."""
    key = KUBE_ANNOTATION_VLLM_DISTRIBUTED_EXECUTOR_BACKEND
    value = annotations.get(key)
    if value is None or value.lower() in VLLM_DISTRIBUTED_EXECUTOR_BACKENDS:
        return []
    return [invalid(annotation_path(key), value, 'must be "mp" or "ray"')]


def _enum_errors(annotations: Mapping[str, str], key: str, supported: tuple[str, ...]) -> list[FieldError]:
    """Rules 10-12: exact, case-sensitive values."""
    value = annotations.get(key)
    if value is None or value in supported:
        return []
    return [not_supported(annotation_path(key), value, supported)]


def _intra_pod_failover_errors(annotations: Mapping[str, str]) -> list[FieldError]:
    """Rule 13: intra-pod failover needs container-level discovery."""
    key = KUBE_ANNOTATION_DYNAMO_KUBE_DISCOVERY_MODE
    value = annotations.get(key, "")
    if value == KUBE_DISCOVERY_MODE_CONTAINER:
        return []
    return [invalid(annotation_path(key), value, 'must be "container" when intra-pod failover is configured')]
