"""The one nearest-name rule behind every "did you mean": same name in another spelling style
first, then difflib's closest above the cutoff, nothing for a declared name or a far one."""

from __future__ import annotations

import pytest

from dynamo_pulumi.floor.suggest import CUTOFF, did_you_mean, nearest

DECLARED = ["replicas", "minAvailable", "min_available", "multinode", "name", "nodeCount"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("replica", "replicas"),             # a typo: difflib
        ("Replicas", "replicas"),            # another case: folded
        ("min-available", "minAvailable"),   # another spelling style: the first declared spelling
        ("MINAVAILABLE", "minAvailable"),
        ("nodecount", "nodeCount"),
        ("replicas", ""),                    # declared itself: nothing to suggest
        ("zzzz", ""),                        # nothing close
        ("", ""),
    ],
)
def test_nearest(name: str, expected: str) -> None:
    assert nearest(name, DECLARED) == expected


def test_the_folded_spelling_is_tried_when_the_raw_one_is_not_close() -> None:
    # "min_availabel" vs "minAvailable": raw ratio below the cutoff, folded "minavailabel" is close
    assert nearest("MIN_AVAILABEL", ["minAvailable", "maxSurge"]) == "minAvailable"


def test_the_cutoff_is_a_likely_typo_and_not_less() -> None:
    assert CUTOFF == 0.75
    assert nearest("abcd", ["abcx"]) == "abcx"      # ratio 0.75: suggested
    assert nearest("abcd", ["abxy"]) == ""          # ratio 0.5: not


def test_duplicates_and_iterators_are_accepted() -> None:
    assert nearest("replica", iter(["replicas", "replicas"])) == "replicas"


def test_did_you_mean_words_the_suggestion_or_nothing() -> None:
    assert did_you_mean("replica", DECLARED) == ' (did you mean "replicas"?)'
    assert did_you_mean("zzzz", DECLARED) == ""
