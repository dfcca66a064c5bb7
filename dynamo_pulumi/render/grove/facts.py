"""Graph-wide values every clique of every component reads on the Grove pathway.

Computed once per rendering (:func:`graph_facts`), with the platform's Grove switches
(:mod:`.settings`): the stages after it (the PCS shell, the cliques, the pod requests, the
objects around the PCS) receive these facts instead of the platform, so nothing is read or
resolved twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.floor.constants import COMPONENT_TYPE_EPP, KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.render.grove.settings import GroveSettings, grove_settings
from dynamo_pulumi.render.pod.metadata import NO_ALPHA_DATA, AlphaComponentData, alpha_components

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform


@record(eq=False, repr=False)  # a context: never compared or printed
class GraphFacts:
    """Graph-wide values every clique of every component reads."""

    dgd: DynamoGraphDeployment
    namespace: str
    discovery_backend: str
    worker_hash: str
    has_epp: bool
    alpha: dict[str, AlphaComponentData]
    settings: GroveSettings
    #: The components' DCDs as the operator generates them for Grove (no deployment config), in
    #: component order: generated once, read by the PCS and by the objects around it.
    dcds: list[dict[str, Any]]
    #: For the builders shared with the component pathway (pod assembly, Services, ingress,
    #: graph-level objects), which read the platform themselves.
    platform: Platform

    def alpha_data(self, component_name: str) -> AlphaComponentData:
        return self.alpha.get(component_name, NO_ALPHA_DATA)


def graph_facts(dgd: DynamoGraphDeployment, platform: Platform, namespace: str, worker_hash: str) -> GraphFacts:
    """The facts of ``dgd`` rendered into ``namespace`` on ``platform``."""
    from dynamo_pulumi.render.graph import generate_component_deployments

    settings = grove_settings(platform)
    return GraphFacts(
        dgd=dgd,
        namespace=namespace,
        discovery_backend=resolve_discovery_backend(dgd, settings.discovery_backend),
        worker_hash=worker_hash,
        has_epp=any(c.type == COMPONENT_TYPE_EPP for c in dgd.components),
        alpha=alpha_components(dgd),
        settings=settings,
        dcds=generate_component_deployments(dgd, namespace, worker_hash, apply_deployment_config=False),
        platform=platform,
    )


def resolve_discovery_backend(dgd: DynamoGraphDeployment, platform_backend: str) -> str:
    """``GetDiscoveryBackend``: the DGD annotation when present (even empty), else the platform's."""
    annotations = dgd.annotations
    if KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND in annotations:
        return annotations[KUBE_ANNOTATION_DYNAMO_DISCOVERY_BACKEND]
    return platform_backend
