"""The nearest declared name to a misspelt one, for every "did you mean" this package prints.

One rule for every input (graph fields at any depth, typed-model keywords, platform file keys,
CLI options), so a typo is answered the same way wherever it is made: the same name in another
case or spelling style (``min_available`` for ``minAvailable``) first, then the closest name by
``difflib``'s ratio, and nothing when no declared name is close enough to be a likely typo.
"""

from __future__ import annotations

from collections.abc import Iterable

#: How close a name must be to count as a typo of a declared one (difflib's ratio, 0..1).
CUTOFF = 0.75


def _folded(name: str) -> str:
    """``name`` without case or separators: ``minAvailable``, ``min_available`` and
    ``min-available`` fold alike."""
    return name.replace("_", "").replace("-", "").lower()


def nearest(name: str, declared: Iterable[str]) -> str:
    """The declared name ``name`` most likely misspells ("" when none is close, or when
    ``name`` is itself declared)."""
    choices = list(dict.fromkeys(declared))
    if not name or name in choices:
        return ""
    same = [d for d in choices if _folded(d) == _folded(name)]
    if same:
        return same[0]
    import difflib  # late: only a name that is not declared gets here

    close = difflib.get_close_matches(name, choices, n=1, cutoff=CUTOFF)
    if close:
        return close[0]
    folded = {_folded(d): d for d in choices}
    close = difflib.get_close_matches(_folded(name), list(folded), n=1, cutoff=CUTOFF)
    return folded[close[0]] if close else ""


def did_you_mean(name: str, declared: Iterable[str]) -> str:
    """`` (did you mean "x"?)`` for the nearest declared name, or ""."""
    found = nearest(name, declared)
    return f' (did you mean "{found}"?)' if found else ""
