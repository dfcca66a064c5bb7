"""Which Dynamo runtime a component runs, and which version-gated behaviours that switches on.

The operator changes both admission (EPP) and rendering (probes, worker hash) by the runtime
version, which it learns from ``runtimeVersionOverride`` or, failing that, from the tag of the
runtime container's image (api-and-validation.md section 6). A second family of gates keys on the
operator version that *created* the object (annotation
``nvidia.com/dynamo-operator-origin-version``), so old graphs keep their old behaviour after an
operator upgrade.

Gates are data (name -> threshold) so that renderers and validators ask one question,
``runtime_gate_enabled("NativeRustEPP", version)``, instead of repeating thresholds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import semver

from dynamo_pulumi.api import pods
from dynamo_pulumi.constants import KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION

#: A tag counts only if it is a full semantic version, optionally prefixed by v/V.
_IMAGE_TAG_PATTERN = re.compile(
    r"^[vV]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)

#: The lenient form the operator accepts for the origin annotation ("v1.0", "1", "1.0.0-rc1").
_LENIENT_PATTERN = re.compile(
    r"^v?(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?(?:\.(0|[1-9][0-9]*))?"
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)

Version = semver.Version

#: Behaviours keyed on the resolved runtime version (section 6.2); on when version >= threshold.
RUNTIME_GATES: Mapping[str, Version] = {
    "NativeRustEPP": Version(1, 5, 0),
    "CanaryHealthChecks": Version(1, 5, 0),
    "IncreasedWorkerFailureThreshold": Version(1, 5, 0),
    "FrontendStartupProbe": Version(1, 6, 0),
    "WorkerHashIncludesRuntimeVersion": Version(1, 5, 0),
    #: ``DYN_NAMESPACE_PREFIX_STRICT=true`` on frontend, frontend sidecar and EPP (rendering-core 7).
    "StrictNamespacePrefix": Version(1, 6, 0),
}

#: Behaviours keyed on the operator version that created the object (section 6.3).
ORIGIN_GATES: Mapping[str, Version] = {
    "VLLMMultiprocessing": Version(1, 0, 0),
    "VLLMRayWorkerGCSReadiness": Version(1, 5, 0),
}


@lru_cache(maxsize=1024)
def parse_runtime_version(value: str) -> Version | None:
    """``runtimeVersionOverride`` as strict ``MAJOR.MINOR.PATCH`` (pre-release/build dropped).

    Remembered: every render asks for the same few versions once per component and gate, and
    a ``semver.Version`` is immutable."""
    try:
        parsed = Version.parse(value)
    except (ValueError, TypeError):
        return None
    return Version(parsed.major, parsed.minor, parsed.patch)


def image_tag(image: str) -> str:
    """The tag of an image reference, "" when there is none.

    A digest (``@...``) is dropped first; a ``:`` before the last ``/`` is a registry port,
    not a tag separator.
    """
    ref = image.strip()
    at = ref.find("@")
    if at >= 0:
        ref = ref[:at]
    last_colon = ref.rfind(":")
    if last_colon <= ref.rfind("/"):
        return ""
    return ref[last_colon + 1 :]


def parse_image_tag_version(image: Any) -> Version | None:
    """The (major, minor, patch) in an image's tag, or None when the tag is not a semver.

    ``:1.5.0-cuda13`` counts as 1.5.0; ``:1.5``, ``:latest`` and ``:1.5.0.post1`` do not count.
    Non-string images (e.g. a ``pulumi.Output``) are unresolvable at admission time.
    """
    if not isinstance(image, str):
        return None
    tag = image_tag(image).strip()
    if not tag or not _IMAGE_TAG_PATTERN.match(tag):
        return None
    if tag[0] in "vV":
        tag = tag[1:]
    return parse_runtime_version(tag)


def runtime_container(pod_template: dict[str, Any] | None) -> dict[str, Any] | None:
    """The container whose image carries the runtime: ``runtime`` init container in sidecar mode."""
    if pods.is_sidecar_mode(pod_template):
        return pods.runtime_init_container(pod_template)
    return pods.main_container(pod_template)


def runtime_image(comp: Any) -> Any:
    """The runtime container's image of a component (None when absent)."""
    container = runtime_container(getattr(comp, "pod_template", None))
    return container.get("image") if container else None


def resolve_runtime_version(comp: Any) -> Version | None:
    """The runtime version of a component: a non-empty override wins, else the image tag."""
    override = getattr(comp, "runtime_version_override", None)
    if override:
        return parse_runtime_version(override)
    return parse_image_tag_version(runtime_image(comp))


def runtime_gate_enabled(gate: str, version: Version | None) -> bool:
    """Whether a runtime gate is on; an unknown version turns every gate off."""
    threshold = RUNTIME_GATES[gate]
    return version is not None and _release(version) >= threshold


def parse_origin_version(value: str | None) -> Version | None:
    """The origin annotation parsed leniently (``v1.0`` -> 1.0.0); None when absent or invalid."""
    if value is None:
        return None
    match = _LENIENT_PATTERN.match(value)
    if not match:
        return None
    major, minor, patch, pre, build = match.groups()
    return Version(int(major), int(minor or 0), int(patch or 0), pre, build)


def origin_gate_enabled(gate: str, origin_annotation_value: str | None) -> bool:
    """Whether an origin gate is on; pre-releases sort below their release (``1.0.0-rc1`` < 1.0.0)."""
    threshold = ORIGIN_GATES[gate]
    version = parse_origin_version(origin_annotation_value)
    return version is not None and version.compare(threshold) >= 0


def origin_gate_enabled_for(gate: str, annotations: Mapping[str, str] | None) -> bool:
    """:func:`origin_gate_enabled` reading the annotation from an object's annotations."""
    value = (annotations or {}).get(KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION)
    return origin_gate_enabled(gate, value)


def _release(version: Version) -> Version:
    return Version(version.major, version.minor, version.patch)
