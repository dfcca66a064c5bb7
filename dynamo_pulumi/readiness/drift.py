"""Drift between the objects we predict the operator creates and the objects it did create.

In operator mode we register only the DGD/DCD custom resource and predict its expansion in
Python (issue 9). Once the operator has reconciled, the prediction can be checked: every
predicted object is read back and compared. A difference is not an error (the operator may be a
newer version, a mutating webhook may add defaults); it is reported as a warning so a user sees
where ``dynamo-pulumi preview`` and the cluster disagree.

Rules: only fields the prediction sets are compared (the API server adds defaults everywhere);
fields the server populates (``status``, uid, resourceVersion, managedFields, ...) are never
compared; lists of named entries (containers, env, ports, volumes) are matched by ``name``,
other lists element by element; a predicted object that does not exist is reported once, with
path ``""`` and ``actual`` None. Pure and deterministic: findings come out in prediction order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from dynamo_pulumi.model.deploy_mode import NOT_SENT_METADATA

ObjectId = tuple[str, str, str]

#: Top-level fields the API server owns.
SERVER_TOP_LEVEL: Final = frozenset({"status"})
#: ``metadata`` fields never compared: those operator mode never sends (the API server or a
#: controller writes them), and the finalizers controllers add.
SERVER_METADATA: Final = frozenset({*NOT_SENT_METADATA, "finalizers"})
#: A missing object's ``predicted`` entry.
PRESENT: Final = "present"


def object_id(obj: Mapping[str, Any]) -> ObjectId:
    """(apiVersion, kind, name) of an object, the key ``actual`` is looked up by."""
    metadata = obj.get("metadata") or {}
    return (str(obj.get("apiVersion", "")), str(obj.get("kind", "")), str(metadata.get("name", "")))


def _label(key: ObjectId) -> str:
    return f"{key[1]}/{key[2]}"


def _named(items: Sequence[Any]) -> bool:
    return bool(items) and all(isinstance(i, Mapping) and isinstance(i.get("name"), str) for i in items)


def _finding(obj: str, path: str, predicted: Any, actual: Any) -> dict[str, Any]:
    return {"object": obj, "path": path, "predicted": predicted, "actual": actual}


def _compare(obj: str, path: str, predicted: Any, actual: Any, out: list[dict[str, Any]]) -> None:
    if isinstance(predicted, Mapping):
        if not isinstance(actual, Mapping):
            out.append(_finding(obj, path, dict(predicted), actual))
            return
        for key, value in predicted.items():
            child = f"{path}.{key}" if path else str(key)
            if key not in actual:
                out.append(_finding(obj, child, value, None))
            else:
                _compare(obj, child, value, actual[key], out)
        return
    if isinstance(predicted, list):
        _compare_list(obj, path, predicted, actual, out)
        return
    if predicted != actual and not _same_scalar(predicted, actual):
        out.append(_finding(obj, path, predicted, actual))


def _compare_list(obj: str, path: str, predicted: list[Any], actual: Any, out: list[dict[str, Any]]) -> None:
    if not isinstance(actual, list):
        out.append(_finding(obj, path, predicted, actual))
        return
    if _named(predicted) and _named(actual):
        by_name = {item["name"]: item for item in actual}
        for item in predicted:
            child = f"{path}[name={item['name']}]"
            if item["name"] not in by_name:
                out.append(_finding(obj, child, item, None))
            else:
                _compare(obj, child, item, by_name[item["name"]], out)
        return
    if len(predicted) != len(actual):
        out.append(_finding(obj, path, predicted, actual))
        return
    for index, (want, have) in enumerate(zip(predicted, actual, strict=True)):
        _compare(obj, f"{path}[{index}]", want, have, out)


def _same_scalar(predicted: Any, actual: Any) -> bool:
    """Quantities and ports round-trip as strings or numbers ("1" vs 1); same text is the same."""
    if isinstance(predicted, bool) or isinstance(actual, bool):
        return False
    return isinstance(predicted, (int, float, str)) and isinstance(actual, (int, float, str)) and str(predicted) == str(actual)


def _comparable(obj: Mapping[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in obj.items() if k not in SERVER_TOP_LEVEL}
    metadata = obj.get("metadata")
    if isinstance(metadata, Mapping):
        kept["metadata"] = {k: v for k, v in metadata.items() if k not in SERVER_METADATA}
    return kept


def drift(predicted: list[dict[str, Any]], actual: Mapping[ObjectId, dict[str, Any] | None]) -> list[dict[str, Any]]:
    """Every difference between ``predicted`` objects and the live ``actual`` ones.

    ``actual`` maps each predicted object's (apiVersion, kind, name) to the live object, or None
    (or no entry) when the API server has no such object.
    """
    findings: list[dict[str, Any]] = []
    for obj in predicted:
        key = object_id(obj)
        live = actual.get(key)
        if live is None:
            findings.append(_finding(_label(key), "", PRESENT, None))
            continue
        _compare(_label(key), "", _comparable(obj), live, findings)
    return findings


def _shown(value: Any) -> str:
    """A value as compact JSON (``1``, ``"vllm"``, ``{"name": "main"}``): one line, any type."""
    return json.dumps(value, sort_keys=True, separators=(", ", ": "), default=str)


def drift_line(finding: Mapping[str, Any]) -> str:
    """One finding on one line: ``Deployment/g-decode spec.replicas: predicted 2, actual 3``."""
    if finding["actual"] is None and finding["path"] == "":
        return f"{finding['object']}: predicted but not created by the operator"
    return f"{finding['object']} {finding['path']}: predicted {_shown(finding['predicted'])}, actual {_shown(finding['actual'])}"


def drift_summary(findings: Sequence[Mapping[str, Any]], limit: int = 10) -> str:
    """One warning text: the first ``limit`` findings, one per line."""
    lines = [drift_line(finding) for finding in findings[:limit]]
    if len(findings) > limit:
        lines.append(f"... and {len(findings) - limit} more")
    return "\n".join(lines)
