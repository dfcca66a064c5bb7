"""Graph-wide values every clique of every component reads on the Grove pathway.

Computed once per graph (:meth:`GraphFacts.of`); the clique labels and annotations
(:mod:`dynamo_pulumi.render.pod.metadata`) and the pod requests read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.floor.constants import COMPONENT_TYPE_EPP, KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.render.pod.metadata import NO_ALPHA_DATA, AlphaComponentData, alpha_components

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform


@record
class GraphFacts:
    """Graph-wide values every clique of every component reads."""

    dgd: DynamoGraphDeployment
    namespace: str
    discovery_backend: str
    worker_hash: str
    has_epp: bool
    alpha: dict[str, AlphaComponentData]

    def alpha_data(self, component_name: str) -> AlphaComponentData:
        return self.alpha.get(component_name, NO_ALPHA_DATA)

    @classmethod
    def of(cls, dgd: DynamoGraphDeployment, platform: Platform, namespace: str, worker_hash: str) -> GraphFacts:
        return cls(
            dgd=dgd,
            namespace=namespace,
            discovery_backend=resolve_discovery_backend(dgd, platform),
            worker_hash=worker_hash,
            has_epp=any(c.type == COMPONENT_TYPE_EPP for c in dgd.components),
            alpha=alpha_components(dgd),
        )


def resolve_discovery_backend(dgd: DynamoGraphDeployment, platform: Platform) -> str:
    """``GetDiscoveryBackend``: the DGD annotation when present (even empty), else the platform's."""
    annotations = dgd.annotations
    if KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND in annotations:
        return annotations[KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND]
    return platform.discovery.backend
