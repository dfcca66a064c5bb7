"""One object once per input: two documents of one file with the same API group, kind, namespace
and name are one object in the cluster, so the second would silently replace the first (``render``
would print it twice, ``preview`` would plan two roots, ``pulumi up`` would fail on the second
create). The second document is refused, naming both documents' lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dynamo_pulumi.errors import ErrorType, FieldError, GraphValidationError
from dynamo_pulumi.floor.yaml_source import DocumentPositions

RawDocument = tuple[Any, DocumentPositions | None]
Identity = tuple[str, str, str, str]


def identity(doc: Any) -> Identity | None:
    """(API group, kind, namespace, name) of a raw document; None when it has no string name."""
    if not isinstance(doc, Mapping):
        return None
    meta = doc.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    name, namespace = meta.get("name"), meta.get("namespace")
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(name, str) or not name or not isinstance(kind, str) or not isinstance(api_version, str):
        return None
    group = api_version.rpartition("/")[0]
    return group, kind, namespace if isinstance(namespace, str) else "", name


def _where(index: int, positions: DocumentPositions | None) -> str:
    if positions is None:
        return f"document {index + 1}"
    line = positions.position_of("metadata.name").line
    return f"document {index + 1} (line {line})"


def duplicate_errors(docs: Sequence[RawDocument]) -> dict[int, GraphValidationError]:
    """For every document that repeats an earlier one's object, the error to report for it."""
    first: dict[Identity, int] = {}
    found: dict[int, GraphValidationError] = {}
    for i, (doc, positions) in enumerate(docs):
        key = identity(doc)
        if key is None:
            continue
        if key not in first:
            first[key] = i
            continue
        j = first[key]
        _group, kind, namespace, name = key
        scope = f' in namespace "{namespace}"' if namespace else ""
        detail = (
            f"{kind} \"{name}\"{scope} is defined twice in one input: {_where(j, docs[j][1])} and "
            f"{_where(i, positions)}; the second would replace the first in the cluster (remove one, or rename it)"
        )
        error = FieldError(
            ErrorType.DUPLICATE, "metadata.name", detail, name,
            position=positions.position_of("metadata.name") if positions is not None else None,
        )
        found[i] = GraphValidationError([error], kind=kind, name=name)
    return found
