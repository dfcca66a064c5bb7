"""Which workload family the operator renders a graph into (rendering-grove section 1).

The operator records its choice in the durable DGD annotation ``nvidia.com/workload-provider``
(``grove`` or ``component``). An existing value is authoritative, so a graph that was created
under one provider keeps it even if the platform changes; without it, the creation-time intent
applies: Grove when the ``Grove`` gate is on and the graph does not opt out with
``nvidia.com/enable-grove: "false"``.

On the component pathway, multinode components need LeaderWorkerSet; the DGD controller fails the
whole graph with "no multinode orchestrator available" when LWS is off (ERRATA 1.10). A
standalone DCD is not held to that rule: it falls back to a Deployment (ERRATA 1.11).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    KUBE_ANNOTATION_ENABLE_GROVE,
    KUBE_ANNOTATION_WORKLOAD_PROVIDER,
    KUBE_LABEL_VALUE_FALSE,
    WORKLOAD_PROVIDER_COMPONENT,
    WORKLOAD_PROVIDER_GROVE,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields, DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform

#: DGD status reasons the controller reports for these failures (kept for callers that surface
#: the reason next to the message).
REASON_NO_MULTINODE_ORCHESTRATOR = "no_multinode_orchestrator_available"
REASON_SELECTED_WORKLOAD_PROVIDER_UNAVAILABLE = "selected_workload_provider_unavailable"
REASON_UNSUPPORTED_WORKLOAD_PROVIDER = "unsupported_workload_provider"

_PROVIDER_PATH = f"metadata.annotations[{KUBE_ANNOTATION_WORKLOAD_PROVIDER}]"


class Pathway(StrEnum):
    """The workload provider: one PodCliqueSet per graph, or one DCD per component."""

    GROVE = WORKLOAD_PROVIDER_GROVE
    COMPONENT = WORKLOAD_PROVIDER_COMPONENT


class ComponentWorkload(StrEnum):
    """What the DCD controller renders for one component on the component pathway."""

    DEPLOYMENT = "Deployment"
    LEADER_WORKER_SET = "LeaderWorkerSet"


#: Where the platform settings are given, for messages that ask to change one.
WHERE_PLATFORM_GOES = "the file given as -p/--platform, or platform= of the Pulumi components"
#: The fix for "no multinode orchestrator", with the operator configuration's own key names.
ENABLE_AN_ORCHESTRATOR = (
    "a multinode component needs Grove or LeaderWorkerSet installed in the cluster and enabled in the platform "
    f"settings ({WHERE_PLATFORM_GOES}): orchestrators.grove.enabled: true (Grove) or "
    "orchestrators.lws.enabled: true (LeaderWorkerSet), as in the operator's configuration"
)

def provider_from_intent(dgd: DynamoGraphDeployment, platform: Platform) -> Pathway:
    """The creation-time choice (``providerFromCurrentIntent``): Grove unless gated off or opted out."""
    opt_out = dgd.annotations.get(KUBE_ANNOTATION_ENABLE_GROVE, "").lower() == KUBE_LABEL_VALUE_FALSE
    if platform.grove_enabled and not opt_out:
        return Pathway.GROVE
    return Pathway.COMPONENT


def parse_workload_provider(value: str) -> Pathway:
    """An existing annotation value; only the two implemented programs are accepted."""
    try:
        return Pathway(value)
    except ValueError:
        raise RenderError(
            f'unsupported workload provider: "{value}" (reason {REASON_UNSUPPORTED_WORKLOAD_PROVIDER})',
            _PROVIDER_PATH,
        ) from None


def select_workload_provider(dgd: DynamoGraphDeployment, platform: Platform) -> Pathway:
    """The provider the controller would use: the persisted annotation, else the current intent."""
    annotations = dgd.annotations
    if KUBE_ANNOTATION_WORKLOAD_PROVIDER in annotations:
        return parse_workload_provider(annotations[KUBE_ANNOTATION_WORKLOAD_PROVIDER])
    return provider_from_intent(dgd, platform)


def choose_pathway(dgd: DynamoGraphDeployment, platform: Platform) -> Pathway:
    """The pathway to render, refusing the combinations the controller fails on.

    A durable Grove selection with Grove disabled fails rather than falling back; a component
    selection with a multinode component and LWS off has no orchestrator.
    """
    pathway = select_workload_provider(dgd, platform)
    if pathway is Pathway.GROVE and not platform.grove_enabled:
        raise RenderError(
            f'selected workload provider "{WORKLOAD_PROVIDER_GROVE}" is unavailable because Grove is '
            f"disabled (reason {REASON_SELECTED_WORKLOAD_PROVIDER_UNAVAILABLE}); to enable it, set "
            f"orchestrators.grove.enabled: true in the platform settings ({WHERE_PLATFORM_GOES}) on a cluster with "
            "Grove installed",
            _PROVIDER_PATH,
        )
    if pathway is Pathway.COMPONENT and not platform.lws_enabled:
        multinode = [c.name for c in dgd.components if c.is_multinode]
        if multinode:
            raise RenderError(
                "no multinode orchestrator available: component(s) "
                f"{', '.join(multinode)} are multinode but neither Grove nor LeaderWorkerSet is enabled "
                f"(reason {REASON_NO_MULTINODE_ORCHESTRATOR}); {ENABLE_AN_ORCHESTRATOR}",
                "spec.components",
            )
    return pathway


def component_workload(component: ComponentSpecFields, platform: Platform) -> ComponentWorkload:
    """The DCD controller's choice: LeaderWorkerSet for multinode with LWS on, else Deployment."""
    if platform.lws_enabled and component.is_multinode:
        return ComponentWorkload.LEADER_WORKER_SET
    return ComponentWorkload.DEPLOYMENT
