"""KV-transfer topology on Grove: the downward-API items come from the ClusterTopologyBinding.

When ``spec.experimental.kvTransferPolicy`` names a ``clusterTopologyName`` (and no ``labelKey``),
the Grove renderer reads the binding's levels and projects one file per level domain from the pod
label ``nvidia.com/dynamo-topology.<domain>`` (ERRATA 2.27). Offline, the levels come from the
platform's ``cluster.clusterTopologies`` facts; a missing binding or a policy domain that is not
one of its levels fails rendering as the operator does.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import KUBE_LABEL_DYNAMO_TOPOLOGY_PREFIX, TOPOLOGY_VOLUME_NAME
from dynamo_pulumi.floor.naming import is_worker_type

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
    from dynamo_pulumi.render.grove.settings import GroveSettings

_PATH = "spec.experimental.kvTransferPolicy"


def cluster_topology_domains(dgd: DynamoGraphDeployment, settings: GroveSettings) -> list[str] | None:
    """``resolveGroveClusterTopologyDomains``: the binding's level domains, None without a name."""
    experimental = dgd.spec.experimental
    policy = experimental.kv_transfer_policy if experimental else None
    if policy is None or not policy.cluster_topology_name:
        return None
    name = policy.cluster_topology_name
    if name not in settings.cluster_topologies:
        raise RenderError(
            f'spec.experimental.kvTransferPolicy.clusterTopologyName "{name}" references a '
            "ClusterTopologyBinding resource that was not found (declare its levels under "
            "cluster.clusterTopologies in the platform settings)",
            f"{_PATH}.clusterTopologyName",
        )
    domains = list(settings.cluster_topologies[name])
    if policy.domain not in domains:
        raise RenderError(
            f'spec.experimental.kvTransferPolicy.domain "{policy.domain}" does not exist in '
            f'ClusterTopologyBinding "{name}"; available domains: [{" ".join(domains)}]',
            f"{_PATH}.domain",
        )
    return domains


def with_cluster_topology_items(
    dgd: DynamoGraphDeployment, dcds: list[dict[str, Any]], domains: list[str]
) -> list[dict[str, Any]]:
    """The DCDs with the workers' topology volume holding one item per binding level.

    The DCDs given are the graph's shared ones (the objects around the PCS read them as generated,
    without the items), so a worker that gets items is copied; the others are passed through. A
    ``labelKey`` policy keeps the volume as generated.
    """
    experimental = dgd.spec.experimental
    policy = experimental.kv_transfer_policy if experimental else None
    if policy is None or policy.label_key:
        return dcds
    items = [
        {"path": d, "fieldRef": {"fieldPath": f"metadata.labels['{KUBE_LABEL_DYNAMO_TOPOLOGY_PREFIX}{d}']"}}
        for d in domains
    ]
    return [_with_topology_items(dcd, items) if is_worker_type(dcd["spec"].get("type")) else dcd for dcd in dcds]


def _with_topology_items(dcd: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    pod_spec = (dcd["spec"].get("podTemplate") or {}).get("spec") or {}
    if not any(volume.get("name") == TOPOLOGY_VOLUME_NAME for volume in pod_spec.get("volumes") or []):
        return dcd
    dcd = copy.deepcopy(dcd)
    for volume in dcd["spec"]["podTemplate"]["spec"]["volumes"]:
        if volume.get("name") == TOPOLOGY_VOLUME_NAME:
            volume["downwardAPI"] = {"items": copy.deepcopy(items)} if items else {}
    return dcd
