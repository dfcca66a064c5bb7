"""How long a graph may take, per operation: the readiness timeout and the component's
``custom_timeouts``.

Pulumi hands a component's ``custom_timeouts`` to no one (a component has no create or update
of its own), so ours decide what they would mean: how long creating or updating the graph may
take. They bound the readiness wait (the component's create or update is done when the graph
serves) and the awaits of the children pulumi-kubernetes waits for (:mod:`.awaits`): with
``create="5m"`` neither the readiness resource nor a frontend Deployment waits 60 minutes.

Both given: the shorter wins (each is a bound). Only ``custom_timeouts``: it is the deadline of
its operation. Neither: the 60-minute default. ``delete`` (a child's delete wait) is
``custom_timeouts.delete`` when given, else the readiness deadline.
"""

from __future__ import annotations

import pulumi

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.readiness.deadline import DEFAULT_TIMEOUT_SECONDS, parse_duration


@record
class Deadlines:
    """Seconds per operation of the graph."""

    create: int = DEFAULT_TIMEOUT_SECONDS
    update: int = DEFAULT_TIMEOUT_SECONDS
    delete: int = DEFAULT_TIMEOUT_SECONDS

    @property
    def differ(self) -> bool:
        """Whether an update has a deadline of its own (the readiness resource then carries it)."""
        return self.update != self.create


def _seconds(custom: pulumi.CustomTimeouts | None, field: str, owner: str) -> int | None:
    value = getattr(custom, field, None)
    if value in (None, ""):
        return None
    try:
        return parse_duration(value)  # type: ignore[arg-type]
    except ValueError as exc:
        raise InputError(f"{owner}: custom_timeouts.{field}: {exc}") from None


def deadlines(readiness_timeout: int | None, custom: pulumi.CustomTimeouts | None, owner: str) -> Deadlines:
    """The graph's deadlines: ``readiness_timeout`` (None: not given) bounded by ``custom``'s
    create and update; ``owner`` names the component in an error."""
    base = readiness_timeout if readiness_timeout is not None else DEFAULT_TIMEOUT_SECONDS

    def bounded(field: str) -> int:
        given = _seconds(custom, field, owner)
        if given is None:
            return base
        return given if readiness_timeout is None else min(given, readiness_timeout)

    delete = _seconds(custom, "delete", owner)
    return Deadlines(create=bounded("create"), update=bounded("update"), delete=base if delete is None else delete)


def component_timeouts(opts: pulumi.ResourceOptions | None) -> pulumi.CustomTimeouts | None:
    """The component's own ``custom_timeouts`` (None when not given)."""
    return opts.custom_timeouts if opts is not None else None
