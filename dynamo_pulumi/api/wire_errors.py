"""The API server's words for a wire value that does not fit its schema, without pydantic.

Both schema checks speak them: the models' (:mod:`dynamo_pulumi.api.parse`, which translates
pydantic's errors) and the embedded core/v1 types' (:mod:`dynamo_pulumi.api.pod_schema`). Kept
apart from :mod:`~dynamo_pulumi.api.parse` so that a check of a valid object never imports pydantic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dynamo_pulumi.errors import ErrorType, FieldError, invalid
from dynamo_pulumi.floor.records import record

#: OpenAPI type names kube-openapi prints, keyed by the Python type of a wire value.
_OPENAPI_TYPE_OF: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (Mapping, "object"),
    (list, "array"),
)

@record
class UnknownFieldError(FieldError):
    """A field the schema does not declare, printed like kubectl's strict decoding error, with
    the nearest declared field name when one is close (a typo)."""

    suggestion: str = ""

    def __str__(self) -> str:
        return f'unknown field "{self.path}"'

    @property
    def advice(self) -> str:
        """The nearest declared name is our advice, not kubectl's words (JSON's ``fix``)."""
        hint = f'did you mean "{self.suggestion}"?' if self.suggestion else ""
        return "; ".join(part for part in (hint, self.fix) if part)

    @property
    def message(self) -> str:
        hint = f' (did you mean "{self.suggestion}"?)' if self.suggestion else ""
        return f"{self}{hint}; {self.fix}" if self.fix else f"{self}{hint}"


def unknown_field(path: str, suggestion: str = "") -> UnknownFieldError:
    return UnknownFieldError(ErrorType.INVALID, path, f'unknown field "{path}"', suggestion=suggestion)


def openapi_type(value: Any) -> str:
    """The OpenAPI type name of a decoded JSON/YAML value (``null`` for None)."""
    if value is None:
        return "null"
    for py_type, name in _OPENAPI_TYPE_OF:
        if isinstance(value, py_type):
            return name
    return type(value).__name__


def type_invalid(path: str, value: Any, expected: str) -> FieldError:
    """kube-openapi's type error as the API server prints it for a CRD.

    Its type validator hands the JSON type of the value, not the value, to
    ``field.TypeInvalid``: ``<path>: Invalid value: "string": <path> in body must be of type
    object: "string"``.
    """
    got = openapi_type(value)
    return invalid(path, got, f'{path} in body must be of type {expected}: "{got}"')


def wire_path(loc: Iterable[int | str], prefix: str = "") -> str:
    """``('spec', 'components', 0, 'name')`` -> ``spec.components[0].name``."""
    text = prefix
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text = f"{text}.{part}" if text else str(part)
    return text


def object_name(data: Mapping[str, Any]) -> str:
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return name if isinstance(name, str) else ""
