"""Replacement triggers: replaces decided by something that is not one property path of the child.

``replace_on_changes`` matches property paths of the engine's detailed diff. Grove refuses any
change to a PodCliqueSet's *composition* (how many cliques and scaling groups, and their names).
A rename or an insertion shows up as a changed ``cliques[i].name`` and is caught by the path rule,
but adding or removing a clique at the end shows up as an added or removed ``cliques[n]``
element, which no ``.name`` path matches: the update would be sent and rejected by Grove's
webhook. A ``replacement_trigger`` holding a digest of the composition turns exactly those
changes into a planned replacement, visible in ``pulumi preview``.

Needs the pulumi SDK >= 3.214 and CLI >= 3.208 (older CLIs ignore the option silently); a trigger
going from unset to set never replaces, so existing stacks are not disturbed by an upgrade.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.floor.constants import GROVE_API_VERSION, POD_CLIQUE_SET_KIND
from dynamo_pulumi.floor.expansion import json_digest


def pcs_composition(pcs: dict[str, Any]) -> dict[str, Any]:
    """The part of a PodCliqueSet Grove treats as its identity: clique and scaling-group names."""
    template = (pcs.get("spec") or {}).get("template") or {}
    return {
        "cliques": [str(c.get("name", "")) for c in template.get("cliques") or []],
        "scalingGroups": [
            [str(g.get("name", "")), [str(n) for n in g.get("cliqueNames") or []]]
            for g in template.get("podCliqueScalingGroups") or []
        ],
    }


def replacement_trigger(api_version: str, kind: str, obj: dict[str, Any]) -> str | None:
    """The trigger for one object, or None when its kind needs none."""
    if (api_version, kind) != (GROVE_API_VERSION, POD_CLIQUE_SET_KIND):
        return None
    return "pcs-composition:" + json_digest(pcs_composition(obj))
