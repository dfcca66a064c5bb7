"""The shapes of the models, read from pydantic's own schema, for their pydantic-free twins.

:mod:`dynamo_pulumi.model.twin` builds a valid wire object without importing pydantic (whose
import alone is several times a bare interpreter's start). It needs what pydantic knows about
every model: field names and wire names in declaration order, defaults, and for each field the
types and bounds it admits. This module reads them from the models' *core schema* (what
pydantic-core itself validates with, so strictness, bounds, patterns and defaults are exactly
the models'), writes them to ``dynamo_pulumi/data/twins.json``, and refuses any schema construct
the twins do not implement, so a new kind of field cannot be validated silently differently.
``tests/test_twins.py`` fails when the shipped file is stale. Regenerate with::

    python -m dynamo_pulumi.model.twin_build > dynamo_pulumi/data/twins.json

Each model also names its helper classes (the pydantic-free mixins in its bases,
:mod:`dynamo_pulumi.api.v1beta1_helpers`), which the twin inherits, and the shipped file
records a checksum of each model source, so an edited model whose shapes were not regenerated
is never twinned (:func:`dynamo_pulumi.model.twin.fresh`).
"""

from __future__ import annotations

import json
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from dynamo_pulumi.api.base import WireModel, _keep_deploy_time
from dynamo_pulumi.api.pulumi_args import plain

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
#: The modules whose text decides the shapes (the checksums the twins compare).
SOURCES = ("api/base.py", "api/kinds.py", "api/v1beta1.py", "api/v1beta1_parts.py", "platform.py")


class UnsupportedSchema(TypeError):
    """A schema construct the twins do not implement (then the generator fails, naming it)."""


def qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def source_sums(root: Path = PACKAGE_ROOT) -> dict[str, int]:
    """CRC-32 of each model source, as :func:`dynamo_pulumi.model.twin.fresh` computes it."""
    return {name: zlib.crc32((root / name).read_bytes()) for name in SOURCES}


def roots() -> list[type[BaseModel]]:
    from dynamo_pulumi.api.v1beta1 import KINDS
    from dynamo_pulumi.platform import Platform

    return [*KINDS.values(), Platform]


class _Reader:
    """Walks core schemas into twin type specs (plain JSON), collecting every model reached."""

    def __init__(self) -> None:
        self.models: dict[str, dict[str, Any]] = {}
        self._pending: list[type[BaseModel]] = []
        self._refs: dict[str, Any] = {}

    def read(self, root_models: list[type[BaseModel]]) -> dict[str, dict[str, Any]]:
        self._pending = list(root_models)
        while self._pending:
            cls = self._pending.pop(0)
            if qualified(cls) not in self.models:
                self.models[qualified(cls)] = self._model(cls)
        return dict(sorted(self.models.items()))

    def _model(self, cls: type[BaseModel]) -> dict[str, Any]:
        schema = cls.__pydantic_core_schema__
        if schema["type"] == "definitions":
            self._refs.update({d["ref"]: d for d in schema["definitions"]})
            schema = schema["schema"]
        if schema["type"] != "model" or schema.get("custom_init") or schema.get("root_model"):
            raise UnsupportedSchema(f"{qualified(cls)}: not a plain model")
        inner = schema["schema"]
        if inner["type"] != "model-fields" or inner.get("computed_fields"):
            raise UnsupportedSchema(f"{qualified(cls)}: computed fields")
        extra = schema.get("config", {}).get("extra_fields_behavior", "ignore")
        if extra != "forbid":
            raise UnsupportedSchema(f"{qualified(cls)}: extra={extra!r}")
        own = _own_members(cls)
        if own:
            raise UnsupportedSchema(
                f"{qualified(cls)} defines {sorted(own)}: move them to a helper class in its bases "
                f"(dynamo_pulumi/api/v1beta1_helpers.py), so its twin has them too"
            )
        fields = []
        for name, field in inner["fields"].items():
            alias = field.get("validation_alias", name)
            if not isinstance(alias, str) or field.get("serialization_alias", alias) != alias:
                raise UnsupportedSchema(f"{qualified(cls)}.{name}: alias {alias!r}")
            fields.append(self._field(cls, name, alias, field["schema"]))
        return {
            "name": cls.__name__,
            "module": cls.__module__,
            "helpers": [qualified(b) for b in _helper_bases(cls)],
            "public_name": getattr(cls, "public_name", "") or "",
            "fields": fields,
        }

    def _field(self, cls: type, name: str, alias: str, schema: dict[str, Any]) -> list[Any]:
        if schema["type"] != "default":
            return [name, alias, self._type(schema, f"{qualified(cls)}.{name}"), {"required": True}]
        where = f"{qualified(cls)}.{name}"
        spec = self._type(schema["schema"], where)
        factory = schema.get("default_factory")
        if factory is None:
            default = schema["default"]
            if default is not None and not isinstance(default, (str, int, float, bool)):
                raise UnsupportedSchema(f"{where}: default {default!r}")
            return [name, alias, spec, {"default": default}]
        if schema.get("default_factory_takes_data"):
            raise UnsupportedSchema(f"{where}: a default factory that reads the data")
        if factory in (dict, list):
            return [name, alias, spec, {"factory": factory.__name__}]
        if isinstance(factory, type) and issubclass(factory, BaseModel):
            self._pending.append(factory)
            return [name, alias, spec, {"factory": qualified(factory)}]
        raise UnsupportedSchema(f"{where}: default factory {factory!r}")

    def _type(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        kind = schema["type"]
        read = _TYPES.get(kind)
        if read is None:
            raise UnsupportedSchema(f"{where}: schema type {kind!r}")
        return read(self, schema, where)

    # -- one reader per core schema type --------------------------------------------------------

    def _scalar(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        known = {"type", "strict", "metadata", "ge", "le", "min_length", "max_length", "pattern"}
        unknown = set(schema) - known
        if unknown:
            raise UnsupportedSchema(f"{where}: {schema['type']} with {sorted(unknown)}")
        spec = {"t": schema["type"], "strict": bool(schema.get("strict"))}
        spec.update({k: schema[k] for k in ("ge", "le", "min_length", "max_length", "pattern") if k in schema})
        return spec

    def _nullable(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        return {"t": "nullable", "of": self._type(schema["schema"], where)}

    def _wrap(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        if schema["function"].get("function") is not _keep_deploy_time:
            raise UnsupportedSchema(f"{where}: wrap validator {schema['function']!r}")
        return self._type(schema["schema"], where)  # a deploy-time value never comes from a file

    def _before(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        if schema["function"].get("function") is not plain:
            raise UnsupportedSchema(f"{where}: before validator {schema['function']!r}")
        inner = self._type(schema["schema"], where)
        if inner != {"t": "dict", "keys": {"t": "str", "strict": False}, "values": {"t": "any"}}:
            raise UnsupportedSchema(f"{where}: plain() before {inner!r}")
        return {"t": "pod_template"}

    def _literal(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        values = list(schema["expected"])
        if not all(isinstance(v, str) for v in values):
            raise UnsupportedSchema(f"{where}: literal {values!r}")
        return {"t": "literal", "values": values}

    def _union(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        if set(schema) - {"type", "choices", "metadata"}:
            raise UnsupportedSchema(f"{where}: union with {sorted(schema)}")
        choices = [c[0] if isinstance(c, tuple) else c for c in schema["choices"]]
        specs = [self._type(c, where) for c in choices]
        if not all(s["t"] in ("str", "int", "float", "bool") and s["strict"] for s in specs):
            raise UnsupportedSchema(f"{where}: a union of other than strict scalars")
        return {"t": "union", "of": specs}

    def _list(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        if set(schema) - {"type", "items_schema", "min_length", "max_length", "metadata"}:
            raise UnsupportedSchema(f"{where}: list with {sorted(schema)}")
        spec = {"t": "list", "of": self._type(schema.get("items_schema", {"type": "any"}), where)}
        spec.update({k: schema[k] for k in ("min_length", "max_length") if k in schema})
        return spec

    def _dict(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        if set(schema) - {"type", "keys_schema", "values_schema", "metadata"}:
            raise UnsupportedSchema(f"{where}: dict with {sorted(schema)}")
        keys = self._type(schema.get("keys_schema", {"type": "any"}), where)
        if keys != {"t": "str", "strict": False} and keys != {"t": "str", "strict": True}:
            raise UnsupportedSchema(f"{where}: dict keys {keys!r}")
        return {"t": "dict", "keys": keys, "values": self._type(schema.get("values_schema", {"type": "any"}), where)}

    def _any(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        return {"t": "any"}

    def _nested(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        cls = schema["cls"]
        self._pending.append(cls)
        return {"t": "model", "model": qualified(cls)}

    def _ref(self, schema: dict[str, Any], where: str) -> dict[str, Any]:
        found = self._refs.get(schema["schema_ref"])
        if found is None:
            raise UnsupportedSchema(f"{where}: unresolved reference {schema['schema_ref']!r}")
        return self._type(found, where)


_TYPES: dict[str, Callable[[_Reader, dict[str, Any], str], dict[str, Any]]] = {
    "str": _Reader._scalar,
    "int": _Reader._scalar,
    "float": _Reader._scalar,
    "bool": _Reader._scalar,
    "nullable": _Reader._nullable,
    "function-wrap": _Reader._wrap,
    "function-before": _Reader._before,
    "literal": _Reader._literal,
    "union": _Reader._union,
    "list": _Reader._list,
    "dict": _Reader._dict,
    "any": _Reader._any,
    "model": _Reader._nested,
    "definition-ref": _Reader._ref,
}


def _helper_bases(cls: type) -> list[type]:
    """The classes in ``cls``'s MRO that are not pydantic models (nor ``object``), fewest that
    still bring them all, in MRO order."""
    helpers = [b for b in cls.__mro__ if not issubclass(b, BaseModel) and b is not object]
    return [h for h in helpers if not any(h is not other and issubclass(other, h) for other in helpers)]


def _own_members(cls: type) -> set[str]:
    """Methods and properties a model defines itself (pydantic's own machinery left out)."""
    found: set[str] = set()
    for klass in cls.__mro__:
        if not issubclass(klass, BaseModel) or klass is WireModel or klass.__module__.startswith("pydantic"):
            continue  # WireModel's own to_wire and __init__ are what the twin base implements
        for name, value in vars(klass).items():
            if name.startswith("__") or name in ("model_config", "public_name") or name.startswith("_abc"):
                continue
            if callable(value) or isinstance(value, (property, classmethod, staticmethod)):
                found.add(f"{klass.__name__}.{name}")
    return found


def shapes() -> dict[str, Any]:
    """What ``data/twins.json`` holds."""
    return {"sources": source_sums(), "models": _Reader().read(roots())}


def render_shapes(table: dict[str, Any]) -> str:
    """The file's exact text: one model per line."""
    lines = ["{", f'"sources": {json.dumps(table["sources"], sort_keys=True)},', '"models": {']
    items = list(table["models"].items())
    for i, (name, model) in enumerate(items):
        lines.append(f"{json.dumps(name)}: {json.dumps(model, separators=(',', ':'))}{',' if i < len(items) - 1 else ''}")
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def iter_models() -> Iterator[type[BaseModel]]:
    """Every model class the shapes cover (for the tests)."""
    reader = _Reader()
    reader.read(roots())
    by_name: dict[str, type[BaseModel]] = {}
    pending = roots()
    while pending:
        cls = pending.pop()
        if qualified(cls) in by_name:
            continue
        by_name[qualified(cls)] = cls
        for field in cls.model_fields.values():
            pending += list(_models_in(field.annotation))
            factory = field.default_factory
            if isinstance(factory, type) and issubclass(factory, BaseModel):
                pending.append(factory)
    yield from by_name.values()


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        yield from _models_in(arg)
    for meta in getattr(annotation, "__metadata__", ()) or ():
        yield from _models_in(meta)


if __name__ == "__main__":
    sys.stdout.write(render_shapes(shapes()))
