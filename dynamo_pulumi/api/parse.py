"""Wire dict -> typed model, with schema violations reported the way the API server reports them.

The API server checks a custom resource against its CRD's OpenAPI schema before any webhook
runs, and reports every violation as a ``field.Error`` with the wire path
(``spec.components[0].replicas``) and kube-openapi's wording (``... in body must be of type
integer: "string"``). Pydantic finds the same violations; this module only translates its
error list, so the schema lives in one place (the models).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_snake
from pydantic_core import ErrorDetails

from dynamo_pulumi.api.v1beta1 import KINDS, DynamoObject
from dynamo_pulumi.api.wire_errors import (
    UnknownFieldError,
    object_name,
    openapi_type,
    type_invalid,
    unknown_field,
    wire_path,
)
from dynamo_pulumi.errors import (
    ErrorType,
    FieldError,
    GraphValidationError,
    InputError,
    invalid,
    not_supported,
    required,
    too_many,
)
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.floor.suggest import nearest

M = TypeVar("M", bound=BaseModel)

#: The OpenAPI type a pydantic type-error says was expected.
_EXPECTED_TYPE: dict[str, str] = {
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "string_type": "string",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "float_type": "number",
    "float_parsing": "number",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "list_type": "array",
    "tuple_type": "array",
    "set_type": "array",
}


def _step_in(node: Any, part: int | str) -> int | str | None:
    """``part`` as it is spelt in ``node`` (a Python keyword for a camelCase loc), or None."""
    if isinstance(node, list):
        return part if isinstance(part, int) and 0 <= part < len(node) else None
    if not isinstance(node, Mapping):
        return None
    if part in node:
        return part
    snake = to_snake(part) if isinstance(part, str) else None
    return snake if snake in node else None


def _resolve_loc(data: Any, loc: tuple[int | str, ...], missing: bool) -> tuple[int | str, ...]:
    """Drop pydantic's union-branch tags from ``loc``, keeping only steps that exist in ``data``
    (and, for a ``missing`` error, the absent field itself); a step the data spells as a Python
    keyword (``min_available``) keeps that spelling."""
    kept: list[int | str] = []
    node = data
    for i, part in enumerate(loc):
        step = _step_in(node, part)
        if step is not None:
            kept.append(step)
            node = node[step]
        elif missing and i == len(loc) - 1:
            kept.append(part)
        # else: a union tag such as "str" or "function-after[...]"
    return tuple(kept)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in _models_in(arg)]


def declared_names(model: type[BaseModel] | None, parents: tuple[int | str, ...]) -> list[str]:
    """The field names (wire and Python spellings) of the model at ``parents`` under ``model``."""
    for part in parents:
        if model is None or isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if part in (n, f.alias)), None)
        found = _models_in(field.annotation) if field is not None else []
        model = found[0] if found else None
    if model is None:
        return []
    return [spelling for n, f in model.model_fields.items() for spelling in (f.alias or n, n)]


def _literal_choices(expected: str) -> list[str]:
    """Parse pydantic's ``"'a', 'b' or 'c'"`` back into the enum values."""
    return re.findall(r"'((?:[^'\\]|\\.)*)'", expected)


def translate_error(
    err: ErrorDetails, data: Any, prefix: str = "", model: type[BaseModel] | None = None
) -> FieldError:
    """One pydantic error -> the field error the API server would have printed; an unknown
    field of ``model`` (at any depth) names the nearest declared field."""
    kind = err["type"]
    loc = _resolve_loc(data, tuple(err["loc"]), missing=kind == "missing")
    path = wire_path(loc, prefix)
    value = err.get("input")
    ctx = err.get("ctx") or {}
    if kind == "missing":
        return required(path)
    if kind == "extra_forbidden":
        return unknown_field(path, nearest(str(loc[-1]), declared_names(model, loc[:-1])) if loc else "")
    if value is None and (kind in _EXPECTED_TYPE or kind in ("literal_error", "enum")):
        return required(path)  # null on a non-nullable field is pruned, leaving it unset
    if kind in _EXPECTED_TYPE:
        return type_invalid(path, value, _EXPECTED_TYPE[kind])
    if kind in ("literal_error", "enum"):
        return not_supported(path, value, _literal_choices(str(ctx.get("expected", ""))))
    return _constraint_error(kind, path, value, ctx, err)


def _bound(value: Any) -> Any:
    """A schema bound as Go prints a float64 with ``%v`` (``1``, not ``1.0``)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _constraint_error(
    kind: str, path: str, value: Any, ctx: Mapping[str, Any], err: ErrorDetails
) -> FieldError:
    """Numeric bounds, string patterns and lengths, list sizes."""
    if kind in ("greater_than_equal", "greater_than"):
        bound = _bound(ctx.get("ge", ctx.get("gt")))
        word = "greater than or equal to" if kind == "greater_than_equal" else "greater than"
        return invalid(path, value, f"{path} in body should be {word} {bound}")
    if kind in ("less_than_equal", "less_than"):
        bound = _bound(ctx.get("le", ctx.get("lt")))
        word = "less than or equal to" if kind == "less_than_equal" else "less than"
        return invalid(path, value, f"{path} in body should be {word} {bound}")
    if kind == "string_pattern_mismatch":
        return invalid(path, value, f"{path} in body should match '{ctx.get('pattern')}'")
    if kind == "string_too_short":
        return invalid(
            path, value, f"{path} in body should be at least {ctx.get('min_length')} chars long"
        )
    if kind == "string_too_long":
        return FieldError(
            ErrorType.TOO_LONG, path, f"may not be more than {ctx.get('max_length')} bytes", value
        )
    if kind == "too_long":
        return too_many(path, int(ctx.get("actual_length", 0)), int(ctx.get("max_length", 0)))
    if kind == "too_short":
        return invalid(
            path,
            ctx.get("actual_length"),
            f"{path} in body should have at least {ctx.get('min_length')} items",
        )
    message = err.get("msg", "invalid value")
    if kind == "value_error":
        message = message.removeprefix("Value error, ")
    return invalid(path, value, message)


def translate_errors(
    exc: ValidationError, data: Any, prefix: str = "", model: type[BaseModel] | None = None
) -> list[FieldError]:
    """Every pydantic error as a field error, once per path and message, in document order."""
    seen: set[tuple[str, str, str]] = set()
    out: list[FieldError] = []
    for err in exc.errors():
        fe = translate_error(err, data, prefix, model)
        key = (fe.path, fe.type.value, fe.detail if fe.type is not ErrorType.NOT_SUPPORTED else "")
        if key in seen or _same_path_seen(fe.path, out):
            continue
        seen.add(key)
        out.append(fe)
    return out


def _same_path_seen(path: str, errors: list[FieldError]) -> bool:
    """A union (int-or-string, ...) yields one pydantic error per branch; keep the first."""
    return any(e.path == path for e in errors)


def parse_model(
    model: type[M],
    data: Any,
    *,
    kind: str,
    name: str = "",
    prefix: str = "",
    extra_errors: Callable[[Any], list[FieldError]] | None = None,
) -> M:
    """Validate ``data`` as ``model`` or raise :class:`GraphValidationError` with every error.

    ``extra_errors(data)`` adds schema violations the model does not see (embedded core types).
    """
    errors: list[FieldError] = []
    result: M | None = None
    try:
        result = model.model_validate(data)
    except ValidationError as exc:
        errors = translate_errors(exc, data, prefix, model)
    if extra_errors is not None:
        seen = {e.path for e in errors}
        errors += [e for e in extra_errors(data) if e.path not in seen]
    unknown = [_suggested(e, model, prefix) for e in errors if isinstance(e, UnknownFieldError)]
    if unknown:
        # Strict field validation fails the request while decoding, before the schema runs.
        raise GraphValidationError(unknown, kind=kind, name=name)
    if errors or result is None:
        raise GraphValidationError(errors, kind=kind, name=name)
    return result


def _suggested(error: UnknownFieldError, model: type[BaseModel], prefix: str) -> UnknownFieldError:
    """``error`` with the nearest field the model declares beside the unknown one."""
    if error.suggestion:
        return error
    from dynamo_pulumi.api.suggest import declared_at, path_parts

    parts = path_parts(error.path)[len(path_parts(prefix)) if prefix else 0:]
    if not parts:
        return error
    suggestion = nearest(parts[-1], declared_at(model, parts[:-1]))
    return replace(error, suggestion=suggestion) if suggestion else error


def embedded_pod_errors(data: Any) -> list[FieldError]:
    """Core/v1 schema violations inside the pod templates (and graph env) of a v1beta1 DGD or DCD
    (:func:`dynamo_pulumi.api.pod_schema.object_errors`)."""
    from dynamo_pulumi.api.pod_schema import object_errors  # late: pod_schema imports this module

    return object_errors(data)


def parse_object(data: Any, source: str = "") -> DynamoObject:
    """A v1beta1 DGD, DCD or DGDSA wire dict as its model.

    Raises :class:`InputError` when ``data`` is not an object of a known kind, and
    :class:`GraphValidationError` (every schema violation at its wire path) when it is one but
    does not match the schema.
    """
    if not isinstance(data, Mapping):
        raise InputError(f"expected a mapping, got {openapi_type(data)}", source)
    kind = data.get("kind")
    model = KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        supported = ", ".join(KINDS)
        raise InputError(f"unknown kind {kind!r} (expected one of {supported})", source)
    obj = parse_model(
        model, dict(data), kind=str(kind), name=object_name(data), extra_errors=embedded_pod_errors
    )
    return obj  # type: ignore[return-value]
