"""One pod spec as ``ValidatePodSpec`` judges it (the parts beyond the OpenAPI schema that a
rendered workload can break), and where the pod specs of a rendered object are.

Covered: volumes, containers and init containers (:mod:`.containers`), ``restartPolicy``,
``dnsPolicy``, ``nodeSelector``, ``tolerations``, ``affinity``, ``terminationGracePeriodSeconds``
and ``activeDeadlineSeconds``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, invalid
from dynamo_pulumi.placeholders import contains_output_token
from dynamo_pulumi.validation.apiserver._common import integer, items, mapping
from dynamo_pulumi.validation.apiserver.containers import containers_errors
from dynamo_pulumi.validation.apiserver.enums import (
    DNS_POLICIES,
    RESTART_POLICIES,
    enum_errors,
    toleration_errors,
)
from dynamo_pulumi.validation.apiserver.selectors import (
    node_affinity_errors,
    node_selector_errors,
    pod_affinity_errors,
)
from dynamo_pulumi.validation.apiserver.volumes import volume_errors

NEGATIVE_MESSAGE = "must be greater than or equal to 0"


def pod_spec_errors(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    """The API server's semantic rules for one pod spec at ``path``."""
    names, errors = volume_errors(spec.get("volumes"), path.child("volumes"))
    volumes = None if _has_unknown_volume(spec.get("volumes")) else names
    errors += containers_errors(spec, volumes, path)
    errors += enum_errors(spec.get("restartPolicy"), path.child("restartPolicy"), RESTART_POLICIES)
    errors += enum_errors(spec.get("dnsPolicy"), path.child("dnsPolicy"), DNS_POLICIES)
    errors += node_selector_errors(spec.get("nodeSelector"), path.child("nodeSelector"))
    errors += toleration_errors(spec.get("tolerations"), path.child("tolerations"))
    errors += node_affinity_errors(spec.get("affinity"), path.child("affinity"))
    errors += pod_affinity_errors(mapping(spec.get("affinity")), path.child("affinity"))
    errors += _seconds_errors(spec, path)
    return errors


def _has_unknown_volume(volumes: Any) -> bool:
    """A parked Output anywhere in the volumes (its name is not known yet)."""
    return any(isinstance(v, str) and contains_output_token(v) for v in items(volumes)) or any(
        isinstance(v, Mapping) and isinstance(v.get("name"), str) and contains_output_token(v["name"])
        for v in items(volumes)
    )


def _seconds_errors(spec: Mapping[str, Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    grace = integer(spec.get("terminationGracePeriodSeconds"))
    if grace is not None and grace < 0:
        errors.append(invalid(path.child("terminationGracePeriodSeconds"), grace, NEGATIVE_MESSAGE))
    deadline = integer(spec.get("activeDeadlineSeconds"))
    if deadline is not None and deadline <= 0:
        errors.append(invalid(path.child("activeDeadlineSeconds"), deadline, "must be between 1 and 2147483647, inclusive"))
    return errors


def pod_specs(obj: Any, path: Path | None = None) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Every pod spec inside a rendered object (a mapping with a ``containers`` list), with its
    path: a Deployment's ``spec.template.spec``, a LeaderWorkerSet's leader and worker templates,
    each PodClique template of a PodCliqueSet."""
    here = path if path is not None else Path()
    if isinstance(obj, Mapping):
        if isinstance(obj.get("containers"), list):
            yield here, obj
            return
        for key, value in obj.items():
            if key not in ("metadata", "status"):
                yield from pod_specs(value, here.child(str(key)))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from pod_specs(value, here.index(i))
