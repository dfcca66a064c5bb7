"""Field errors shaped like Kubernetes' ``field.ErrorList``.

Validators never raise on the first problem: they return every :class:`FieldError` they find,
each with the operator's error type, the exact field path, the offending value and the
operator's message. One exception, :class:`GraphValidationError`, carries the whole list to the
user and prints it the way ``kubectl`` prints an admission rejection.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any

from dynamo_pulumi.floor.records import field, record


class ErrorType(StrEnum):
    """The ``field.ErrorType`` strings the API server prints."""

    REQUIRED = "Required value"
    INVALID = "Invalid value"
    FORBIDDEN = "Forbidden"
    NOT_SUPPORTED = "Unsupported value"
    DUPLICATE = "Duplicate value"
    TOO_LONG = "Too long"
    TOO_MANY = "Too many"
    NOT_FOUND = "Not found"


class _Omitted:
    """Marker for errors that carry no value (Required, Forbidden)."""

    def __repr__(self) -> str:
        return "<omitted>"


OMITTED: Any = _Omitted()


class Path:
    """A field path built the way ``k8s.io/apimachinery/pkg/util/validation/field.Path`` is.

    ``Path("spec").child("components").index(2).child("name")`` prints as
    ``spec.components[2].name``; ``.key("x")`` appends ``[x]`` for map keys.
    """

    __slots__ = ("_text",)

    def __init__(self, *names: str) -> None:
        self._text = ".".join(names)

    @classmethod
    def _raw(cls, text: str) -> Path:
        path = cls()
        path._text = text
        return path

    def child(self, *names: str) -> Path:
        text = self._text
        for name in names:
            text = f"{text}.{name}" if text else name
        return Path._raw(text)

    def index(self, i: int) -> Path:
        return Path._raw(f"{self._text}[{i}]")

    def key(self, k: str) -> Path:
        return Path._raw(f"{self._text}[{k}]")

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Path({self._text!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Path):
            return self._text == other._text
        if isinstance(other, str):
            return self._text == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._text)


#: Echoed values longer than this are cut (a 1 MB name is not printed back twice).
MAX_ECHO_CHARS = 200


def shorten(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    """``text`` cut to a readable length, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def _format_value(value: Any) -> str:
    """Render a bad value the way the API server's field errors show it: strings quoted, objects
    and lists as compact JSON in their field order; cut to a readable length."""
    return shorten(_formatted(value))


def _formatted(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return str(value)
    try:
        return json.dumps(value, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return repr(value)


@record
class SourcePosition:
    """Where a field was written: file (or ``<stdin>``), 1-based line and column."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file or '<input>'}:{self.line}:{self.column}"


@record
class FieldError:
    """One admission problem: type, path, value and the operator's detail message.

    ``position`` is where the field (or its nearest written parent) sits in the YAML it was
    loaded from, when it came from text; it is not part of the error's identity. ``fix`` is our
    advice beside the operator's own words (``str()`` stays exactly what the API server prints;
    :attr:`message` is what users read)."""

    type: ErrorType
    path: str
    detail: str = ""
    value: Any = OMITTED
    supported: tuple[str, ...] = ()
    position: SourcePosition | None = field(default=None, compare=False, repr=False)
    fix: str = field(default="", compare=False, repr=False)
    #: What the text output says in place of ``detail`` when the API server's words are long
    #: machinery (a quantity's whole regular expression); JSON keeps ``detail``.
    brief: str = field(default="", compare=False, repr=False)

    @property
    def message(self) -> str:
        """The error as printed to users: the API server's text (or its brief), then the fix."""
        text = str(FieldError(self.type, self.path, self.brief, self.value, self.supported)) if self.brief else str(self)
        return f"{text}; {self.fix}" if self.fix else text

    @property
    def advice(self) -> str:
        """Our advice alone (JSON's ``fix``, beside ``message`` in the API server's words)."""
        return self.fix

    def __str__(self) -> str:
        head = f"{self.path}: {self.type.value}"
        if self.type in (ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG):
            return f"{head}: {self.detail}" if self.detail else head
        parts = [head]
        if self.value is not OMITTED:
            parts.append(_format_value(self.value))
        if self.type is ErrorType.NOT_SUPPORTED and self.supported:
            parts.append("supported values: " + ", ".join(json.dumps(s) for s in self.supported))
        elif self.detail:
            parts.append(self.detail)
        return ": ".join(parts)


def required(path: Path | str, detail: str = "") -> FieldError:
    return FieldError(ErrorType.REQUIRED, str(path), detail)


def invalid(path: Path | str, value: Any, detail: str) -> FieldError:
    return FieldError(ErrorType.INVALID, str(path), detail, value)


def forbidden(path: Path | str, detail: str) -> FieldError:
    return FieldError(ErrorType.FORBIDDEN, str(path), detail)


def not_supported(path: Path | str, value: Any, supported: Iterable[str]) -> FieldError:
    return FieldError(ErrorType.NOT_SUPPORTED, str(path), "", value, tuple(supported))


def duplicate(path: Path | str, value: Any) -> FieldError:
    return FieldError(ErrorType.DUPLICATE, str(path), "", value)


def too_many(path: Path | str, actual: int, limit: int) -> FieldError:
    return FieldError(
        ErrorType.TOO_MANY, str(path), f"must have at most {limit} items", actual
    )


@record(frozen=False)
class Findings:
    """What a validator found: errors reject the object, warnings are printed beside it."""

    errors: list[FieldError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def extend(self, other: Findings) -> None:
        self.errors.extend(other.errors)
        self.warnings.extend(other.warnings)

    def __bool__(self) -> bool:
        return bool(self.errors)


class DynamoPulumiError(Exception):
    """Base of every error this package raises for a user's input (never a bug)."""


class GraphValidationError(DynamoPulumiError):
    """An object failed admission. Carries every :class:`FieldError`.

    ``str()`` gives kubectl's text: ``The DynamoGraphDeployment "x" is invalid:`` followed by
    one ``* path: type: value: detail`` line per error.
    """

    def __init__(
        self,
        errors: Sequence[FieldError],
        kind: str = "DynamoGraphDeployment",
        name: str = "",
        warnings: Sequence[str] = (),
    ) -> None:
        self.errors = list(errors)
        self.kind = kind
        self.name = name
        self.warnings = list(warnings)
        super().__init__(self.__str__())

    @property
    def header(self) -> str:
        """kubectl's ``The Kind "name" is invalid:``; a typed model built without a name (a
        ``GraphSpec``) is ``The GraphSpec is invalid:``, never ``"" is invalid``."""
        return f'The {self.kind} "{shorten(self.name)}" is invalid:' if self.name else f"The {self.kind} is invalid:"

    def __str__(self) -> str:
        name = shorten(self.name)
        if len(self.errors) == 1:
            return f'The {self.kind} "{name}" is invalid: {self.errors[0].message}'
        lines = [f'The {self.kind} "{name}" is invalid: ']
        lines += [f"* {e.message}" for e in self.errors]
        return "\n".join(lines)


class InputError(DynamoPulumiError):
    """Input that never reached admission: unreadable file, bad YAML, unknown kind."""

    def __init__(self, message: str, source: str = "") -> None:
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


class RenderError(DynamoPulumiError):
    """The operator's controller would fail to render this (not an admission rule)."""

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class ModelError(GraphValidationError):
    """A typed model (``ComponentSpec(...)``, ``GraphSpec(...)``) built with input its schema
    refuses: the same field errors as the dict spec, at the keyword's path, under the model's
    public name (``ComponentSpec``, never an internal class name)."""

    def __init__(self, errors: Sequence[FieldError], model: str, name: str = "") -> None:
        super().__init__(errors, kind=model, name=name)

    def __str__(self) -> str:
        head = self.header
        if len(self.errors) == 1:
            return f"{head} {self.errors[0].message}"
        return "\n".join([head, *(f"* {e.message}" for e in self.errors)])


@functools.cache
def _joined_class(cls: type[DynamoPulumiError], base: type[Exception]) -> type[DynamoPulumiError]:
    """``cls`` that is also a ``base`` (one class per pair, same name and module)."""
    return type(cls.__name__, (cls, base), {"__module__": cls.__module__, "__doc__": cls.__doc__})


def also_a(exc: DynamoPulumiError, base: type[Exception]) -> DynamoPulumiError:
    """The same error (class, message and fields) as an instance of ``base`` too."""
    if isinstance(exc, base):
        return exc
    cls = _joined_class(type(exc), base)
    copy = cls.__new__(cls)
    copy.__dict__.update(exc.__dict__)
    copy.args = exc.args
    return copy


def for_pulumi_if_running(exc: DynamoPulumiError) -> DynamoPulumiError:
    """``exc`` as a ``pulumi.RunError`` when ``pulumi`` is loaded (a Pulumi program, whose
    language host prints a RunError as its message, without a traceback); else unchanged.

    For errors raised below the Pulumi layer (a typed model built in the user's program): the
    module is looked up, never imported, so the offline tools stay free of it."""
    pulumi = sys.modules.get("pulumi")
    return also_a(exc, pulumi.RunError) if pulumi is not None else exc
