"""Defaults for a component with no type (or a type without its own defaults): the common
container only (rendering-core section 3.6)."""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.render.pod.defaults.common import DefaultsContext, common_container, common_pod_spec


def base_container(ctx: DefaultsContext) -> dict[str, Any]:
    return common_container(ctx)


def base_pod_spec(ctx: DefaultsContext) -> dict[str, Any]:
    return common_pod_spec(ctx)
