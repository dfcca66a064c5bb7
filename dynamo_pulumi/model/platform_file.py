"""The platform settings a command is given: a file, a mapping, a model, or the defaults.

Apart from the models (:mod:`dynamo_pulumi.platform`, which re-exports everything here) so that
the CLI can read a platform file without importing pydantic: with ``twins=True`` valid settings
load as the model's pydantic-free twin (:mod:`dynamo_pulumi.model.twin`). The file is read like a
graph file (``sources.read_text_file``, ``yaml_source`` positions); mistakes are reported at the
platform file's own paths (``operatorVersion``) with their ``file:line:col``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import FieldError, InputError, invalid
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.floor.sources import is_path
from dynamo_pulumi.model.platform_helpers import PlatformHelpers

if TYPE_CHECKING:
    from pathlib import Path

    from dynamo_pulumi.floor.yaml_source import DocumentPositions
    from dynamo_pulumi.platform import Platform

DEFAULT_OPERATOR_VERSION = "1.6.0"


def default_platform(*, twins: bool = False) -> Platform:
    """The operator's defaults (``twins``: as the pydantic-free twin, when the shapes are fresh)."""
    if twins:
        from dynamo_pulumi.model.twin import PLATFORM_MODEL, from_wire

        found = from_wire(PLATFORM_MODEL, {})
        if found is not None:
            return found  # type: ignore[no-any-return]
    from dynamo_pulumi.platform import Platform

    return Platform()


def load_platform(source: str | Path | dict[str, Any] | Platform | None, *, twins: bool = False) -> Platform:
    """A Platform from a model, a dict, or a YAML file path; ``None`` gives the defaults.
    ``twins``: valid settings as the model's pydantic-free twin (see the module docstring)."""
    if source is None:
        return default_platform(twins=twins)
    if isinstance(source, PlatformHelpers):
        return source  # type: ignore[return-value]  # a Platform (model or twin)
    name = "platform"
    positions: DocumentPositions | None = None
    if isinstance(source, str) or is_path(source):
        name = str(source)
        data, positions = _read_platform_file(name)
    else:
        data = source
    if not isinstance(data, dict):
        raise InputError("platform settings must be a mapping", name)
    from dynamo_pulumi.model.input_hints import graph_given_as_platform_hint, helm_values_hint

    hint = graph_given_as_platform_hint(data) or helm_values_hint(data)
    if hint:
        raise InputError(f"platform file: {hint}", name)
    platform = _twin(data) if twins else None
    if platform is None:
        platform = _model(data, name, positions)
    errors = _value_errors(platform)
    if errors:
        raise PlatformError(_located(errors, positions), name)
    return platform


def _twin(data: dict[str, Any]) -> Platform | None:
    from dynamo_pulumi.model.twin import PLATFORM_MODEL, from_wire

    return from_wire(PLATFORM_MODEL, data)  # type: ignore[no-any-return]


def _model(data: dict[str, Any], name: str, positions: DocumentPositions | None) -> Platform:
    from pydantic import ValidationError

    from dynamo_pulumi.platform import Platform

    try:
        return Platform.model_validate(data)
    except ValidationError as exc:
        from dynamo_pulumi.api.parse import translate_errors

        raise PlatformError(_located(translate_errors(exc, data, model=Platform), positions), name) from None


def _read_platform_file(name: str) -> tuple[Any, DocumentPositions | None]:
    """The one YAML document of a platform file and where its fields are, read as graph files
    are read: a directory or a device is an error saying so, YAML errors name ``file:line:col``."""
    from dynamo_pulumi.floor.sources import read_text_file
    from dynamo_pulumi.floor.yaml_source import YamlSyntaxError, parse_documents

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
    from dynamo_pulumi.model.runtime_version import parse_origin_version

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
