"""What a waiter watches for one graph: its workloads, named and grouped by component.

A rendered graph holds far more than its workloads (RBAC, ConfigMaps, Services). Readiness is
decided only by the objects the operator reads (readiness-lifecycle A3): a Deployment or
LeaderWorkerSet per component on the component pathway, a PodClique or PodCliqueScalingGroup
per component on the Grove pathway (listed under their PodCliqueSet), and in operator mode the
DynamoGraphDeployment or DynamoComponentDeployment custom resource itself. A
:class:`WatchTarget` is that reduced, JSON-friendly description, so it can travel as an input of
the readiness resource and be rebuilt by ``dynamo-pulumi wait`` from the same YAML.

``revision`` digests the full rendered workloads, so any change to what is deployed (a new
image, a replica count, a new worker generation) changes the readiness resource's inputs and
makes Pulumi run its ``update``, which waits again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

# The custom resources operator mode watches, and the modes, re-exported for the cluster code.
from dynamo_pulumi.api.v1beta1 import DCD_KIND as DCD_KIND
from dynamo_pulumi.api.v1beta1 import DGD_KIND as DGD_KIND
from dynamo_pulumi.floor.constants import (
    DYNAMO_API_VERSION_V1BETA1,
    GROVE_API_VERSION,
    KUBE_LABEL_DYNAMO_COMPONENT,
    KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME,
    LWS_API_VERSION,
    POD_CLIQUE_SET_KIND,
)
from dynamo_pulumi.floor.expansion import json_digest
from dynamo_pulumi.model.deploy_mode import MODES as MODES
from dynamo_pulumi.model.deploy_mode import Mode
from dynamo_pulumi.readiness._fields import dig, name_of, namespace_of
from dynamo_pulumi.readiness.deadline import DEFAULT_TIMEOUT_SECONDS
from dynamo_pulumi.readiness.grove import grove_components

#: (apiVersion, kind) of the workloads the component pathway renders.
COMPONENT_WORKLOADS: Final = frozenset({("apps/v1", "Deployment"), (LWS_API_VERSION, "LeaderWorkerSet")})


class WatchTarget(BaseModel):
    """One object whose live state decides part of the verdict.

    ``component`` is the DGD component it realises ("" for the DGD/DCD custom resource in
    operator mode); ``group`` is the aggregation entry it belongs to: the PodCliqueSet name for a
    Grove child, else the object's own aggregation name.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_version: str
    kind: str
    namespace: str
    name: str
    component: str = ""
    group: str = ""

    def as_input(self) -> dict[str, str]:
        """The JSON form carried in the readiness resource's inputs (stable key order)."""
        return self.model_dump()

    @classmethod
    def from_input(cls, value: Mapping[str, Any]) -> WatchTarget:
        return cls.model_validate(dict(value))


def _component_of(obj: Mapping[str, Any]) -> str:
    labels = dig(obj, "metadata", "labels") or {}
    template_labels = dig(obj, "spec", "template", "metadata", "labels") or {}
    return str(labels.get(KUBE_LABEL_DYNAMO_COMPONENT) or template_labels.get(KUBE_LABEL_DYNAMO_COMPONENT) or "")


def render_targets(objects: Iterable[Mapping[str, Any]], namespace: str) -> list[WatchTarget]:
    """The workloads among rendered objects, in rendered order (render mode)."""
    targets: list[WatchTarget] = []
    for obj in objects:
        api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
        ns = namespace_of(obj) or namespace
        if (api_version, kind) in COMPONENT_WORKLOADS:
            name = name_of(obj)
            targets.append(WatchTarget(api_version=api_version, kind=kind, namespace=ns, name=name,
                                       component=_component_of(obj), group=name))
        elif api_version == GROVE_API_VERSION and kind == POD_CLIQUE_SET_KIND:
            # The PodCliqueSet itself: its accepted revision tells a rolled-out child from one that
            # still runs the previous spec (see readiness.status.grove_revision_gap).
            targets.append(WatchTarget(api_version=api_version, kind=kind, namespace=ns, name=name_of(obj),
                                       group=name_of(obj)))
            targets.extend(
                WatchTarget(api_version=api_version, kind=child.kind, namespace=ns, name=child.name,
                            component=child.component, group=name_of(obj))
                for child in grove_components(obj)
            )
    return targets


def operator_targets(kind: str, name: str, namespace: str) -> list[WatchTarget]:
    """Operator mode: the DGD or standalone DCD custom resource is the one thing watched."""
    if kind not in (DGD_KIND, DCD_KIND):
        raise ValueError(f"operator mode watches a {DGD_KIND} or {DCD_KIND}, not {kind!r}")
    return [WatchTarget(api_version=DYNAMO_API_VERSION_V1BETA1, kind=kind, namespace=namespace, name=name, group=name)]


def revision(objects: Sequence[Mapping[str, Any]]) -> str:
    """A digest of what is deployed: :func:`~dynamo_pulumi.floor.expansion.json_digest` of the objects.

    Independent of key order; any value change changes it. 16 hex characters are plenty to
    tell revisions of one graph apart.
    """
    return json_digest(list(objects))


def is_workload(obj: Mapping[str, Any]) -> bool:
    """A component workload or a PodCliqueSet: what the readiness revision digests."""
    return (str(obj.get("apiVersion", "")), str(obj.get("kind", ""))) in COMPONENT_WORKLOADS or (
        obj.get("kind") == POD_CLIQUE_SET_KIND
    )


def pod_selector(kind: str, graph: str, component: str = "") -> str:
    """The label selector of a graph's pods: the graph label for a DGD, the component label for a
    standalone DCD (its pods belong to no graph)."""
    if kind == DCD_KIND:
        return f"{KUBE_LABEL_DYNAMO_COMPONENT}={component or graph}"
    return f"{KUBE_LABEL_DYNAMO_GRAPH_DEPLOYMENT_NAME}={graph}"


class WaitRequest(BaseModel):
    """Everything a waiter needs to know about one graph (no connection, no clock)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Mode = "render"
    kind: str = DGD_KIND
    graph: str
    namespace: str
    targets: tuple[WatchTarget, ...]
    timeout_seconds: float = float(DEFAULT_TIMEOUT_SECONDS)
    pod_selector: str = ""

    @property
    def label(self) -> str:
        return f"{self.kind} {self.namespace}/{self.graph}"
