"""The graph's status as the operator would write it, computed from live workloads.

A DynamoGraphDeployment deployed by the operator carries ``status.state``, a ``Ready``
condition and ``status.components[name]`` (readiness-lifecycle A1, A4). When we deploy the
operator's output ourselves (render mode) nobody writes that status, so the readiness resource
computes the same block from the same facts and exposes it as its outputs; ``dynamo-pulumi
status`` prints it. Pure: live objects come through an :class:`ObjectReader`.

Stricter than the operator: a workload the operator would call ready must also be *Current*
in kstatus' sense (:mod:`.object_status`: not terminating, generation observed, every desired
replica updated and available, no old pod left, ``Progressing`` complete), because the operator's
own checks pass on the old pods during a rollout (ERRATA 3) and on a Deployment scaled to 0 before
its controller acted; a waiter that returned then would let Pulumi move on before the new
generation serves. The rules, per kind, are tabled in docs/READINESS.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from dynamo_pulumi.floor.constants import POD_CLIQUE_KIND, POD_CLIQUE_SCALING_GROUP_KIND, POD_CLIQUE_SET_KIND
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.readiness._fields import dig, int_at, name_of, optional_int_at
from dynamo_pulumi.readiness.component import ComponentState
from dynamo_pulumi.readiness.graph import LWS_NAME_SUFFIX, ResourceReadiness, aggregate
from dynamo_pulumi.readiness.grove import (
    GroveComponent,
    GroveComponentReadiness,
    accepted_pcs_revision,
    child_completed_revision,
    child_ready,
    pod_clique_set_ready,
)
from dynamo_pulumi.readiness.object_status import CURRENT, ObjectState, ObjectStatus, workload_status
from dynamo_pulumi.readiness.readers import ObjectReader
from dynamo_pulumi.readiness.result import (
    SOME_RESOURCES_ARE_NOT_READY,
    UPDATING,
    ReadinessResult,
    spec_not_yet_processed,
)
from dynamo_pulumi.readiness.targets import WatchTarget
from dynamo_pulumi.readiness.workloads import deployment_ready, leader_worker_set_ready, workload_as_dcd

READY_CONDITION: Final = "Ready"
STATE_SUCCESSFUL: Final = "successful"
STATE_PENDING: Final = "pending"
STATE_FAILED: Final = "failed"

__all__ = ["ComponentState", "GraphStatus", "changed_components", "grove_revision_gap", "render_status"]


@record
class GraphStatus:
    """``status.state``, the ``Ready`` condition and per-component states."""

    state: str
    ready: ReadinessResult
    components: tuple[ComponentState, ...] = ()
    #: Set when waiting cannot succeed without a spec change (a failure the operator will not retry).
    terminal: str = ""
    #: Operator mode: the custom resource's kstatus-shaped state (None in render mode).
    object_status: ObjectStatus | None = None

    @property
    def is_ready(self) -> bool:
        return self.ready.ready

    def ready_condition(self) -> dict[str, str]:
        return {
            "type": READY_CONDITION,
            "status": "True" if self.ready.ready else "False",
            "reason": self.ready.reason,
            "message": self.ready.message,
        }

    def components_status(self) -> dict[str, dict[str, Any]]:
        return {c.component: c.as_status() for c in self.components}

    def not_ready(self) -> list[ComponentState]:
        return [c for c in self.components if not c.ready]

    def outputs(self) -> dict[str, Any]:
        """The readiness resource's status outputs (everything but ``drift``)."""
        return {"state": self.state, "ready": self.ready_condition(), "components": self.components_status()}


def grove_revision_gap(pcs: Mapping[str, Any] | None, child: Mapping[str, Any] | None) -> str:
    """Why a Grove child the operator calls ready still runs an older PodCliqueSet spec ("" if not).

    Right after an in-place PodCliqueSet update its children still describe the previous spec
    and look ready; the operator tells them apart by revision (ERRATA 3.8-3.9): the PCS must have
    observed its generation, and each child must report the accepted revision hash, with every
    replica updated and no update in progress. A Grove that publishes no revision hashes is judged
    on generations alone.
    """
    if pcs is None:
        return "PodCliqueSet not found"
    generation = int_at(pcs, "metadata", "generation")
    observed = optional_int_at(pcs, "status", "observedGeneration")
    if observed is None or observed != generation:
        return f"PodCliqueSet {spec_not_yet_processed(generation, observed or 0)}"
    accepted = accepted_pcs_revision(pcs)
    if accepted is None or dig(child, "status", "currentPodCliqueSetGenerationHash") is None:
        return ""
    if not child_completed_revision(child, accepted):
        return f"rolling out PodCliqueSet revision {accepted}"
    return ""


def _updating(gap: str) -> ReadinessResult:
    """A verdict the operator calls ready, held back while the rollout ``gap`` remains."""
    return ReadinessResult(False, UPDATING, gap, gap)


def _held(status: ObjectStatus) -> ReadinessResult:
    """A workload the operator calls ready that is not Current: worded as a not-ready DCD would be,
    with the workload's state as the message (``ProgressDeadlineExceeded: ...``)."""
    reason = UPDATING if status.state is ObjectState.IN_PROGRESS else SOME_RESOURCES_ARE_NOT_READY
    return ReadinessResult(False, reason, str(status), str(status))


def _workload_verdict(target: WatchTarget, live: Mapping[str, Any] | None) -> tuple[ReadinessResult, ObjectStatus]:
    """The operator's verdict on a Deployment or LWS, held back until the workload is Current."""
    status = workload_status(target.kind, live)
    if target.kind == "Deployment":
        verdict = workload_as_dcd(deployment_ready(live))
    else:
        verdict = workload_as_dcd(leader_worker_set_ready(live))
    if verdict.ready and not status.current:
        verdict = _held(status)
    return verdict, status


def _grove_verdict(
    target: WatchTarget, live: Mapping[str, Any] | None, pcs: Mapping[str, Any] | None, has_pcs: bool
) -> tuple[ReadinessResult, ObjectStatus]:
    """A Grove child: the operator's verdict, held back while terminating or on an older revision."""
    verdict = child_ready(target.kind, live)
    status = workload_status(target.kind, live) if live is not None else CURRENT
    if status.current and pcs is not None and dig(pcs, "metadata", "deletionTimestamp"):
        status = ObjectStatus(ObjectState.TERMINATING, f"PodCliqueSet {name_of(pcs)} is being deleted (deletionTimestamp set)")
    if verdict.ready and not status.current:
        return _held(status), status
    gap = grove_revision_gap(pcs, live) if verdict.ready and has_pcs else ""
    if gap:
        return _updating(gap), ObjectStatus(ObjectState.IN_PROGRESS, gap)
    return verdict, status


def _component_state(
    target: WatchTarget, live: Mapping[str, Any] | None, verdict: ReadinessResult, status: ObjectStatus
) -> ComponentState:
    """The counts the operator's ``ComponentReplicaStatus`` reports for this kind: a PCSG has no
    ready count, only Deployments and PCSGs an available one; Grove children desire 0 by default."""
    kind = target.kind
    default_desired = 0 if kind in (POD_CLIQUE_KIND, POD_CLIQUE_SCALING_GROUP_KIND) else 1
    ready = None if kind == POD_CLIQUE_SCALING_GROUP_KIND else int_at(live, "status", "readyReplicas")
    available = int_at(live, "status", "availableReplicas") if kind in ("Deployment", POD_CLIQUE_SCALING_GROUP_KIND) else None
    return ComponentState(
        component=target.component or target.name,
        kind=kind,
        names=(target.name,),
        desired=int_at(live, "spec", "replicas", default=default_desired) if live else default_desired,
        replicas=int_at(live, "status", "replicas"),
        updated=int_at(live, "status", "updatedReplicas"),
        ready_replicas=ready,
        available=available,
        result=verdict,
        status=status,
    )


def _aggregation_name(target: WatchTarget) -> str:
    if target.kind == "LeaderWorkerSet" and target.group.endswith(LWS_NAME_SUFFIX):
        return target.group[: -len(LWS_NAME_SUFFIX)]
    return target.group or target.name


def render_status(targets: Sequence[WatchTarget], reader: ObjectReader) -> GraphStatus:
    """The DGD status for rendered workloads, judged on their live objects (render mode)."""
    components: list[ComponentState] = []
    resources: list[ResourceReadiness] = []
    grove: dict[str, list[GroveComponentReadiness]] = {}
    sets = {
        t.group: reader.get(t.api_version, t.kind, t.namespace, t.name) for t in targets if t.kind == POD_CLIQUE_SET_KIND
    }
    for target in targets:
        if target.kind == POD_CLIQUE_SET_KIND:
            continue
        live = reader.get(target.api_version, target.kind, target.namespace, target.name)
        if target.kind in (POD_CLIQUE_KIND, POD_CLIQUE_SCALING_GROUP_KIND):
            verdict, status = _grove_verdict(target, live, sets.get(target.group), target.group in sets)
            child = GroveComponent(component=target.component, kind=target.kind, name=target.name)
            grove.setdefault(target.group, []).append(GroveComponentReadiness(child, verdict))
        else:
            verdict, status = _workload_verdict(target, live)
            resources.append(ResourceReadiness(_aggregation_name(target), target.kind, verdict))
        components.append(_component_state(target, live, verdict, status))
    for pcs_name, children in grove.items():
        resources.append(
            ResourceReadiness(pcs_name, POD_CLIQUE_SET_KIND, pod_clique_set_ready(children), tuple(children))
        )
    verdict = aggregate(resources)
    state = STATE_SUCCESSFUL if verdict.ready else STATE_PENDING
    return GraphStatus(state=state, ready=verdict, components=tuple(components))


def changed_components(before: GraphStatus | None, after: GraphStatus) -> list[ComponentState]:
    """Components whose counts or verdict differ from the previous pass (all on the first)."""
    if before is None:
        return list(after.components)
    previous = {c.component: c for c in before.components}
    return [c for c in after.components if previous.get(c.component) != c]

