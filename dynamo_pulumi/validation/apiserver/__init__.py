"""The API server's semantic validation (``k8s.io/kubernetes/pkg/apis/core/validation``) of
what rendering produces, as pure functions: the rules beyond the OpenAPI schema that refuse a
Deployment, LeaderWorkerSet, PodCliqueSet or Service only when it is created, half-way through
``pulumi up`` (a GPU limit of ``0.5``, a mount of a volume that does not exist, two containers
with one name, a 16-character port name, a toleration effect outside the enum).

One module per concern: :mod:`.resources` (quantities), :mod:`.containers`, :mod:`.ports`,
:mod:`.env`, :mod:`.volumes`, :mod:`.probes`, :mod:`.enums`, :mod:`.selectors`,
:mod:`.services`, and :mod:`.pod` (one pod spec, and where the pod specs of an object are).
The verdict (:mod:`dynamo_pulumi.verdict.deployability`) runs :func:`rendered_object_errors` over every rendered
object and reports each error where the user wrote the value (:mod:`.source_paths`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path
from dynamo_pulumi.validation.apiserver.pod import pod_spec_errors, pod_specs
from dynamo_pulumi.validation.apiserver.services import service_errors


def rendered_object_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """Every semantic error of one rendered object, at paths inside that object."""
    errors: list[FieldError] = []
    for path, spec in pod_specs(obj.get("spec"), Path("spec")):
        errors += pod_spec_errors(spec, path)
    if obj.get("kind") == "Service" and obj.get("apiVersion") == "v1":
        errors += service_errors(obj)
    return errors


__all__ = ["pod_spec_errors", "rendered_object_errors"]
