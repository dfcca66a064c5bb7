"""Merging the user's container and pod spec over the operator's defaults.

The operator merges with ``mergo.Merge(dst, src, WithOverride)`` on typed Go structs. On the wire
dicts we hold, that means:

* a user value that Go would consider *empty* (absent, ``null``, ``""``, ``0``, ``false``, ``[]``,
  ``{}``) leaves the default in place;
* mappings are merged key by key (``resources.limits``, ``securityContext`` ...);
* anything else, including lists (``command``, ``args``, ``ports``, ``volumeMounts``, ``volumes``,
  ``tolerations``), replaces the default whole; lists are never appended.

On top of that ``mergeContainerByName`` merges ``env`` as a union (user wins, sorted by name),
replaces each probe the user gives as a whole, and forces the container name.

Leaves are never inspected beyond "is it empty", so ``pulumi.Output`` values pass through.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dynamo_pulumi.errors import RenderError

PROBE_KEYS: tuple[str, ...] = ("livenessProbe", "readinessProbe", "startupProbe")


_LEAF_TYPES = frozenset({str, int, float, bool, type(None)})


def clone(value: Any) -> Any:
    """A structural copy of dicts and lists; leaves (strings, numbers, Outputs) are shared.

    ``copy.deepcopy`` is avoided on purpose: it would try to copy ``pulumi.Output`` internals.
    This runs over every pod template a render builds, so leaves are recognised by exact type
    inline (no call per leaf), before the slower abstract ``Mapping`` test.
    """
    kind = type(value)
    if kind is dict:
        return {k: (v if type(v) in _LEAF_TYPES else clone(v)) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _LEAF_TYPES else clone(v) for v in value]
    if kind in _LEAF_TYPES:
        return value
    if isinstance(value, Mapping):
        return {k: clone(v) for k, v in value.items()}
    return value


def is_empty(value: Any) -> bool:
    """Go's "zero value" test as mergo applies it to a user field."""
    if value is None:
        return True
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value == 0
    if isinstance(value, (str, list, dict)):
        return len(value) == 0
    return False


def merge_override(base: dict[str, Any], user: Mapping[str, Any]) -> dict[str, Any]:
    """``mergo.Merge(&base, user, WithOverride)`` on wire dicts; returns a new dict."""
    merged = clone(base)
    _override_into(merged, user)
    return merged


def _added(value: Any) -> bool:
    """Whether a user value for a key the base lacks appears on the wire at all: Go drops nil,
    "" and empty slices (omitempty); false/0 may be pointers."""
    return not (value is None or (isinstance(value, (str, list)) and not value))


def _override_into(merged: dict[str, Any], user: Mapping[str, Any], whole: frozenset[str] = frozenset()) -> None:
    """Merge ``user`` into ``merged`` (our own copy) in place, each user value copied once.

    Keys in ``whole`` are replaced by the caller afterwards; here they only take their place in
    the key order (so the output is byte-identical to merging them first)."""
    for key, value in user.items():
        current = merged.get(key)
        if key in whole:
            if key not in merged and _added(value):
                merged[key] = None
        elif isinstance(current, dict) and isinstance(value, Mapping):
            _override_into(current, value)
        elif key not in merged:
            if _added(value):
                merged[key] = clone(value)
        elif not is_empty(value):
            merged[key] = clone(value)


def env_name(entry: Mapping[str, Any]) -> str:
    name = entry.get("name")
    if not isinstance(name, str):
        raise RenderError("environment variable name must be a string", "env[].name")
    return name


def _union_by_name(
    common: Iterable[Mapping[str, Any]] | None, specific: Iterable[Mapping[str, Any]] | None
) -> list[tuple[Mapping[str, Any], bool]]:
    """``MergeEnvs`` without copying: (entry, came from ``specific``), sorted by name."""
    by_name: dict[str, tuple[Mapping[str, Any], bool]] = {}
    for entry in common or []:
        by_name[env_name(entry)] = (entry, False)
    for entry in specific or []:
        by_name[env_name(entry)] = (entry, True)
    return [by_name[name] for name in sorted(by_name)]


def merge_envs(common: Iterable[Mapping[str, Any]] | None, specific: Iterable[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """``MergeEnvs``: union by name, ``specific`` wins, result sorted by name (byte order)."""
    return [clone(entry) for entry, _ in _union_by_name(common, specific)]


_WHOLE_CONTAINER_KEYS = frozenset({"env", *PROBE_KEYS})


def merge_container(base: dict[str, Any], user: Mapping[str, Any] | None, name: str) -> dict[str, Any]:
    """``mergeContainerByName``: user over base, env union, whole-probe replacement, forced name."""
    if user is None:
        merged = clone(base)
        merged["name"] = name
        return merged
    # env is rebuilt by merge_envs below, so the base's is not copied first
    merged = {k: (v if k == "env" else clone(v)) for k, v in base.items()}
    _override_into(merged, user, whole=frozenset(k for k in _WHOLE_CONTAINER_KEYS if user.get(k) is not None))
    merged["env"] = merge_envs(base.get("env"), user.get("env"))
    for probe in PROBE_KEYS:
        if user.get(probe) is not None:
            merged[probe] = clone(user[probe])
    merged["name"] = name
    if not merged["env"]:
        del merged["env"]
    return merged


def merge_pod_spec(base: dict[str, Any], user: Mapping[str, Any] | None) -> dict[str, Any]:
    """The user's ``podTemplate.spec`` without ``containers`` merged over the base pod spec."""
    if not user:
        return clone(base)
    overrides = {k: v for k, v in user.items() if k != "containers"}
    return merge_override(base, overrides)


def add_env_user_wins(container: dict[str, Any], defaults: list[dict[str, Any]]) -> None:
    """Add ``defaults`` to a container's env unless it already has the name; sort by name.

    This is ``MergeEnvs(defaults, container.Env)``, used for the platform's standard env. The
    container is the caller's own (it is changed in place), so its entries are kept, not copied.
    """
    merged = [entry if own else clone(entry) for entry, own in _union_by_name(defaults, container.get("env"))]
    if merged:
        container["env"] = merged
