"""Every object builder, in the order the objects are emitted.

Adding a kind means one new module in this package and one line here. ``GRAPH_BUILDERS`` run once
per DGD with a :class:`GraphContext` (objects the DGD controller owns); ``COMPONENT_BUILDERS`` run
once per DCD with a :class:`ComponentContext` (objects the DCD controller owns).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from dynamo_pulumi.floor.records import record
from dynamo_pulumi.render.objects import (
    deployment,
    epp,
    gms_claims,
    ingress,
    lws,
    model_service,
    pvc,
    rbac,
    scaling_adapter,
    service,
    wait_leader,
)
from dynamo_pulumi.render.objects.context import ComponentContext, GraphContext

C = TypeVar("C")


@record(eq=False, repr=False)  # never compared or printed: fewer methods to build at start-up
class Builder(Generic[C]):
    """One kind of object: its name (for error messages and docs) and its build function."""

    name: str
    build: Callable[[C], list[dict[str, Any]]]


GRAPH_BUILDERS: tuple[Builder[GraphContext], ...] = (
    Builder("rbac", rbac.build),
    Builder("pvc", pvc.build),
    Builder("gms-claims", gms_claims.build),
    Builder("epp", epp.build),
    Builder("wait-for-leader", wait_leader.build),
    Builder("scaling-adapter", scaling_adapter.build),
)

COMPONENT_BUILDERS: tuple[Builder[ComponentContext], ...] = (
    Builder("deployment", deployment.build),
    Builder("leaderworkerset", lws.build),
    Builder("service", service.build),
    Builder("model-service", model_service.build),
    Builder("ingress", ingress.build),
)
