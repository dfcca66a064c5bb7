"""Records: the dataclasses the CLI's hot path defines, built without the ``dataclasses`` module.

``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``, ``linecache``:
some 300 KB of standard library compiled on every start without bytecode), and builds each
method of each class with its own ``exec`` (six for a frozen class). ``validate`` and ``render``
define about forty such classes, so that was the largest single part of their start.

``@record`` makes the same class from the same annotations: ``__init__`` (defaults, default
factories, ``__post_init__``), ``__repr__``, ``__eq__`` and ``__hash__`` over the compared
fields, ``__match_args__``, and for a frozen record a ``__setattr__``/``__delattr__`` that refuse,
all compiled in one ``exec``. :func:`replace` and :func:`fields` work as their ``dataclasses``
namesakes, and so do ``dataclasses.replace``, ``fields``, ``asdict`` and ``is_dataclass`` on a
record (its ``__dataclass_fields__`` are made on first use, importing ``dataclasses`` then), so
code that knew these classes as dataclasses keeps working. ``tests/test_records.py`` holds a
record equal to the dataclass of the same declaration, method by method.

Supported: the options this package uses (``frozen``, ``eq``, ``repr``) and ``field(default=,
default_factory=, compare=, repr=)``; a record may extend another. Anything else
(``init=False`` fields, ``kw_only``, ``slots``, ``order``) is refused when the class is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, get_origin

T = TypeVar("T")

_MISSING: Any = type("_MissingType", (), {"__repr__": lambda self: "MISSING"})()
_FIELDS = "__record_fields__"


class FrozenRecordError(AttributeError):
    """Assigning to or deleting a field of a frozen record (``dataclasses.FrozenInstanceError``
    is raised for a dataclass; both are AttributeErrors)."""


class Field:
    """One field of a record: its name, default or default factory, and whether it takes part in
    equality and ``repr``."""

    __slots__ = ("compare", "default", "default_factory", "name", "repr", "type")

    def __init__(self, default: Any = _MISSING, default_factory: Any = _MISSING, compare: bool = True,
                 repr: bool = True) -> None:
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, compare={self.compare}, repr={self.repr})"


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | Any = _MISSING, compare: bool = True,
          repr: bool = True) -> Any:
    """A field with options, as ``dataclasses.field`` (the subset records support)."""
    return Field(default, default_factory, compare, repr)


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record or record class, in definition order."""
    found = getattr(obj, _FIELDS, None)
    if found is None:
        raise TypeError("must be called with a record type or instance")
    return tuple(found)


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of ``obj`` with ``changes``, through ``__init__`` (``__post_init__`` runs again)."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)  # type: ignore[no-any-return]


def record(cls: type[T] | None = None, /, *, frozen: bool = True, eq: bool = True,
           repr: bool = True) -> Any:
    """Make ``cls`` a record (used as ``@record`` or ``@record(frozen=False, ...)``)."""

    def wrap(target: type[T]) -> type[T]:
        return _make(target, frozen=frozen, eq=eq, repr=repr)

    return wrap if cls is None else wrap(cls)


def _is_classvar(annotation: Any) -> bool:
    """``ClassVar[...]``, written (``from __future__ import annotations``) or evaluated."""
    if isinstance(annotation, str):
        return annotation.split("[", 1)[0].strip() in ("ClassVar", "typing.ClassVar")
    return annotation is ClassVar or get_origin(annotation) is ClassVar


def _own_fields(cls: type) -> list[Field]:
    own: list[Field] = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063 (inspect is what we avoid)
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, _MISSING)
        spec = value if isinstance(value, Field) else Field(default=value)
        spec.name, spec.type = name, annotation
        if isinstance(value, Field):
            if spec.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        own.append(spec)
    return own


def _all_fields(cls: type) -> list[Field]:
    """Inherited record fields first (a redefinition keeps its place), then this class's own."""
    by_name: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for spec in base.__dict__.get(_FIELDS, ()):
            by_name[spec.name] = spec
    for spec in _own_fields(cls):
        by_name[spec.name] = spec
    specs = list(by_name.values())
    seen_default = False
    for spec in specs:
        has_default = spec.default is not _MISSING or spec.default_factory is not _MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {spec.name!r} follows default argument")
        seen_default = seen_default or has_default
    return specs


def _source(cls: type, specs: list[Field], *, frozen: bool, eq: bool, repr: bool) -> tuple[str, dict[str, Any]]:
    """The methods of a record as one module's text, and the names that text refers to."""
    names: dict[str, Any] = {"_MISSING": _MISSING, "FrozenRecordError": FrozenRecordError, "_object": object}
    params, body = ["self"], []
    for spec in specs:
        if spec.default_factory is not _MISSING:
            names[f"_factory_{spec.name}"] = spec.default_factory
            params.append(f"{spec.name}=_MISSING")
            value = f"_factory_{spec.name}() if {spec.name} is _MISSING else {spec.name}"
        else:
            if spec.default is not _MISSING:
                names[f"_default_{spec.name}"] = spec.default
            params.append(spec.name if spec.default is _MISSING else f"{spec.name}=_default_{spec.name}")
            value = spec.name
        body.append(f"  _object.__setattr__(self, {spec.name!r}, {value})" if frozen else f"  self.{spec.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    lines = [f"def __init__({', '.join(params)}):", *(body or ["  pass"])]
    shown = [s.name for s in specs if s.repr]
    if repr:
        parts = ", ".join(f"{n}={{self.{n}!r}}" for n in shown)
        lines += ["def __repr__(self):", f"  return f'{{self.__class__.__qualname__}}({parts})'"]
    compared = "".join(f"self.{s.name}," for s in specs if s.compare)
    if eq:
        other = compared.replace("self.", "other.")
        lines += ["def __eq__(self, other):", "  if other.__class__ is self.__class__:",
                  f"    return ({compared}) == ({other})", "  return NotImplemented"]
    if eq and frozen:
        lines += ["def __hash__(self):", f"  return hash(({compared}))"]
    if frozen:
        field_names = tuple(s.name for s in specs)
        lines += ["def __setattr__(self, name, value):",
                  f"  if type(self) is _cls or name in {field_names!r}:",
                  "    raise FrozenRecordError(f'cannot assign to field {name!r}')",
                  "  super(_cls, self).__setattr__(name, value)",
                  "def __delattr__(self, name):",
                  f"  if type(self) is _cls or name in {field_names!r}:",
                  "    raise FrozenRecordError(f'cannot delete field {name!r}')",
                  "  super(_cls, self).__delattr__(name)"]
    names["_cls"] = cls
    return "\n".join(lines) + "\n", names


class _DataclassFields:
    """``__dataclass_fields__`` made on first read, so the ``dataclasses`` functions accept a
    record; importing ``dataclasses`` is left to whoever asks."""

    def __get__(self, instance: Any, owner: type) -> dict[str, Any]:
        import dataclasses

        table = {}
        for spec in getattr(owner, _FIELDS):  # a plain subclass of a record has its fields
            default = dataclasses.MISSING if spec.default is _MISSING else spec.default
            factory = dataclasses.MISSING if spec.default_factory is _MISSING else spec.default_factory
            made = dataclasses.field(default=default, default_factory=factory, compare=spec.compare, repr=spec.repr)
            made.name, made.type = spec.name, spec.type
            made._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
            table[spec.name] = made
        type.__setattr__(owner, "__dataclass_fields__", table)  # made once per class
        return table


def _make(cls: type[T], *, frozen: bool, eq: bool, repr: bool) -> type[T]:
    for base in cls.__mro__[1:-1]:
        if _FIELDS in base.__dict__ and base.__dict__["__record_frozen__"] != frozen:
            raise TypeError("cannot inherit non-frozen record from a frozen one, or the reverse")
    specs = _all_fields(cls)
    text, names = _source(cls, specs, frozen=frozen, eq=eq, repr=repr)
    namespace: dict[str, Any] = {}
    exec(compile(text, f"<record {cls.__module__}.{cls.__qualname__}>", "exec"), names, namespace)
    explicit_hash = "__hash__" in cls.__dict__ and not (cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__)
    for name, function in namespace.items():
        function.__qualname__ = f"{cls.__qualname__}.{name}"
        if name in ("__setattr__", "__delattr__") and name in cls.__dict__:
            raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
        if name == "__hash__" and explicit_hash:
            continue
        if name == "__hash__" or name not in cls.__dict__:  # the class's own methods win, as with dataclasses
            setattr(cls, name, function)
    if eq and not frozen and not explicit_hash:
        cls.__hash__ = None  # type: ignore[assignment]
    setattr(cls, _FIELDS, tuple(specs))
    cls.__record_frozen__ = frozen  # type: ignore[attr-defined]
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(s.name for s in specs)  # type: ignore[attr-defined]
    cls.__dataclass_fields__ = _DataclassFields()  # type: ignore[attr-defined]
    return cls
