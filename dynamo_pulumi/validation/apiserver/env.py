"""Environment variables: ``ValidateEnv``, ``validateEnvVarValueFrom`` (exactly one source, none
beside ``value``) and ``ValidateEnvFrom`` (exactly one of ``configMapRef``/``secretRef``).

Names follow the Kubernetes version this package targets (1.32 and later): the
``RelaxedEnvironmentVariableValidation`` gate is on by default there (beta in 1.32, GA in 1.34),
so a name is any printable ASCII character except ``=``
(``IsRelaxedEnvVarName``); the older C-identifier rule (``IsEnvVarName``) would refuse
``my.var``, which those clusters accept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, invalid, required
from dynamo_pulumi.validation.apiserver._common import items, mapping, text

_VALUE_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")
_ENV_FROM_SOURCES = ("configMapRef", "secretRef")
RELAXED_ENV_NAME_MESSAGE = "a valid environment variable name must consist only of printable ASCII characters other than '='"


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
