"""Runtime-version resolution and gates (api-and-validation.md section 6)."""

from __future__ import annotations

import re

import pytest
import semver
from hypothesis import given
from hypothesis import strategies as st

from dynamo_pulumi.api.v1beta1 import ComponentSpecFields
from dynamo_pulumi.model.runtime_version import (
    ORIGIN_GATES,
    RUNTIME_GATES,
    Version,
    image_tag,
    origin_gate_enabled,
    origin_gate_enabled_for,
    parse_image_tag_version,
    parse_origin_version,
    resolve_runtime_version,
    runtime_gate_enabled,
    semver_parts,
)


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.1", Version(0, 9, 1)),
        ("vllm-runtime:v1.6.0", Version(1, 6, 0)),
        ("vllm-runtime:V1.6.0", Version(1, 6, 0)),
        ("vllm-runtime:1.5.0-cuda13", Version(1, 5, 0)),
        ("vllm-runtime:1.5.0-rc1", Version(1, 5, 0)),
        ("vllm-runtime:1.5.0+build.7", Version(1, 5, 0)),
        ("  vllm-runtime:1.5.0  ", Version(1, 5, 0)),
        ("registry:5000/repo/img:1.2.3", Version(1, 2, 3)),
        ("img:1.2.3@sha256:0123abcd", Version(1, 2, 3)),
    ],
)
def test_semver_image_tags_resolve_to_release_triplet(image: str, expected: Version) -> None:
    assert parse_image_tag_version(image) == expected


@pytest.mark.parametrize(
    "image",
    [
        "vllm-runtime:1.5",
        "vllm-runtime:latest",
        "vllm-runtime:1.5.0.post1",
        "vllm-runtime:01.5.0",
        "vllm-runtime:1.05.0",
        "vllm-runtime:vv1.5.0",
        "registry:5000/repo/img",
        "img@sha256:0123abcd",
        "img",
        "",
    ],
)
def test_images_without_a_semver_tag_are_unresolvable(image: str) -> None:
    assert parse_image_tag_version(image) is None


def test_non_string_image_is_unresolvable() -> None:
    assert parse_image_tag_version(None) is None
    assert parse_image_tag_version(object()) is None


def test_colon_before_last_slash_is_a_registry_port_not_a_tag() -> None:
    assert image_tag("registry:5000/repo/img") == ""
    assert image_tag("registry:5000/repo/img:7") == "7"


def _comp(**fields: object) -> ComponentSpecFields:
    return ComponentSpecFields.model_validate(fields)


def _template(main_image: str | None = None, runtime_image: str | None = None) -> dict:
    spec: dict = {}
    if main_image is not None:
        spec["containers"] = [{"name": "main", "image": main_image}]
    if runtime_image is not None:
        spec["initContainers"] = [{"name": "runtime", "image": runtime_image}]
    return {"spec": spec}


def test_override_wins_over_image_tag() -> None:
    comp = _comp(runtimeVersionOverride="1.4.2", podTemplate=_template("img:1.6.0"))
    assert resolve_runtime_version(comp) == Version(1, 4, 2)


def test_main_image_tag_used_without_override() -> None:
    assert resolve_runtime_version(_comp(podTemplate=_template("img:1.6.0"))) == Version(1, 6, 0)


def test_sidecar_mode_reads_runtime_init_container_image() -> None:
    comp = _comp(podTemplate=_template("user-app:9.9.9", runtime_image="dynamo:1.5.1"))
    assert resolve_runtime_version(comp) == Version(1, 5, 1)


def test_no_pod_template_is_unresolvable() -> None:
    assert resolve_runtime_version(_comp()) is None


def test_gate_thresholds_are_the_specified_ones() -> None:
    assert {
        "NativeRustEPP": Version(1, 5, 0),
        "CanaryHealthChecks": Version(1, 5, 0),
        "IncreasedWorkerFailureThreshold": Version(1, 5, 0),
        "FrontendStartupProbe": Version(1, 6, 0),
        "WorkerHashIncludesRuntimeVersion": Version(1, 5, 0),
        "StrictNamespacePrefix": Version(1, 6, 0),
    } == RUNTIME_GATES
    assert {"VLLMMultiprocessing": Version(1, 0, 0), "VLLMRayWorkerGCSReadiness": Version(1, 5, 0)} == ORIGIN_GATES


@pytest.mark.parametrize(
    ("gate", "version", "enabled"),
    [
        ("NativeRustEPP", Version(1, 5, 0), True),
        ("NativeRustEPP", Version(1, 4, 99), False),
        ("NativeRustEPP", Version(2, 0, 0), True),
        ("FrontendStartupProbe", Version(1, 5, 9), False),
        ("FrontendStartupProbe", Version(1, 6, 0), True),
        ("CanaryHealthChecks", None, False),
    ],
)
def test_runtime_gate_is_on_at_or_above_threshold(gate: str, version: Version | None, enabled: bool) -> None:
    assert runtime_gate_enabled(gate, version) is enabled


@pytest.mark.parametrize(
    ("value", "enabled"),
    [
        ("1.0.0", True),
        ("v1.0", True),
        ("1.0", True),
        ("1", True),
        ("0.9.9", False),
        ("1.0.0-rc1", False),
        ("1.0.1-rc1", True),
        ("1.0.0+build.7", True),
        ("not-a-version", False),
        (None, False),
    ],
)
def test_origin_gate_uses_lenient_semver(value: str | None, enabled: bool) -> None:
    assert origin_gate_enabled("VLLMMultiprocessing", value) is enabled


def test_origin_gate_reads_the_origin_annotation() -> None:
    ann = {"nvidia.com/dynamo-operator-origin-version": "1.5.0"}
    assert origin_gate_enabled_for("VLLMRayWorkerGCSReadiness", ann) is True
    assert origin_gate_enabled_for("VLLMRayWorkerGCSReadiness", {}) is False


_numbers = st.integers(min_value=0, max_value=10_000)


@given(
    major=_numbers,
    minor=_numbers,
    patch=_numbers,
    prefix=st.sampled_from(["", "v", "V"]),
    suffix=st.sampled_from(["", "-rc1", "-cuda13.0", "+build.5", "-alpha.1+exp"]),
    registry=st.sampled_from(["", "nvcr.io/nvidia/", "registry:5000/team/"]),
)
def test_any_semver_tag_resolves_to_its_release_triplet(
    major: int, minor: int, patch: int, prefix: str, suffix: str, registry: str
) -> None:
    image = f"{registry}runtime:{prefix}{major}.{minor}.{patch}{suffix}"
    assert parse_image_tag_version(image) == Version(major, minor, patch)


# --- our Version against the semver package (semver.org 2.0.0) -----------------------------------

_PART = st.sampled_from(["0", "1", "2", "10", "01", "007", "rc", "rc1", "alpha", "beta", "x-y", "-", "", "a.b"])
VERSION_TEXT = st.one_of(
    st.builds(lambda a, b, c: f"{a}.{b}.{c}", _PART, _PART, _PART),
    st.builds(lambda a, b, c, pre: f"{a}.{b}.{c}-{pre}", _PART, _PART, _PART,
              st.lists(_PART, min_size=1, max_size=3).map(".".join)),
    st.builds(lambda v, build: f"{v}+{build}", st.sampled_from(["1.2.3", "1.2.3-rc.1", "0.0.0"]),
              st.lists(_PART, min_size=1, max_size=2).map(".".join)),
    st.text(alphabet="0123456789.-+vV abc\n", max_size=14),
)


def _semver(text: str) -> str:
    try:
        return repr(semver.Version.parse(text))
    except ValueError:
        return "invalid"


def _ours(text: str) -> str:
    try:
        return repr(Version.parse(text))
    except ValueError:
        return "invalid"


@given(VERSION_TEXT)
def test_a_version_parses_as_the_semver_package_parses_it(text: str) -> None:
    assert _ours(text) == _semver(text)
    if _ours(text) != "invalid":
        assert str(Version.parse(text)) == str(semver.Version.parse(text))


_PRERELEASE = st.lists(_PART, min_size=1, max_size=3).map(".".join)
#: Two versions of one release, so the pre-release identifiers decide their order.
SAME_RELEASE = st.tuples(st.sampled_from(["1.2.3", "0.0.1"]), st.none() | _PRERELEASE, st.none() | _PRERELEASE).map(
    lambda t: tuple(t[0] if pre is None else f"{t[0]}-{pre}" for pre in t[1:]))


@given(st.one_of(st.tuples(VERSION_TEXT, VERSION_TEXT), SAME_RELEASE))
def test_versions_order_as_the_semver_package_orders_them(pair: tuple[str, str]) -> None:
    left, right = pair
    if _ours(left) == "invalid" or _ours(right) == "invalid":
        return
    ours = Version.parse(left).compare(Version.parse(right))
    theirs = semver.Version.parse(left).compare(semver.Version.parse(right))
    assert (ours > 0) - (ours < 0) == theirs
    assert (Version.parse(left) == Version.parse(right)) == (semver.Version.parse(left) == semver.Version.parse(right))
    assert (Version.parse(left) < Version.parse(right)) == (semver.Version.parse(left) < semver.Version.parse(right))


# --- the string parser against the patterns it replaced ------------------------------------------
# The three regular expressions runtime_version.py compiled on every start until issue 24 (the
# semver.org 2.0.0 pattern, the image-tag form with a v/V prefix, the operator's lenient origin
# form), kept here as the oracle of ``semver_parts``.

_NUMBER_RX = r"(?:0|[1-9][0-9]*)"
_PRE_RX = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_PRERELEASE_RX = rf"(?:-({_PRE_RX}(?:\.{_PRE_RX})*))?"
_BUILD_RX = r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
STRICT_RX = re.compile(rf"({_NUMBER_RX})\.({_NUMBER_RX})\.({_NUMBER_RX}){_PRERELEASE_RX}{_BUILD_RX}\Z", re.ASCII)
IMAGE_TAG_RX = re.compile(rf"^[vV]?({_NUMBER_RX})\.({_NUMBER_RX})\.({_NUMBER_RX}){_PRERELEASE_RX}{_BUILD_RX}$")
LENIENT_RX = re.compile(rf"^v?({_NUMBER_RX})(?:\.({_NUMBER_RX}))?(?:\.({_NUMBER_RX}))?{_PRERELEASE_RX}{_BUILD_RX}$")

_CHARS = "0123456789.-+vVab\n\u00b2\u0663"  # a superscript two and an Arabic-Indic three: digits, not ASCII
VERSIONISH = st.one_of(
    st.text(alphabet=_CHARS, max_size=16),
    st.builds("".join, st.lists(st.sampled_from(["1", "0", "01", ".", "-", "+", "rc", "v", "V", "\n", "x-1"]), max_size=9)),
)


def _groups(match: re.Match[str] | None) -> tuple[object, ...] | None:
    if match is None:
        return None
    major, minor, patch, pre, build = match.groups()
    return int(major), int(minor or 0), int(patch or 0), pre, build


@given(VERSIONISH)
def test_semver_parts_is_the_strict_pattern(text: str) -> None:
    assert semver_parts(text) == _groups(STRICT_RX.match(text))


@given(VERSIONISH)
def test_origin_versions_parse_as_the_lenient_pattern(text: str) -> None:
    ours = parse_origin_version(text)
    assert (None if ours is None else (ours.major, ours.minor, ours.patch, ours.prerelease, ours.build)) == _groups(
        LENIENT_RX.match(text))


@given(VERSIONISH)
def test_image_tags_parse_as_the_image_tag_pattern(tag: str) -> None:
    expected = _groups(IMAGE_TAG_RX.match(tag.strip()))
    ours = parse_image_tag_version(f"nvcr.io/nvidia/runtime:{tag}")
    if ":" in tag or "/" in tag or "@" in tag:
        return
    assert ours == (None if expected is None else Version(*expected[:3]))
