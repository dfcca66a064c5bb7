"""The part of JSON Schema (draft 2020-12) the core/v1 definitions use, checked without ``jsonschema``.

The pod template schema (:mod:`dynamo_pulumi.api.pod_schema`) uses nine keywords: ``type``,
``properties``, ``required``, ``additionalProperties``, ``items``, ``$ref``, ``anyOf``,
``pattern`` and ``format`` (only ``int32``/``int64`` are checked). Importing ``jsonschema`` and
building its registry was a large share of every ``validate`` run, so this module checks those
keywords itself, with ``jsonschema``'s semantics to the letter: the keywords of a schema are
applied in the order they are written, each yields what ``jsonschema``'s own keyword function
yields (one error per missing required property, one for all additional properties, ...), and
``integer`` admits a float with an integral value. ``tests/test_schema_check.py`` holds the two
equal, error for error, over the corpus templates and mutated ones. A keyword outside the nine
in a definition is refused when its table is loaded (:func:`verify`), so a newer schema cannot be
checked silently wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dynamo_pulumi.floor.records import record

#: The keywords checked here; any other keyword JSON Schema 2020-12 defines is refused.
CHECKED = frozenset({"type", "properties", "required", "additionalProperties", "items", "$ref", "anyOf",
                     "pattern", "format"})
_DRAFT_2020_12 = frozenset({
    "$dynamicRef", "allOf", "const", "contains", "dependentRequired", "dependentSchemas", "enum",
    "exclusiveMaximum", "exclusiveMinimum", "if", "maxItems", "maxLength", "maxProperties", "maximum",
    "minItems", "minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "patternProperties",
    "prefixItems", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "uniqueItems",
}) | CHECKED

Path = tuple[int | str, ...]


@record
class SchemaError:
    """One failed keyword, as ``jsonschema.ValidationError`` reports it: the keyword
    (``validator``), its value in the schema (``validator_value``), the failing instance, where
    the instance is (``absolute_path``) and the schema holding the keyword."""

    keyword: str
    value: Any
    instance: Any
    path: Path
    schema: Mapping[str, Any]


def _is_integer(instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class Checker:
    """Validates instances against one definition of ``table`` (``{name: schema}``, refs written
    ``#/$defs/<name>``); ``formats`` maps a format name to its check (others are not checked,
    as with a ``jsonschema.FormatChecker`` that registers only those)."""

    def __init__(self, table: Mapping[str, Any], root: str, formats: Mapping[str, Callable[[Any], bool]]) -> None:
        self._table = table
        self._root: Mapping[str, Any] = {"$ref": f"#/$defs/{root}"}
        self._formats = formats

    def iter_errors(self, instance: Any) -> Iterator[SchemaError]:
        return self._descend(instance, self._root, ())

    def _descend(self, instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        for keyword, value in schema.items():
            check = _KEYWORDS.get(keyword)
            if check is not None:
                yield from check(self, value, instance, schema, path)

    # -- the keywords, each as jsonschema's function of the same name ---------------------------

    def _type(self, types: Any, instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        names = types if isinstance(types, list) else [types]
        if not any(_TYPES[name](instance) for name in names):
            yield SchemaError("type", types, instance, path, schema)

    def _properties(self, props: Mapping[str, Any], instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        if not isinstance(instance, dict):
            return
        for name, subschema in props.items():
            if name in instance:
                yield from self._descend(instance[name], subschema, (*path, name))

    def _required(self, required: list[str], instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        if not isinstance(instance, dict):
            return
        for name in required:
            if name not in instance:
                yield SchemaError("required", required, instance, path, schema)

    def _additional(self, extra: Any, instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        if not isinstance(instance, dict):
            return
        declared = schema.get("properties", {})
        extras = [name for name in instance if name not in declared]
        if isinstance(extra, dict):
            for name in extras:
                yield from self._descend(instance[name], extra, (*path, name))
        elif extra is False and extras:
            yield SchemaError("additionalProperties", extra, instance, path, schema)

    def _items(self, items: Any, instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        if not isinstance(instance, list):
            return
        for index, item in enumerate(instance):
            yield from self._descend(item, items, (*path, index))

    def _ref(self, ref: str, instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        yield from self._descend(instance, self._table[ref.rpartition("/")[2]], path)

    def _any_of(self, branches: list[Any], instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        if not any(next(self._descend(instance, branch, path), None) is None for branch in branches):
            yield SchemaError("anyOf", branches, instance, path, schema)

    def _pattern(self, pattern: str, instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        if isinstance(instance, str) and not _compiled(pattern).search(instance):
            yield SchemaError("pattern", pattern, instance, path, schema)

    def _format(self, fmt: str, instance: Any, schema: Mapping[str, Any], path: Path) -> Iterator[SchemaError]:
        check = self._formats.get(fmt)
        if check is not None and not check(instance):
            yield SchemaError("format", fmt, instance, path, schema)


_KEYWORDS: dict[str, Callable[..., Iterator[SchemaError]]] = {
    "type": Checker._type,
    "properties": Checker._properties,
    "required": Checker._required,
    "additionalProperties": Checker._additional,
    "items": Checker._items,
    "$ref": Checker._ref,
    "anyOf": Checker._any_of,
    "pattern": Checker._pattern,
    "format": Checker._format,
}

_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    found = _PATTERNS.get(pattern)
    if found is None:
        found = _PATTERNS[pattern] = re.compile(pattern)
    return found


def verify(table: Mapping[str, Any]) -> Mapping[str, Any]:
    """``table``, after refusing any JSON Schema keyword in it this module does not check."""
    for name, schema in table.items():
        _refuse_unchecked(schema, name)
    return table


def _refuse_unchecked(schema: Any, where: str) -> None:
    """Raise when ``schema`` (at any depth) uses a JSON Schema keyword this module does not check."""
    if not isinstance(schema, dict):
        return
    for keyword, value in schema.items():
        if keyword in _DRAFT_2020_12 and keyword not in CHECKED:
            raise ValueError(f"{where}: JSON Schema keyword {keyword!r} is not checked by {__name__}")
        if keyword == "properties":
            for name, sub in value.items():
                _refuse_unchecked(sub, f"{where}.{name}")
        elif keyword in ("items", "additionalProperties"):
            _refuse_unchecked(value, f"{where}[{keyword}]")
        elif keyword == "anyOf":
            for i, sub in enumerate(value):
                _refuse_unchecked(sub, f"{where}.anyOf[{i}]")
