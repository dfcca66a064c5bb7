"""The platform's Grove switches, read once per rendering.

Every Grove stage used to take the whole platform and read the switch it needed, some of them
several times per clique (the scheduler integrations for each clique of each component). The
settings are read here once, at the start of :func:`dynamo_pulumi.render.grove.render_grove`, and
the stages receive them (through :class:`~dynamo_pulumi.render.grove.facts.GraphFacts`) instead of
the platform. Reading never fails: the values that can be wrong (both schedulers on, a bad
termination delay) are refused by the stage that uses them, so the operator's order of errors is
kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.floor.records import record

if TYPE_CHECKING:
    from dynamo_pulumi.platform import Platform


@record(frozen=True, eq=False, repr=False)
class GroveSettings:
    """The platform facts the Grove pathway reads."""

    #: ``orchestrators.kaiScheduler.enabled`` (with Grove on).
    kai_scheduler: bool
    #: ``orchestrators.volcanoScheduler.enabled`` (with Grove on).
    volcano_scheduler: bool
    #: ``checkpoint.enabled``: checkpoint restores and waits are honoured.
    checkpoints: bool
    #: ``dra.enabled: false`` given explicitly (unset: the DRA API is assumed served).
    dra_off: bool
    #: ``orchestrators.grove.terminationDelay`` as configured (None: the operator's default).
    termination_delay: str | None
    #: ``cluster.clusterTopologies``: binding name -> its level domains.
    cluster_topologies: dict[str, list[str]]
    #: ``discovery.backend``: the platform's discovery backend (a DGD annotation may override it).
    discovery_backend: str


def grove_settings(platform: Platform) -> GroveSettings:
    """Read the Grove switches of ``platform``."""
    grove = platform.grove_enabled
    return GroveSettings(
        kai_scheduler=grove and platform.orchestrators.kai_scheduler.on,
        volcano_scheduler=grove and platform.orchestrators.volcano_scheduler.on,
        checkpoints=platform.checkpoint.on,
        dra_off=platform.dra_off,
        termination_delay=platform.orchestrators.grove.termination_delay,
        cluster_topologies={name: list(levels) for name, levels in platform.cluster.cluster_topologies.items()},
        discovery_backend=platform.discovery.backend,
    )
