"""The PodCliqueSet object around the cliques (rendering-grove sections 2.1-2.2).

One PCS per graph, always ``replicas: 1`` (the graph is one gang set; components scale inside it).
Its name is ``PCSNameForDGD`` (the DGD name unless Grove's 45-character budget forces a hashed
prefix). Labels are the graph's ``spec.labels`` plus the graph-name label; annotations are the
graph's ``spec.annotations``. The template always publishes not-ready addresses on the headless
Service (multinode launchers resolve peers before they are ready) and starts cliques in any order
unless a component needs explicit ordering.
"""

from __future__ import annotations

import re
from typing import Any

from dynamo_pulumi.api.v1beta1 import DynamoGraphDeployment
from dynamo_pulumi.constants import (
    GROVE_ANNOTATION_VOLCANO_QUEUE,
    GROVE_API_VERSION,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    POD_CLIQUE_SET_KIND,
)
from dynamo_pulumi.errors import RenderError
from dynamo_pulumi.pcs_naming import pcs_name_for_dgd
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render.grove.schedulers import volcano_queue
from dynamo_pulumi.render.grove.startup_order import CLIQUE_STARTUP_TYPE_ANY_ORDER
from dynamo_pulumi.render.grove.topology import spec_topology_constraint
from dynamo_pulumi.render.grove.update_strategy import update_strategy
from dynamo_pulumi.render.objects.common import k8s_object

#: ``orchestrators.grove.terminationDelay`` default (15 minutes), as Go serialises it.
DEFAULT_GROVE_TERMINATION_DELAY = "15m0s"

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_go_duration(text: str) -> float:
    """Seconds in a Go duration string (``15m``, ``1h30m``, ``90s``); RenderError otherwise."""
    value = text.strip()
    if value in ("0", ""):
        return 0.0
    parts = _DURATION_PART.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        raise RenderError(f"invalid duration {text!r}", "orchestrators.grove.terminationDelay")
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)


def format_go_duration(seconds: float) -> str:
    """Go's ``Duration.String`` for whole seconds: ``15m0s``, ``1h0m0s``, ``45s``."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


def termination_delay(platform: Platform) -> str | None:
    """The configured Grove termination delay, or None when it is zero (then omitted).

    Read from ``orchestrators.grove.terminationDelay``; unset keeps the operator's default.
    """
    configured = platform.orchestrators.grove.termination_delay
    if configured is None:
        return DEFAULT_GROVE_TERMINATION_DELAY
    seconds = parse_go_duration(str(configured))
    return format_go_duration(seconds) if seconds > 0 else None


def pod_clique_set_shell(dgd: DynamoGraphDeployment, platform: Platform, namespace: str) -> dict[str, Any]:
    """The PCS with everything except cliques, scaling groups and claim templates."""
    labels = dict(dgd.spec.labels or {})
    labels[KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME] = dgd.name
    metadata: dict[str, Any] = {"name": pcs_name_for_dgd(dgd), "namespace": namespace, "labels": labels}
    annotations = dict(dgd.spec.annotations or {})
    queue = volcano_queue(dgd.annotations, platform)
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
    delay = termination_delay(platform)
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
