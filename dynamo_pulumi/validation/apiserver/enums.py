"""Enum fields the API server checks beyond the CRD schema (which embeds them as free strings).

``validatePullPolicy``, ``validateRestartPolicy``, ``validateDNSPolicy``, the container
``terminationMessagePolicy`` (``validateContainerCommon``), port protocols, and
``ValidateTolerations`` (operator, effect, and the key/value rules tied to them). An absent
field is defaulted by the API server before validation, so only values written are judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, invalid, not_supported
from dynamo_pulumi.floor.kube_names import label_key_problems, label_value_problems
from dynamo_pulumi.validation.apiserver._common import items, mapping, text

PULL_POLICIES = ("Always", "IfNotPresent", "Never")
RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
PROTOCOLS = ("SCTP", "TCP", "UDP")
TOLERATION_OPERATORS = ("Equal", "Exists")
TAINT_EFFECTS = ("NoExecute", "NoSchedule", "PreferNoSchedule")


def enum_errors(value: Any, path: Path, supported: tuple[str, ...]) -> list[FieldError]:
    """``field.NotSupported`` for a written value outside ``supported`` (an empty string is
    defaulted, as an absent field is)."""
    written = text(value)
    if written is None or written == "" or written in supported:
        return []
    return [not_supported(path, written, supported)]


def toleration_errors(tolerations: Any, path: Path) -> list[FieldError]:
    """``ValidateTolerations``."""
    errors: list[FieldError] = []
    for i, raw in enumerate(items(tolerations)):
        errors += _toleration_errors(mapping(raw), path.index(i))
    return errors


def _toleration_errors(toleration: Mapping[str, Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    key, operator, value = text(toleration.get("key")), text(toleration.get("operator")), text(toleration.get("value"))
    if key:
        errors += [invalid(path.child("key"), key, p) for p in label_key_problems(key)]
    if not key and operator != "Exists":
        errors.append(invalid(path.child("operator"), operator or "", "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
    effect = text(toleration.get("effect"))
    if toleration.get("tolerationSeconds") is not None and effect not in (None, "NoExecute"):
        errors.append(invalid(path.child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
    if operator in (None, "", "Equal"):
        problems = label_value_problems(value) if value else []
        if problems:
            errors.append(invalid(path.child("operator"), value, ";".join(problems)))
    elif operator == "Exists":
        if value:
            errors.append(invalid(path.child("operator"), toleration, "value must be empty when `operator` is 'Exists'"))
    else:
        errors.append(not_supported(path.child("operator"), operator, TOLERATION_OPERATORS))
    errors += enum_errors(effect, path.child("effect"), TAINT_EFFECTS)
    return errors
