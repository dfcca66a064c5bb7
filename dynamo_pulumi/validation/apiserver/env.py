"""Environment variables: ``ValidateEnv``, ``validateEnvVarValueFrom`` (exactly one source, none
beside ``value``; each source valid: ``validateObjectFieldSelector`` with the downward API's env
field paths, ``validateContainerResourceFieldSelector``, ``validateConfigMapKeySelector`` /
``validateSecretKeySelector``: a DNS-1123 subdomain name and a config key) and ``ValidateEnvFrom``
(exactly one of ``configMapRef``/``secretRef``). Not judged: a resource field's ``divisor``.

Names follow the Kubernetes version this package targets (1.32 and later): the
``RelaxedEnvironmentVariableValidation`` gate is on by default there (beta in 1.32, GA in 1.34),
so a name is any printable ASCII character except ``=``
(``IsRelaxedEnvVarName``); the older C-identifier rule (``IsEnvVarName``) would refuse
``my.var``, which those clusters accept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, invalid, not_supported, required
from dynamo_pulumi.floor.kube_names import (
    annotation_key_problems,
    dns1123_subdomain_problems,
    label_key_problems,
)
from dynamo_pulumi.validation.apiserver._common import items, mapping, text

_VALUE_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")
_ENV_FROM_SOURCES = ("configMapRef", "secretRef")
RELAXED_ENV_NAME_MESSAGE = "a valid environment variable name must consist only of printable ASCII characters other than '='"
#: ``validEnvDownwardAPIFieldPathExpressions``, sorted as the API server lists them.
ENV_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                   "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
#: What ``ConvertDownwardAPIFieldLabel`` knows for a v1 pod (some are not offered to env).
_CONVERTIBLE_FIELD_PATHS = frozenset({*ENV_FIELD_PATHS, "metadata.annotations", "metadata.labels",
                                      "spec.restartPolicy", "spec.schedulerName", "status.phase", "spec.host"})
#: ``validContainerResourceFieldPathExpressions`` (sorted) and the hugepages prefixes.
RESOURCE_FIELD_PATHS = ("limits.cpu", "limits.ephemeral-storage", "limits.memory",
                        "requests.cpu", "requests.ephemeral-storage", "requests.memory")
_HUGEPAGES_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
CONFIG_KEY_MESSAGE = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                      "(regex used for validation is '[-._a-zA-Z0-9]+')")
_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")


def env_name_problems(name: str) -> list[str]:
    """``IsRelaxedEnvVarName``."""
    problems: list[str] = []
    if any(not (" " <= ch <= "~") or ch == "=" for ch in name):
        problems.append(RELAXED_ENV_NAME_MESSAGE)
    return problems


def env_errors(env: Any, path: Path) -> list[FieldError]:
    """``ValidateEnv``."""
    errors: list[FieldError] = []
    for i, raw in enumerate(items(env)):
        var, at = mapping(raw), path.index(i)
        name = var.get("name")
        if name == "" or name is None:
            errors.append(required(at.child("name")))
        elif (known := text(name)) is not None:
            errors += [invalid(at.child("name"), known, p) for p in env_name_problems(known)]
        errors += _value_from_errors(var, at.child("valueFrom"))
    return errors


def _value_from_errors(var: Mapping[str, Any], path: Path) -> list[FieldError]:
    source = var.get("valueFrom")
    if not isinstance(source, Mapping):
        return []
    count = sum(1 for key in _VALUE_SOURCES if source.get(key) is not None)
    return _source_errors(source, path) + _count_errors(var, count, path)


def _source_errors(source: Mapping[str, Any], path: Path) -> list[FieldError]:
    errors: list[FieldError] = []
    if isinstance(source.get("fieldRef"), Mapping):
        errors += field_ref_errors(source["fieldRef"], path.child("fieldRef"))
    if isinstance(source.get("resourceFieldRef"), Mapping):
        errors += _resource_field_errors(source["resourceFieldRef"], path.child("resourceFieldRef"))
    for key in ("configMapKeyRef", "secretKeyRef"):
        if isinstance(source.get(key), Mapping):
            errors += key_selector_errors(source[key], path.child(key))
    return errors


def _count_errors(var: Mapping[str, Any], count: int, path: Path) -> list[FieldError]:
    if count == 0:
        return [invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`")]
    if var.get("value"):
        return [invalid(path, "", "may not be specified when `value` is not empty")]
    if count > 1:
        return [invalid(path, "", "may not have more than one field specified at a time")]
    return []


def env_from_errors(env_from: Any, path: Path) -> list[FieldError]:
    """``ValidateEnvFrom``: a valid prefix, exactly one source."""
    errors: list[FieldError] = []
    for i, raw in enumerate(items(env_from)):
        source, at = mapping(raw), path.index(i)
        prefix = text(source.get("prefix"))
        if prefix:
            errors += [invalid(at.child("prefix"), prefix, p) for p in env_name_problems(prefix)]
        count = sum(1 for key in _ENV_FROM_SOURCES if source.get(key) is not None)
        if count == 0:
            errors.append(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif count > 1:
            errors.append(invalid(path, "", "may not have more than one field specified at a time"))
    return errors


def field_ref_errors(selector: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``validateObjectFieldSelector`` for env (``apiVersion`` is defaulted to v1)."""
    api_version = selector.get("apiVersion") or "v1"
    field_path = selector.get("fieldPath")
    if field_path is None or field_path == "":
        return [required(path.child("fieldPath"))]
    known = text(field_path)
    if known is None or text(api_version) is None:
        return []
    if api_version != "v1":
        return [invalid(path.child("fieldPath"), known, f"error converting fieldPath: unsupported pod version: {api_version}")]
    base, subscript = _split_subscript(known)
    if subscript is not None:
        if base == "metadata.annotations":
            return [invalid(path, subscript, p) for p in annotation_key_problems(subscript)]
        if base == "metadata.labels":
            return [invalid(path, subscript, p) for p in label_key_problems(subscript)]
        return [invalid(path.child("fieldPath"), known, f"error converting fieldPath: field label does not support subscript: {known}")]
    if known not in _CONVERTIBLE_FIELD_PATHS:
        return [invalid(path.child("fieldPath"), known, f"error converting fieldPath: field label not supported: {known}")]
    converted = "spec.nodeName" if known == "spec.host" else known
    return [] if converted in ENV_FIELD_PATHS else [not_supported(path.child("fieldPath"), converted, ENV_FIELD_PATHS)]


def _split_subscript(field_path: str) -> tuple[str, str | None]:
    """``SplitMaybeSubscriptedPath``: ``metadata.labels['app']`` -> (``metadata.labels``, ``app``)."""
    if not field_path.endswith("']"):
        return field_path, None
    base, sep, subscript = field_path[:-2].partition("['")
    return (base, subscript) if sep and base else (field_path, None)


def _resource_field_errors(selector: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``validateContainerResourceFieldSelector`` for env (no ``containerName`` needed)."""
    resource = selector.get("resource")
    if resource is None or resource == "":
        return [required(path.child("resource"))]
    known = text(resource)
    if known is None or known in RESOURCE_FIELD_PATHS or known.startswith(_HUGEPAGES_PREFIXES):
        return []
    return [not_supported(path.child("resource"), known, RESOURCE_FIELD_PATHS)]


def key_selector_errors(selector: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``validateConfigMapKeySelector`` / ``validateSecretKeySelector``."""
    errors: list[FieldError] = []
    name = selector.get("name", "")
    if (known := text(name)) is not None:
        errors += [invalid(path.child("name"), known, p) for p in dns1123_subdomain_problems(known)]
    key = selector.get("key")
    if key is None or key == "":
        errors.append(required(path.child("key")))
    elif (known_key := text(key)) is not None:
        errors += [invalid(path.child("key"), known_key, p) for p in config_key_problems(known_key)]
    return errors


def config_key_problems(key: str) -> list[str]:
    """``IsConfigMapKey``."""
    problems = ["must be no more than 253 characters"] if len(key) > 253 else []
    if _CONFIG_KEY.fullmatch(key) is None:
        problems.append(CONFIG_KEY_MESSAGE)
    if key in (".", ".."):
        problems.append(f"must not be '{key}'")
    elif key.startswith(".."):
        problems.append("must not start with '..'")
    return problems
