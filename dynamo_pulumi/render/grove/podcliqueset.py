"""The PodCliqueSet object around the cliques (rendering-grove sections 2.1-2.2).

One PCS per graph, always ``replicas: 1`` (the graph is one gang set; components scale inside it).
Its name is ``PCSNameForDGD`` (the DGD name unless Grove's 45-character budget forces a hashed
prefix). Labels are the graph's ``spec.labels`` plus the graph-name label; annotations are the
graph's ``spec.annotations``. The template always publishes not-ready addresses on the headless
Service (multinode launchers resolve peers before they are ready) and starts cliques in any order
unless a component needs explicit ordering.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.floor.constants import (
    GROVE_ANNOTATION_VOLCANO_QUEUE,
    GROVE_API_VERSION,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    POD_CLIQUE_SET_KIND,
)
from dynamo_pulumi.floor.go_duration import go_duration_string, go_parse_duration
from dynamo_pulumi.model.pcs_naming import pcs_name_for_dgd
from dynamo_pulumi.render.grove.schedulers import volcano_queue
from dynamo_pulumi.render.grove.startup_order import CLIQUE_STARTUP_TYPE_ANY_ORDER
from dynamo_pulumi.render.grove.topology import spec_topology_constraint
from dynamo_pulumi.render.grove.update_strategy import update_strategy
from dynamo_pulumi.render.objects.common import k8s_object

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
    from dynamo_pulumi.render.grove.settings import GroveSettings

#: ``orchestrators.grove.terminationDelay`` default (15 minutes), as Go serialises it.
DEFAULT_GROVE_TERMINATION_DELAY = "15m0s"
_TERMINATION_DELAY = "orchestrators.grove.terminationDelay"

def termination_delay(settings: GroveSettings) -> str | None:
    """The configured Grove termination delay, or None when it is zero (then omitted).

    Read from ``orchestrators.grove.terminationDelay``; unset keeps the operator's default.
    """
    configured = settings.termination_delay
    if configured is None:
        return DEFAULT_GROVE_TERMINATION_DELAY
    try:  # the operator's configuration reads it as a metav1.Duration: Go's grammar, Go's words
        nanos = go_parse_duration(str(configured).strip())
    except ValueError as exc:
        raise RenderError(str(exc), _TERMINATION_DELAY) from None
    if nanos < 0:  # the operator's configuration validation
        raise RenderError(f'Invalid value: "{configured}": must not be negative', _TERMINATION_DELAY)
    return go_duration_string(nanos) if nanos > 0 else None


def pod_clique_set_shell(dgd: DynamoGraphDeployment, settings: GroveSettings, namespace: str) -> dict[str, Any]:
    """The PCS with everything except cliques, scaling groups and claim templates."""
    labels = dict(dgd.spec.labels or {})
    labels[KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME] = dgd.name
    metadata: dict[str, Any] = {"name": pcs_name_for_dgd(dgd), "namespace": namespace, "labels": labels}
    annotations = dict(dgd.spec.annotations or {})
    queue = volcano_queue(dgd.annotations, settings)
    if queue:
        annotations[GROVE_ANNOTATION_VOLCANO_QUEUE] = queue
    if annotations:
        metadata["annotations"] = annotations
    template: dict[str, Any] = {
        "cliqueStartupType": CLIQUE_STARTUP_TYPE_ANY_ORDER,
        "headlessServiceConfig": {"publishNotReadyAddresses": True},
    }
    if dgd.spec.priority_class_name:
        template["priorityClassName"] = dgd.spec.priority_class_name
    delay = termination_delay(settings)
    if delay is not None:
        template["terminationDelay"] = delay
    topology = spec_topology_constraint(dgd.spec.topology_constraint)
    if topology is not None:
        template["topologyConstraint"] = topology
    template["cliques"] = []
    spec: dict[str, Any] = {"replicas": 1}
    strategy = update_strategy(dgd.annotations)
    if strategy is not None:
        spec["updateStrategy"] = strategy
    spec["template"] = template
    return k8s_object(GROVE_API_VERSION, POD_CLIQUE_SET_KIND, metadata, spec=spec)
