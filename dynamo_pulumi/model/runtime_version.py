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

from collections.abc import Mapping
from functools import lru_cache, total_ordering
from typing import Any

from dynamo_pulumi.api import pods
from dynamo_pulumi.floor.constants import KUBE_ANNOTATION_DYNAMO_OPERATOR_ORIGIN_VERSION

#: The characters of a pre-release or build identifier (semver.org 2.0.0, ASCII only).
_IDENTIFIER_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-")

Parts = tuple[int, int, int, str | None, str | None]


def _is_number(text: str) -> bool:
    """``0|[1-9][0-9]*`` in ASCII digits."""
    return text.isascii() and text.isdigit() and (text == "0" or text[0] != "0")


def _are_identifiers(text: str, *, numbers_without_leading_zero: bool) -> bool:
    """Dot-separated, non-empty identifiers of ``[0-9A-Za-z-]``; in a pre-release an all-digit
    identifier is a number and has no leading zero."""
    for identifier in text.split("."):
        if not identifier or not _IDENTIFIER_CHARS.issuperset(identifier):
            return False
        if numbers_without_leading_zero and identifier.isdigit() and not _is_number(identifier):
            return False
    return True


def semver_parts(text: str, *, release_numbers: int = 3) -> Parts | None:
    """``MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`` split and checked, None when ``text`` is not one.

    ``release_numbers=1`` is the operator's lenient form of the origin annotation (``1``,
    ``1.0``; the missing numbers are 0). Written with string methods, not a regular expression:
    the three patterns this replaced were a twentieth of ``validate``'s start, compiled on every
    run; ``tests/test_runtime_version.py`` holds the two equal. Identifiers cannot hold ``.``,
    ``-`` before the first ``-`` or ``+``, so the first ``+`` starts the build and the first
    ``-`` before it the pre-release, as the patterns' only way to match.
    """
    head, plus, build = text.partition("+")
    if plus and not _are_identifiers(build, numbers_without_leading_zero=False):
        return None
    release, dash, prerelease = head.partition("-")
    if dash and not _are_identifiers(prerelease, numbers_without_leading_zero=True):
        return None
    numbers = release.split(".")
    if not release_numbers <= len(numbers) <= 3 or not all(_is_number(n) for n in numbers):
        return None
    major, minor, patch = (int(n) for n in (*numbers, "0", "0")[:3])
    return major, minor, patch, prerelease if dash else None, build if plus else None


@total_ordering
class Version:
    """A semantic version (semver.org 2.0.0), ordered by its precedence: the release numbers, then
    a pre-release below its release, identifier by identifier (numbers numerically and below
    words); the build is kept but never compared. What the ``semver`` package's ``Version`` gave
    this module, without its import (a tenth of ``validate``'s start); ``tests/test_runtime_version.py``
    holds the two equal."""

    __slots__ = ("build", "major", "minor", "patch", "prerelease")

    def __init__(self, major: int, minor: int = 0, patch: int = 0,
                 prerelease: str | None = None, build: str | None = None) -> None:
        self.major, self.minor, self.patch = int(major), int(minor), int(patch)
        if min(self.major, self.minor, self.patch) < 0:
            raise ValueError("a version part cannot be negative")
        self.prerelease = None if prerelease is None else str(prerelease)
        self.build = None if build is None else str(build)

    @classmethod
    def parse(cls, text: str | bytes) -> Version:
        """Strict ``MAJOR.MINOR.PATCH[-PRE][+BUILD]``; ValueError when ``text`` is not one."""
        if isinstance(text, bytes):
            text = text.decode("UTF-8")
        elif not isinstance(text, str):
            raise TypeError(f"not expecting type '{type(text)}'")
        parts = semver_parts(text)
        if parts is None:
            raise ValueError(f"{text} is not valid SemVer string")
        return cls(*parts)

    def compare(self, other: Version) -> int:
        """Negative, zero or positive as ``self`` precedes, equals or follows ``other``."""
        mine, theirs = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if mine != theirs:
            return -1 if mine < theirs else 1
        if self.prerelease == other.prerelease:
            return 0
        if not self.prerelease:
            return 1 if other.prerelease else 0
        if not other.prerelease:
            return -1
        left, right = _precedence(self.prerelease), _precedence(other.prerelease)
        return (left > right) - (left < right)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self.compare(other) == 0

    def __lt__(self, other: Version) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.prerelease))

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += f"-{self.prerelease}"
        return f"{text}+{self.build}" if self.build else text

    def __repr__(self) -> str:
        return (f"Version(major={self.major}, minor={self.minor}, patch={self.patch}, "
                f"prerelease={self.prerelease!r}, build={self.build!r})")


def _precedence(prerelease: str) -> list[tuple[int, int, str]]:
    """Pre-release identifiers as sort keys: a number (by value) sorts before any word."""
    keys = []
    for identifier in prerelease.split("."):
        if identifier.isdigit() and identifier.isascii():
            digits = identifier.lstrip("0") or "0"
            keys.append((0, len(digits), digits))
        else:
            keys.append((1, 0, identifier))
    return keys


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
    nothing changes a parsed version."""
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
    if tag[:1] in ("v", "V"):
        tag = tag[1:]
    return parse_runtime_version(tag) if tag else None


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
    if value[:1] == "v":
        value = value[1:]
    parts = semver_parts(value.removesuffix("\n"), release_numbers=1)  # ``$`` admits one final newline
    return None if parts is None else Version(*parts)


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
