"""The names declared along a wire path of the typed models, for the nearest-name suggestion.

kubectl's strict field validation only says ``unknown field``; we add the nearest declared name
(one rule for every input: :func:`dynamo_pulumi.floor.suggest.nearest`). For the typed models the
candidates are found here (:func:`declared_at`, walking the pydantic model along the wire path).
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

_PART = re.compile(r"\[([^\]]*)\]|([^.\[]+)")



def path_parts(path: str) -> list[str]:
    """``spec.components[0].name`` -> ``['spec', 'components', '0', 'name']``."""
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _PART.finditer(path)]


def _models(annotation: Any) -> Iterator[type[BaseModel]]:
    """Every model class an annotation can hold (through Optional, unions and Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        yield from _models(typing.get_args(annotation)[0])
    elif origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            yield from _models(arg)


def _items(annotation: Any) -> Iterator[Any]:
    """The item (list) or value (dict) types of a container annotation."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated or origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation)[: 1 if origin is typing.Annotated else None]:
            yield from _items(arg)
    elif origin in (list, dict):
        yield typing.get_args(annotation)[-1]


def _field_type(model: type[BaseModel], wire_name: str) -> Any:
    for name, info in model.model_fields.items():
        if (info.alias or name) == wire_name or name == wire_name:
            return info.annotation
    return None


def declared_at(model: type[BaseModel], parts: list[str]) -> list[str]:
    """The wire names declared by the model found at ``parts`` under ``model`` (empty when the
    path leaves the typed models)."""
    current: list[Any] = [model]
    for part in parts:
        following: list[Any] = []
        for annotation in current:
            for cls in _models(annotation):
                found = _field_type(cls, part)
                if found is not None:
                    following.append(found)
            following.extend(_items(annotation))
        current = following
    names: list[str] = []
    for annotation in current:
        for cls in _models(annotation):
            names += [info.alias or name for name, info in cls.model_fields.items()]
    return names
