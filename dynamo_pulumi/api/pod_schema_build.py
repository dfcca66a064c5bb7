"""The core/v1 schema the CRDs embed, derived once from ``kubernetes-validate``'s copy and shipped.

Every ``validate`` run checks pod templates against this schema. Reading the 2 MB definitions
file, keeping the ~110 definitions the checked types reach and adjusting them to what the CRD
states cost tens of milliseconds per run (and pulled in ``jsonschema``), for a result that only
changes with the Kubernetes version. So the adjusted definitions are derived here, written to
``dynamo_pulumi/data/pod-schema-strict.json`` (and ``-decoded.json``) and read from there (:mod:`dynamo_pulumi.api.pod_schema`);
``tests/test_schema_check.py`` derives them again from the installed ``kubernetes-validate``
and fails when a shipped file differs. Regenerate with::

    python -m dynamo_pulumi.api.pod_schema_build

Adjusted as :mod:`dynamo_pulumi.api.pod_schema` describes: embedded ``metadata`` keeps the five
fields the CRD declares, int-or-string and quantity are ``anyOf: [integer, string]`` (a quantity
string with the CRD's pattern), every object that declares properties is closed (strict field
validation); the ``decoded`` variant (schemaless positions, as the webhook's Go decoding reads
them) requires nothing, closes nothing and takes any number as a quantity. Descriptions and the
``x-kubernetes-*`` annotations, which no check reads, are left out.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.pod_schema_names import (
    INT_OR_STRING,
    KEPT_METADATA,
    KUBERNETES_SCHEMA_VERSION,
    OBJECT_META,
    QUANTITY,
    QUANTITY_PATTERN,
    ROOTS,
)

if TYPE_CHECKING:
    from pathlib import Path

_SCHEMA_DIR = f"kubernetes-json-schema/{KUBERNETES_SCHEMA_VERSION}-local"
REF = "$ref"
#: The shipped variants: the CRD's embedded schema, and the webhook's decoding of a schemaless position.
VARIANTS = ("strict", "decoded")
#: Keys no check reads: documentation and Kubernetes' own list/map/union annotations.
_DROPPED = ("description",)


def definitions_file() -> Path:
    """kubernetes-validate's ``_definitions.json``, found without importing the package (its
    import pulls in an HTTP stack)."""
    from pathlib import Path

    spec = find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("kubernetes-validate (the pod template schema source) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / _SCHEMA_DIR / "_definitions.json"


def refs(schema: Any) -> Iterator[str]:
    """The definition names ``schema`` refers to (``#/$defs/<name>``)."""
    if isinstance(schema, dict):
        ref = schema.get(REF)
        if isinstance(ref, str):
            yield ref.rpartition("/")[2]
        for value in schema.values():
            yield from refs(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from refs(value)


def reachable(table: Mapping[str, Any], roots: Iterable[str]) -> dict[str, Any]:
    """The definitions ``roots`` reach (about 110 of the ~770 in the file), in a stable order."""
    kept: dict[str, Any] = {}
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in kept:
            continue
        kept[name] = table[name]
        pending += [ref for ref in refs(table[name]) if ref not in kept]
    return kept


def int_or_string(pattern: str | None = None, number: str = "integer") -> dict[str, Any]:
    string: dict[str, Any] = {"type": "string"}
    if pattern is not None:
        string["pattern"] = pattern
    return {"anyOf": [{"type": number}, string], "x-kubernetes-int-or-string": True}


def without_required(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: without_required(v) for k, v in schema.items() if k != "required"}
    if isinstance(schema, list):
        return [without_required(v) for v in schema]
    return schema


def closed(schema: Any) -> Any:
    """``schema`` with every object that declares properties closed to others (strict)."""
    if isinstance(schema, dict):
        out = {k: closed(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [closed(v) for v in schema]
    return schema


def adjusted(definitions: Mapping[str, Any], decoded: bool) -> dict[str, Any]:
    """The reachable definitions adjusted to the CRD (``decoded``: to the webhook's decoding)."""
    table = copy.deepcopy(reachable(definitions, ROOTS))
    meta = table[OBJECT_META]
    meta["properties"] = {k: v for k, v in meta["properties"].items() if k in KEPT_METADATA}
    table[QUANTITY] = int_or_string(QUANTITY_PATTERN, "number" if decoded else "integer")
    table[INT_OR_STRING] = int_or_string()
    if decoded:
        return {name: without_required(schema) for name, schema in table.items()}
    return {name: closed(schema) for name, schema in table.items()}


def _stripped(schema: Any, in_properties: bool = False) -> Any:
    """``schema`` without the keys no check reads (a property named ``description`` stays)."""
    if isinstance(schema, dict):
        return {
            k: _stripped(v, k == "properties" and not in_properties)
            for k, v in schema.items()
            if in_properties or not (k in _DROPPED or k.startswith("x-kubernetes-"))
        }
    if isinstance(schema, list):
        return [_stripped(v) for v in schema]
    return schema


def shipped_table(definitions: Mapping[str, Any], variant: str) -> dict[str, Any]:
    """What ``data/pod-schema-<variant>.json`` holds (``strict`` or ``decoded``), by name."""
    return {k: _stripped(v) for k, v in sorted(adjusted(definitions, variant == "decoded").items())}


def load_definitions() -> dict[str, Any]:
    return json.loads(definitions_file().read_text())["$defs"]  # type: ignore[no-any-return]


def render_shipped(definitions: Mapping[str, Any], variant: str) -> str:
    """The file's exact text (one definition per line: small diffs when Kubernetes changes)."""
    items = list(shipped_table(definitions, variant).items())
    lines = ["{"]
    for i, (name, schema) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"{json.dumps(name)}: {json.dumps(schema, separators=(',', ':'))}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_shipped(folder: Path) -> None:
    """Write both variants into ``folder`` (the package's ``data``)."""
    definitions = load_definitions()
    for variant in VARIANTS:
        (folder / f"pod-schema-{variant}.json").write_text(render_shipped(definitions, variant))


if __name__ == "__main__":
    from pathlib import Path

    write_shipped(Path(__file__).resolve().parent.parent / "data")
