"""Typed topology constraints in Grove's shape (rendering-grove section 6).

Grove's current shape is ``{topologyName?, pack: {required: <domain>}}``; the legacy
``packDomain`` form is rejected on new PodCliqueSets, so it is never rendered.

* PCS template: the graph's ``topologyConstraint`` when it names a pack domain.
* Component: its own pack domain, carrying the cluster topology name only when the graph level
  has no domain of its own (then there is nothing for the child to inherit from). The result goes
  on the clique for standalone components, on the scaling group otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import SpecTopologyConstraint, TopologyConstraint



def grove_topology_constraint(topology_name: str, pack_domain: str | None) -> dict[str, Any] | None:
    """``{topologyName?, pack: {required}}`` or None without a domain."""
    if not pack_domain:
        return None
    constraint: dict[str, Any] = {}
    if topology_name:
        constraint["topologyName"] = topology_name
    constraint["pack"] = {"required": pack_domain}
    return constraint


def spec_topology_constraint(spec_tc: SpecTopologyConstraint | None) -> dict[str, Any] | None:
    """The PCS template constraint from ``spec.topologyConstraint``."""
    if spec_tc is None:
        return None
    return grove_topology_constraint(spec_tc.cluster_topology_name, spec_tc.pack_domain)


def component_topology_constraint(
    component_tc: TopologyConstraint | None, spec_tc: SpecTopologyConstraint | None
) -> dict[str, Any] | None:
    """A component's constraint; names the topology only when the graph level packs nothing."""
    if component_tc is None or not component_tc.pack_domain:
        return None
    topology_name = ""
    if spec_tc is not None and not spec_tc.pack_domain:
        topology_name = spec_tc.cluster_topology_name
    return grove_topology_constraint(topology_name, component_tc.pack_domain)
