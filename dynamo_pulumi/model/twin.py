"""Pydantic-free twins of the models, for a valid object read from a file.

Importing pydantic costs several times a bare interpreter's start (about thirty times when no
bytecode is cached), more than ``dynamo-pulumi validate`` of a small graph may take in all. A twin
is an object of a plain class with the model's name, fields, helpers (the same mixins,
:mod:`dynamo_pulumi.api.v1beta1_helpers`) and the part of the model API the stages use:
``model_fields_set``, ``model_copy``, ``to_wire``, ``model_validate``, equality and ``repr``. It
is built from a wire dict by the shapes pydantic itself validates with (read by
:mod:`dynamo_pulumi.model.twin_build` into ``data/twins.json``), and only when the answer is
certain: every value of exactly the type the schema admits, every bound and pattern met, no
unknown or Python-spelt key. Anything else (an error, a value pydantic would coerce, a string
a pattern engine might read differently) is *unsure*, and the caller builds the model with
pydantic instead, so a twin exists only where the model would hold the same values.
``tests/test_twins.py`` holds both equal over the corpus and mutated graphs: the same fields,
values, ``to_wire``, ``repr`` and verdict.

Only the CLI's ``validate`` and ``render`` load twins (:func:`dynamo_pulumi.loading.documents.load_each`
with ``twins=True``); everything a user's program receives stays a pydantic model. When a model
source changed since the shapes were read (:func:`fresh`), no twin is built at all.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import sys
import zlib
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from importlib import import_module
from typing import Any, ClassVar

from dynamo_pulumi.api.pulumi_args import plain

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES_FILE = os.path.join(PACKAGE_ROOT, "data", "twins.json")
#: The model of each v1beta1 kind.
KIND_MODELS = {
    "DynamoGraphDeployment": "dynamo_pulumi.api.v1beta1.DynamoGraphDeployment",
    "DynamoComponentDeployment": "dynamo_pulumi.api.v1beta1.DynamoComponentDeployment",
    "DynamoGraphDeploymentScalingAdapter": "dynamo_pulumi.api.v1beta1.DynamoGraphDeploymentScalingAdapter",
}
PLATFORM_MODEL = "dynamo_pulumi.platform.Platform"
DCD_MODEL = KIND_MODELS["DynamoComponentDeployment"]


class _Unsure:
    """The twin cannot say what pydantic makes of a value: build the model instead."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unsure>"


UNSURE: Any = _Unsure()
Check = Callable[[Any], Any]


@lru_cache(maxsize=1)
def _shapes() -> dict[str, Any]:
    with open(SHAPES_FILE, encoding="utf-8") as handle:
        return json.load(handle)  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def fresh() -> bool:
    """The shapes were read from the model sources as they are now (else no twin is built)."""
    try:
        sums = _shapes()["sources"]
        return all(_crc(os.path.join(PACKAGE_ROOT, name)) == crc for name, crc in sums.items())
    except (OSError, ValueError, KeyError):
        return False


def _crc(path: str) -> int:
    with open(path, "rb") as handle:
        return zlib.crc32(handle.read())


class FieldShape:
    """What the stages read of a pydantic ``FieldInfo``: the wire name."""

    __slots__ = ("alias", "name")

    def __init__(self, name: str, alias: str) -> None:
        self.name = name
        self.alias = alias

    def __repr__(self) -> str:
        return f"FieldShape(name={self.name!r}, alias={self.alias!r})"


class Twin:
    """Base of every twin class (see the module docstring)."""

    __slots__ = ("__dict__", "_twin_fields_set")

    #: The model's ``module.QualName``.
    qualname: ClassVar[str] = ""
    public_name: ClassVar[str] = ""
    model_fields: ClassVar[dict[str, FieldShape]] = {}
    _check: ClassVar[Callable[[Any], Any]]

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def from_wire(cls, data: Any) -> Any:
        """A twin of ``data``, or :data:`UNSURE`."""
        return cls._check(data)

    @classmethod
    def model_validate(cls, data: Any) -> Any:
        """A twin when certain, else the pydantic model's own ``model_validate`` (which raises on
        invalid data as it always did)."""
        twin = cls.from_wire(data) if fresh() else UNSURE
        return model_class(cls.qualname).model_validate(data) if twin is UNSURE else twin

    @classmethod
    def _made(cls, values: dict[str, Any], fields_set: set[str]) -> Twin:
        obj = object.__new__(cls)
        object.__setattr__(obj, "__dict__", values)
        object.__setattr__(obj, "_twin_fields_set", fields_set)
        return obj

    # -- what the stages read --------------------------------------------------------------------

    @property
    def model_fields_set(self) -> set[str]:
        return self._twin_fields_set

    @property
    def model_extra(self) -> dict[str, Any] | None:
        return None  # every twinned model refuses unknown fields

    def to_wire(self) -> dict[str, Any]:
        """``model_dump(by_alias=True, exclude_unset=True)``: set fields only, by wire name."""
        return _wire_fields(self)

    def model_dump(self, *, by_alias: bool = False, exclude_unset: bool = False, mode: str = "python") -> dict[str, Any]:
        if not (by_alias and exclude_unset and mode == "python"):
            raise NotImplementedError("a twin dumps only as to_wire() does")
        return _wire_fields(self)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        new = copy.deepcopy(self) if deep else self.__copy__()
        if update:
            new.__dict__.update(update)
            new._twin_fields_set.update(update)
        return new

    def __copy__(self) -> Twin:
        return type(self)._made(dict(self.__dict__), set(self._twin_fields_set))

    def __deepcopy__(self, memo: dict[int, Any]) -> Twin:
        return type(self)._made(copy.deepcopy(self.__dict__, memo), set(self._twin_fields_set))

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
        elif name not in type(self).model_fields:
            raise ValueError(f'"{type(self).__name__}" object has no field "{name}"')
        else:
            self.__dict__[name] = value
            self._twin_fields_set.add(name)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Twin):
            return other.qualname == self.qualname and self.__dict__ == other.__dict__
        if _is_model(other) and _qualified(type(other)) == self.qualname:
            return getattr(other, "__pydantic_extra__", None) is None and self.__dict__ == other.__dict__
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __iter__(self) -> Any:
        yield from ((k, v) for k, v in self.__dict__.items() if not k.startswith("_"))

    def __repr_body(self, sep: str) -> str:
        fields = type(self).model_fields
        return sep.join(f"{k}={v!r}" for k, v in self.__dict__.items() if k in fields)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__repr_body(', ')})"

    def __str__(self) -> str:
        return self.__repr_body(" ")


def _is_model(value: Any) -> bool:
    """A pydantic model instance, recognised without importing pydantic."""
    return hasattr(type(value), "__pydantic_fields__")


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _wire_fields(obj: Twin) -> dict[str, Any]:
    fields = type(obj).model_fields
    set_ = obj._twin_fields_set
    # In ``__dict__`` order, as pydantic-core dumps; a key ``model_copy(update=)`` added that is
    # no field is left out, as pydantic leaves it out.
    return {fields[name].alias: _dump(value) for name, value in obj.__dict__.items() if name in set_ and name in fields}


def _dump(value: Any) -> Any:
    """A field value as pydantic's python-mode dump gives it: containers copied, models dumped."""
    kind = type(value)
    if kind is dict:
        return {k: _dump(v) for k, v in value.items()}
    if kind is list:
        return [_dump(v) for v in value]
    if isinstance(value, Twin):
        return _wire_fields(value)
    if kind is tuple:
        return tuple(_dump(v) for v in value)
    if _is_model(value):
        return value.model_dump(by_alias=True, exclude_unset=True, mode="python")
    return value


# --- building twins ---------------------------------------------------------------------------


def is_twin(value: Any) -> bool:
    return isinstance(value, Twin)


def model_class(qualname: str) -> Any:
    """The pydantic model of ``qualname`` (importing it, and pydantic)."""
    module, _, name = qualname.rpartition(".")
    return getattr(import_module(module), name)


@cache
def twin_class(qualname: str) -> type[Twin]:
    """The twin class of the model ``qualname`` (``module.QualName``)."""
    shape = _shapes()["models"][qualname]
    helpers = tuple(model_class(h) for h in shape["helpers"])
    fields = {name: FieldShape(name, alias) for name, alias, _, _ in shape["fields"]}
    cls = type(shape["name"], (*helpers, Twin), {
        "__module__": shape["module"],
        "__qualname__": shape["name"],
        "qualname": qualname,
        "public_name": shape["public_name"],
        "model_fields": fields,
    })
    cls._check = _model_check(cls, shape["fields"])  # type: ignore[attr-defined]
    return cls


def from_wire(qualname: str, data: Any) -> Any:
    """A twin of the model ``qualname`` built from ``data``, or None when unsure (or stale)."""
    if not fresh():
        return None
    twin = twin_class(qualname).from_wire(data)
    return None if twin is UNSURE else twin


def internal(qualname: str, data: Any) -> Any:
    """``data`` as the model ``qualname``, for a stage's own use (a DCD the renderer generates
    and reads back; it never reaches a user): the twin when certain, else the model. Invalid
    data raises pydantic's ValidationError, as ``model_validate`` does."""
    return twin_class(qualname).model_validate(data)


def is_validation_error(exc: BaseException) -> bool:
    """``exc`` is pydantic's ValidationError (recognised without importing pydantic: when it is
    not loaded, nothing raised one)."""
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(exc, core.ValidationError)


def _model_check(cls: type[Twin], fields: list[list[Any]]) -> Check:
    """The check of one model's wire dict: a twin or UNSURE."""
    compiled: list[tuple[str, str, Check, dict[str, Any]]] = []
    by_alias: dict[str, int] = {}

    def check(data: Any) -> Any:
        if not compiled:
            for name, alias, spec, default in fields:
                by_alias[alias] = len(compiled)
                compiled.append((name, alias, _compile(spec), default))
        if type(data) is not dict or any(key not in by_alias for key in data):
            return UNSURE
        values: dict[str, Any] = {}
        given: set[str] = set()
        for name, alias, field_check, default in compiled:
            if alias in data:
                value = field_check(data[alias])
                if value is UNSURE:
                    return UNSURE
                values[name] = value
                given.add(name)
            elif "required" in default:
                return UNSURE
            else:
                value = _default(default)
                if value is UNSURE:
                    return UNSURE
                values[name] = value
        return cls._made(values, given)

    return check


def _default(default: dict[str, Any]) -> Any:
    if "default" in default:
        return default["default"]
    factory = default["factory"]
    if factory == "dict":
        return {}
    if factory == "list":
        return []
    return twin_class(factory).from_wire({})


def _compile(spec: dict[str, Any]) -> Check:
    return _COMPILERS[spec["t"]](spec)


def _str(spec: dict[str, Any]) -> Check:
    low, high, pattern = spec.get("min_length"), spec.get("max_length"), spec.get("pattern")
    regex = re.compile(pattern) if pattern is not None else None

    def check(value: Any) -> Any:
        if type(value) is not str:
            return UNSURE
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            return UNSURE
        # pydantic matches with the Rust regex engine: the same answer for ASCII text without a
        # newline (where Python's ``$`` also matches before a final newline).
        if regex is not None and (not value.isascii() or "\n" in value or regex.search(value) is None):
            return UNSURE
        return value

    return check


def _bounded(spec: dict[str, Any], value: Any) -> Any:
    low, high = spec.get("ge"), spec.get("le")
    if (low is not None and value < low) or (high is not None and value > high):
        return UNSURE
    return value


def _int(spec: dict[str, Any]) -> Check:
    return lambda value: _bounded(spec, value) if type(value) is int else UNSURE


def _float(spec: dict[str, Any]) -> Check:
    strict = spec["strict"]

    def check(value: Any) -> Any:
        if type(value) is float and math.isfinite(value):
            return _bounded(spec, value)
        if not strict and type(value) is int and abs(value) <= 2**53:
            return _bounded(spec, float(value))  # a lax float field stores an integer as a float
        return UNSURE

    return check


def _bool(spec: dict[str, Any]) -> Check:
    return lambda value: value if type(value) is bool else UNSURE


def _literal(spec: dict[str, Any]) -> Check:
    values = frozenset(spec["values"])
    return lambda value: value if type(value) is str and value in values else UNSURE


def _union(spec: dict[str, Any]) -> Check:
    choices = [_compile(s) for s in spec["of"]]

    def check(value: Any) -> Any:
        for choice in choices:  # strict scalars: at most one admits the value, unchanged
            found = choice(value)
            if found is not UNSURE:
                return found
        return UNSURE

    return check


def _nullable(spec: dict[str, Any]) -> Check:
    inner = _compile(spec["of"])
    return lambda value: None if value is None else inner(value)


def _list(spec: dict[str, Any]) -> Check:
    item = _compile(spec["of"])
    low, high = spec.get("min_length"), spec.get("max_length")

    def check(value: Any) -> Any:
        if type(value) is not list:
            return UNSURE
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            return UNSURE
        out = [item(v) for v in value]
        return UNSURE if any(v is UNSURE for v in out) else out

    return check


def _dict(spec: dict[str, Any]) -> Check:
    values = _compile(spec["values"])

    def check(value: Any) -> Any:
        if type(value) is not dict or any(type(k) is not str for k in value):
            return UNSURE
        out = {k: values(v) for k, v in value.items()}
        return UNSURE if any(v is UNSURE for v in out.values()) else out

    return check


def _any(spec: dict[str, Any]) -> Check:
    return lambda value: value


def _pod_template(spec: dict[str, Any]) -> Check:
    def check(value: Any) -> Any:
        if type(value) is not dict or any(type(k) is not str for k in value):
            return UNSURE
        return plain(value)  # the model's before-validator, then dict[str, Any]

    return check


def _model(spec: dict[str, Any]) -> Check:
    qualname = spec["model"]
    return lambda value: twin_class(qualname).from_wire(value)


_COMPILERS: dict[str, Callable[[dict[str, Any]], Check]] = {
    "str": _str,
    "int": _int,
    "float": _float,
    "bool": _bool,
    "literal": _literal,
    "union": _union,
    "nullable": _nullable,
    "list": _list,
    "dict": _dict,
    "any": _any,
    "pod_template": _pod_template,
    "model": _model,
}
