"""Platform settings load from the operator's key names; bad input is a clear InputError."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.platform import Platform, load_platform


def test_defaults_equal_the_operators() -> None:
    platform = load_platform(None)
    assert platform.discovery.backend == "kubernetes"
    assert platform.cluster_wide and not platform.grove_enabled and not platform.lws_enabled


def test_operator_key_names_are_read(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "infrastructure: {natsAddress: nats://n:4222, modelExpressURL: http://m}\n"
        "orchestrators: {grove: {enabled: true, terminationDelay: 1h}, kaiScheduler: {enabled: true}}\n"
        "lpx: {enabled: true, modelRegistryURL: s3://models}\n"
    )
    platform = load_platform(path)
    assert platform.infrastructure.nats_address == "nats://n:4222"
    assert platform.infrastructure.model_express_url == "http://m"
    assert platform.grove_enabled and platform.orchestrators.grove.termination_delay == "1h"
    assert platform.orchestrators.kai_scheduler.on
    assert platform.lpx.model_registry_url == "s3://models"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"orchestrators: {grove: {enabld: true}}\n", "invalid platform settings"),
        (b"- a\n- b\n", "must be a mapping"),
        (b"key: [unclosed\n", "platform file: invalid YAML"),
        (b"\xff\xfe\x00bad", "not UTF-8"),
    ],
)
def test_bad_platform_files_are_clear_input_errors(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        load_platform(path)


def test_a_missing_platform_file_is_a_clear_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="platform file: no such file"):
        load_platform(tmp_path / "absent.yaml")


def test_a_platform_file_yaml_error_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("orchestrators:\n  grove: [\n")
    with pytest.raises(InputError) as info:
        load_platform(path)
    assert str(info.value).startswith(f"{path}:3:1: platform file: invalid YAML:")
    assert "<unicode string>" not in str(info.value)


def test_a_directory_or_a_device_as_platform_file_is_an_error_saying_what_it_is(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="platform file: is a directory, not a file"):
        load_platform(tmp_path)
    with pytest.raises(InputError, match="platform file: is a character device, not a file"):
        load_platform("/dev/null")


def test_a_platform_schema_error_is_led_by_the_line_of_its_field(tmp_path: Path) -> None:
    from dynamo_pulumi.platform import PlatformError

    path = tmp_path / "p.yaml"
    path.write_text("operatorVersion: 1.6.0\ncluster:\n  inferencePoolAvailable: maybe\n")
    with pytest.raises(PlatformError) as info:
        load_platform(path)
    (error,) = info.value.errors
    assert (error.position.line, error.position.column) == (3, 3)
    assert str(info.value).startswith(f"{path}:3:3: invalid platform settings: cluster.inferencePoolAvailable:")


def test_a_platform_model_passes_through() -> None:
    platform = Platform()
    assert load_platform(platform) is platform


def test_an_operator_version_that_is_no_semver_is_reported_against_the_platform_file(tmp_path) -> None:
    from dynamo_pulumi.platform import PlatformError

    path = tmp_path / "platform.yaml"
    path.write_text("operatorVersion: banana\n")
    with pytest.raises(PlatformError) as info:
        load_platform(path)
    (error,) = info.value.errors
    assert error.path == "operatorVersion" and error.value == "banana"
    assert str(info.value).startswith(f'{path}:1:1: invalid platform settings: operatorVersion: Invalid value: "banana"')


def test_platform_schema_errors_are_at_the_files_own_paths_in_the_api_servers_words(tmp_path) -> None:
    from dynamo_pulumi.platform import PlatformError

    path = tmp_path / "platform.yaml"
    path.write_text("orchestrators: {grove: {enabled: yes-please}}\nunknownKey: 1\n")
    with pytest.raises(PlatformError) as info:
        load_platform(path)
    assert [str(e) for e in info.value.errors] == [
        'orchestrators.grove.enabled: Invalid value: "string": orchestrators.grove.enabled in body must be '
        'of type boolean: "string"',
        'unknown field "unknownKey"',
    ]
