"""Where a rendered value came from: an error found in a rendered pod spec, reported at the
field of the user's file that holds the same value.

Rendering merges the user's pod template into the operator's (adding containers, env, volumes,
mounts), so list indexes differ. The rendered path is walked beside the user's pod template:
a list item is matched by its identity (``name``, and ``mountPath`` for mounts; else equal
content), the k-th rendered item of an identity to the k-th user item of it. The user's field is
named only when it holds exactly the rendered value; a value rendering made or changed stays at
the rendered object's path (``Deployment "g-frontend": spec.template.spec...``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_MISSING = object()


def _identity(item: Any) -> Any:
    if isinstance(item, Mapping) and isinstance(item.get("name"), str):
        return (item["name"], item.get("mountPath"))
    return repr(item)


def _matching_index(rendered: Sequence[Any], index: int, user: Sequence[Any]) -> int | None:
    """The user item that rendered item ``index`` comes from (same identity, same occurrence)."""
    key = _identity(rendered[index])
    occurrence = sum(1 for item in rendered[:index] if _identity(item) == key)
    seen = 0
    for j, item in enumerate(user):
        if _identity(item) == key:
            if seen == occurrence:
                return j
            seen += 1
    return None


_TOKEN = re.compile(r"\[([^\]]*)\]|\.?([^.\[]+)")


def user_path(relative: str, rendered_spec: Mapping[str, Any], user_spec: Any) -> str | None:
    """The path inside ``user_spec`` holding the rendered value at ``relative`` (a path inside
    ``rendered_spec``, as the API server prints it), or None when the user did not write it."""
    found = user_field(relative, rendered_spec, user_spec)
    return found[0] if found is not None else None


def user_field(relative: str, rendered_spec: Mapping[str, Any], user_spec: Any) -> tuple[str, Any] | None:
    """:func:`user_path` and the value the user wrote there (None when absent)."""
    rendered: Any = rendered_spec
    user: Any = user_spec
    out = ""
    for match in _TOKEN.finditer(relative):
        bracket, name = match.group(1), match.group(2)
        part = bracket if bracket is not None else name
        if isinstance(rendered, list) and bracket is not None and part.isdigit() and int(part) < len(rendered):
            j = _matching_index(rendered, int(part), user) if isinstance(user, list) else None
            if j is None:
                return None
            rendered, user = rendered[int(part)], user[j]
            out += f"[{j}]"
        elif isinstance(rendered, Mapping) and isinstance(user, Mapping):
            rendered, user = rendered.get(part, _MISSING), user.get(part, _MISSING)
            out += f"[{part}]" if bracket is not None else (f".{part}" if out else part)
        else:
            return None
    if not _same(rendered, user):
        return None
    return out, None if user is _MISSING else user


def _same(rendered: Any, user: Any) -> bool:
    """The user wrote this value: equal, or both absent (a required field the user left out)."""
    if rendered is _MISSING or user is _MISSING:
        return rendered is user
    return rendered == user or _same_quantity(rendered, user)


def _same_quantity(rendered: Any, user: Any) -> bool:
    """Rendering writes quantities canonically (``0.5`` becomes ``500m``): the same amount is the
    user's value."""
    from dynamo_pulumi.api.quantity import parse_quantity

    if not isinstance(rendered, (str, int, float)) or not isinstance(user, (str, int, float)):
        return False
    try:
        return parse_quantity(rendered) == parse_quantity(user)
    except (ValueError, ArithmeticError):
        return False
