"""What ``dynamo:index:GraphReadiness`` accepts, checked at the field, in one line per problem.

The plugin takes its inputs from any language, as wire values: a TypeScript or YAML program can
send what no Python program of ours would (``wait: "false"``, ``timeout_seconds: NaN``, ``targets:
[]``, a target that is a string). Everything Create cannot use is refused by Check, naming the
field and the rule, and the same function runs again in Create, Update and Read (the engine may
call them with inputs Check never saw: an imported state, an old plugin's state), so a refused
input is the same message in both places and never a Python exception's text.

The types come from the schema the plugin serves (:data:`~.schema.READINESS_PROPERTIES`: a
``boolean`` is true or false, never a string; an ``integer`` is a whole number); the values from
the readiness core (:func:`dynamo_pulumi.cluster.provider._check_failures`: mode, kind, names)
and the rules below: a deadline is finite, positive and at most a week; there is something to
watch (an empty ``targets`` would report the graph ready having watched nothing), each target
names a kind and an object, and operator mode watches exactly one custom resource. A value not
known yet (preview) is checked when it is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from pydantic import ValidationError

from dynamo_pulumi.cluster.provider import OUTPUTS, _check_failures, _has_unknown, is_unknown
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.suggest import nearest
from dynamo_pulumi.plugin.schema import (
    BOOLEAN,
    INTEGER,
    OBJECTS,
    READINESS_PROPERTIES,
    REQUIRED_INPUTS,
    STRING,
)
from dynamo_pulumi.plugin.tokens import READINESS_TYPE
from dynamo_pulumi.readiness.deadline import timeout_problem
from dynamo_pulumi.readiness.targets import WatchTarget

#: Where a value's Python type is named in a message.
_TYPE_NAMES: Final = {bool: "a boolean", str: "a string", int: "a number", float: "a number", list: "a list",
                      dict: "an object", type(None): "null"}

Problem = tuple[str, str]


def _shown(value: Any) -> str:
    """``value`` in a message: short scalars as written, anything else by its kind alone (a
    kubeconfig or a whole object must not be printed back)."""
    if isinstance(value, bool) or (isinstance(value, int) and abs(value) < 10**15):
        return repr(value)
    if isinstance(value, (int, float)):  # a huge whole double arrives as a huge int: shown as written
        return f"{float(value):g}"
    if isinstance(value, str) and len(value) <= 40:
        return repr(value)
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _type_problem(schema_type: Mapping[str, Any], value: Any) -> str | None:
    """Why ``value`` is not of the schema type (None when it is)."""
    if schema_type == BOOLEAN and not isinstance(value, bool):
        return f"must be true or false, not {_shown(value)}"
    if schema_type == STRING and not isinstance(value, str):
        return f"must be a string, not {_shown(value)}"
    if schema_type == INTEGER and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return f"must be a number, not {_shown(value)}"
    if schema_type == OBJECTS and (not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value)):
        return "must be a list of objects"
    return None


def _timeout(value: Any) -> str | None:
    seconds = float(value)
    problem = timeout_problem(seconds)
    if problem is None and not math.isclose(seconds, round(seconds)):
        problem = "must be a whole number of seconds"
    return None if problem is None else f"{problem}, not {_shown(value)}"


def _target_problems(index: int, target: Mapping[str, Any]) -> list[Problem]:
    where = f"targets[{index}]"
    try:
        WatchTarget.from_input(target)
    except ValidationError as exc:
        return [(f"{where}.{'.'.join(str(p) for p in error['loc'])}" if error["loc"] else where,
                 _pydantic_words(error)) for error in exc.errors()]
    empty = [key for key in ("api_version", "kind", "name") if not target.get(key)]
    return [(f"{where}.{key}", "must not be empty") for key in empty]


def _pydantic_words(error: Mapping[str, Any]) -> str:
    """One pydantic error in our words (never its text with a URL)."""
    kind = str(error.get("type", ""))
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a field of a watch target (api_version, kind, namespace, name, component, group)"
    if kind.startswith("string"):
        return f"must be a string, not {_shown(error.get('input'))}"
    return "is not valid here"


def _targets(news: Mapping[str, Any]) -> list[Problem]:
    targets = news.get("targets")
    if not isinstance(targets, list) or is_unknown(targets):
        return []  # the type rule said it, or it is not known yet
    if not targets:
        return [("targets", "must name at least one object to watch (an empty list would report the graph "
                            "ready having watched nothing)")]
    problems: list[Problem] = []
    for index, target in enumerate(targets):
        if not _has_unknown(target) and isinstance(target, Mapping):
            problems.extend(_target_problems(index, target))
    if news.get("mode") == "operator" and len(targets) != 1:
        problems.append(("targets", f"operator mode watches exactly one custom resource, not {len(targets)} targets"))
    return problems


def _value_problems(news: Mapping[str, Any], flagged: set[str]) -> list[Problem]:
    problems: list[Problem] = []
    timeout = news.get("timeout_seconds")
    if "timeout_seconds" not in flagged and timeout is not None and not is_unknown(timeout):
        reason = _timeout(timeout)
        if reason:
            problems.append(("timeout_seconds", reason))
    kubeconfig = news.get("kubeconfig")
    if kubeconfig is not None and not is_unknown(kubeconfig) and not isinstance(kubeconfig, (str, Mapping)):
        problems.append(("kubeconfig", f"must be the kubeconfig's text, its path or an object, not {_shown(kubeconfig)}"))
    if "targets" not in flagged:
        problems.extend(_targets(news))
    return problems


def _nearest(key: str, allowed: set[str]) -> str:
    """The input ``key`` misspells, or the one input it abbreviates (``timeout`` for
    ``timeout_seconds``); "" when neither."""
    hint = nearest(key, sorted(allowed))
    if hint:
        return hint
    longer = [name for name in sorted(allowed) if name.startswith(key)]
    return longer[0] if len(longer) == 1 else ""


def _unknown_keys(news: Mapping[str, Any], allowed: set[str]) -> list[Problem]:
    found = []
    for key, value in news.items():
        if key not in allowed and value is not None:  # a null is no value (the SDKs send none)
            hint = _nearest(key, allowed)
            found.append((key, f"is not an input of {READINESS_TYPE}" + (f" (did you mean {hint!r}?)" if hint else "")))
    return found


def _wrong_types(news: Mapping[str, Any], allowed: set[str]) -> list[Problem]:
    found = [(key, "is required") for key in REQUIRED_INPUTS if news.get(key) is None]
    for key, value in news.items():
        if key in allowed and value is not None and not is_unknown(value):
            reason = _type_problem(READINESS_PROPERTIES[key][0], value)
            if reason:
                found.append((key, reason))
    return found


def _in_order(found: list[Problem]) -> list[Problem]:
    """``found`` in the schema's property order (``targets[0].name`` sorts as ``targets``)."""
    order = {key: i for i, key in enumerate(READINESS_PROPERTIES)}
    return sorted(found, key=lambda p: order.get(p[0].split("[")[0].split(".")[0], len(order)))


def problems(news: Mapping[str, Any], *, state: bool = False) -> list[Problem]:
    """Every problem of the readiness inputs ``news`` as (property, reason), in property order:
    the names, then the types, then the values (a property gets the first rule it breaks).

    ``state`` is a resource's saved state (Read): its outputs are expected beside the inputs.
    """
    allowed = set(READINESS_PROPERTIES) if state else set(READINESS_PROPERTIES) - set(OUTPUTS)
    found = _unknown_keys(news, allowed) + _wrong_types(news, allowed)
    found.extend(_value_problems(news, {key for key, _ in found}))
    flagged = {key for key, _ in found}
    found.extend((f.property, f.reason) for f in _check_failures(news)
                 if f.property not in flagged and not f.property.startswith("targets"))
    return _in_order(found)


def message(found: list[Problem]) -> str:
    """The refusal as Create answers it: one ``property: reason`` line per problem, the same
    words Check gave."""
    return "\n".join(f"{prop}: {reason}" for prop, reason in found)


def require_valid(news: Mapping[str, Any], *, state: bool = False) -> None:
    """Raise :class:`InputError` with :func:`message` when ``news`` has any problem."""
    found = problems(news, state=state)
    if found:
        raise InputError(message(found))
