"""Image pull secrets: the offline stand-in for the operator's registry-secret discovery.

The operator lists the docker-registry Secrets of the namespace and, for every container image
of the pod, appends those whose registry matches (unique by name) to ``imagePullSecrets``. We
have no cluster to list, so the platform states the secrets instead (``Platform.image_pull_secrets``)
and every pod that has at least one container image receives them, after any the user listed.
What stays the operator's: the opt-out annotation
``nvidia.com/disable-image-pull-secret-discovery: "true"`` on the pod template, and the
de-duplication by name. Which containers are looked at follows the operator: the regular
containers, plus the init containers in Dynamo sidecar mode (whose ``runtime`` image is the
runtime the pod depends on).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor.constants import (
    KUBE_ANNOTATION_DISABLE_IMAGE_PULL_SECRET_DISCOVERY,
    KUBE_LABEL_VALUE_TRUE,
)
from dynamo_pulumi.render.pod.merge import is_empty

if TYPE_CHECKING:
    from dynamo_pulumi.platform import Platform


def discovery_disabled(pod_annotations: Mapping[str, Any]) -> bool:
    return pod_annotations.get(KUBE_ANNOTATION_DISABLE_IMAGE_PULL_SECRET_DISCOVERY) == KUBE_LABEL_VALUE_TRUE


def append_unique(existing: list[dict[str, Any]], names: Iterable[str]) -> list[dict[str, Any]]:
    """``AppendUniqueImagePullSecrets``: keep ``existing`` and add unseen names in order."""
    result = list(existing)
    seen = {ref.get("name") for ref in existing}
    for name in names:
        if name not in seen:
            result.append({"name": name})
            seen.add(name)
    return result


def apply_image_pull_secrets(
    pod_spec: dict[str, Any],
    platform: Platform,
    pod_annotations: Mapping[str, Any],
    include_init_containers: bool = False,
) -> None:
    """Append the platform's pull secrets to ``pod_spec`` (in place) unless discovery is off."""
    if discovery_disabled(pod_annotations) or not platform.image_pull_secrets:
        return
    containers = list(pod_spec.get("containers") or [])
    if include_init_containers:
        containers += list(pod_spec.get("initContainers") or [])
    if all(is_empty(c.get("image")) for c in containers):
        return
    merged = append_unique(list(pod_spec.get("imagePullSecrets") or []), platform.image_pull_secrets)
    if merged:
        pod_spec["imagePullSecrets"] = merged
