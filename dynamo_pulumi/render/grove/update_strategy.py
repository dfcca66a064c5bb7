"""``spec.updateStrategy`` from the DGD annotation ``nvidia.com/grove-update-strategy`` (section 7).

Absent annotation: no strategy (Grove's CRD default applies). Present: the exact, case-sensitive
value, which must be one Grove understands; anything else is a render error naming the supported
values. ``Coherent`` is accepted as the seed page documents it (Grove >= v0.1.0-alpha.14); the
strategy never changes pod templates.
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY

ROLLING_RECREATE_STRATEGY = "RollingRecreate"
ON_DELETE_STRATEGY = "OnDelete"
COHERENT_STRATEGY = "Coherent"
SUPPORTED_UPDATE_STRATEGIES: tuple[str, ...] = (
    COHERENT_STRATEGY,
    ROLLING_RECREATE_STRATEGY,
    ON_DELETE_STRATEGY,
)


def update_strategy(annotations: dict[str, str]) -> dict[str, Any] | None:
    """``{type: <value>}`` for a supported annotation value, None when the annotation is absent."""
    if KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY not in annotations:
        return None
    value = annotations[KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY]
    if value not in SUPPORTED_UPDATE_STRATEGIES:
        supported = ", ".join(f'"{s}"' for s in SUPPORTED_UPDATE_STRATEGIES)
        raise RenderError(
            f'unsupported Grove update strategy annotation "{KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY}"='
            f'"{value}": supported values are {supported}',
            f"metadata.annotations[{KUBE_ANNOTATION_GROVE_UPDATE_STRATEGY}]",
        )
    return {"type": value}
