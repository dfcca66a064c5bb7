"""Readiness of a graph the operator expands: read from the DGD (or DCD) custom resource itself.

In operator mode we create the custom resource and the operator creates the children, so the
operator's own status is the verdict (readiness-lifecycle A1, A4 "practical readiness
predicate"): for a DynamoGraphDeployment, the controller has observed the current generation,
the ``Ready`` condition is True (and, when it carries ``observedGeneration``, describes this
generation), ``status.state`` is ``successful``, and no worker rolling update is Pending or
InProgress. For a standalone DynamoComponentDeployment: observed generation caught up and
``Available=True``. A stale status describes an older spec and can never count as ready.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from dynamo_pulumi.readiness._fields import dig, find_condition, int_at, optional_int_at
from dynamo_pulumi.readiness.object_status import CURRENT, ObjectState, ObjectStatus
from dynamo_pulumi.readiness.result import (
    READY,
    RESOURCE_NOT_FOUND_MESSAGE,
    ROLLING_UPDATE_IN_PROGRESS,
    SOME_RESOURCES_ARE_NOT_READY,
    ReadinessResult,
    spec_not_yet_processed,
)
from dynamo_pulumi.readiness.status import (
    READY_CONDITION,
    STATE_FAILED,
    STATE_PENDING,
    STATE_SUCCESSFUL,
    ComponentState,
    GraphStatus,
)
from dynamo_pulumi.readiness.targets import DCD_KIND, DGD_KIND
from dynamo_pulumi.readiness.workloads import dcd_ready

#: ``status.rollingUpdate.phase`` values during which the graph is not ready.
ROLLOUT_ACTIVE_PHASES: Final = frozenset({"Pending", "InProgress"})
INITIALIZING: Final = "initializing"
#: ``Ready`` reasons the operator writes together with ``reconcile.TerminalError`` (it stops
#: retrying; only a spec change, which bumps the generation, reconciles again):
#: ``dynamographdeployment_controller.go`` (a stored workload provider it does not support) and
#: ``dgd_grove_program.go`` (the stored provider, Grove, is disabled). Every other ``failed`` is
#: requeued with backoff and may recover, so waiting goes on (docs/READINESS.md).
TERMINAL_REASONS: Final = frozenset({"unsupported_workload_provider", "selected_workload_provider_unavailable"})


def _condition_generation(cr: Mapping[str, Any]) -> int | None:
    return optional_int_at(find_condition(cr, READY_CONDITION), "observedGeneration")


def _stale(cr: Mapping[str, Any]) -> ReadinessResult | None:
    """Has the operator not yet reconciled this generation? Its ``Fail()`` writes the failed
    generation only on the ``Ready`` condition (``status.observedGeneration`` keeps the last
    success, or stays unset after a first reconcile that fails), so either one counts."""
    generation = int_at(cr, "metadata", "generation")
    observed = int_at(cr, "status", "observedGeneration")
    if generation in (observed, _condition_generation(cr)):
        return None
    return ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, spec_not_yet_processed(generation, observed))


def _terminating(kind: str) -> ReadinessResult:
    return ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, f"{kind} is being deleted (deletionTimestamp set)")


def _not_ready_condition(dgd: Mapping[str, Any], condition: Mapping[str, Any], generation: int) -> ReadinessResult | None:
    """The Ready condition's own verdict when it is for an older generation or not True; a failed
    reconcile is reported before a rolling update it interrupted."""
    reason = str(condition.get("reason", "") or SOME_RESOURCES_ARE_NOT_READY)
    message = str(condition.get("message", ""))
    failed = dig(dgd, "status", "state") == STATE_FAILED and condition.get("status") != "True"
    phase = dig(dgd, "status", "rollingUpdate", "phase")
    if phase in ROLLOUT_ACTIVE_PHASES and not failed:
        return ReadinessResult(False, ROLLING_UPDATE_IN_PROGRESS, message or f"rolling update {phase}")
    condition_generation = optional_int_at(condition, "observedGeneration")
    if condition_generation is not None and condition_generation != generation:
        return ReadinessResult(
            False, SOME_RESOURCES_ARE_NOT_READY, spec_not_yet_processed(generation, condition_generation)
        )
    if condition.get("status") != "True":
        return ReadinessResult(False, reason, message or "Ready condition is not True")
    return None


def dgd_ready(dgd: Mapping[str, Any] | None) -> ReadinessResult:
    """The DGD predicate, worded with the operator's own reason and message when not ready.

    Ready needs all of: not being deleted, ``status.observedGeneration`` and the ``Ready``
    condition's (when set) equal to ``metadata.generation``, no rolling update Pending or
    InProgress, ``Ready=True`` and ``state: successful``. A failed reconcile of the current
    generation is reported with its reason and message (not as "spec not yet processed").
    """
    if dgd is None:
        return ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, RESOURCE_NOT_FOUND_MESSAGE)
    if dig(dgd, "metadata", "deletionTimestamp"):
        return _terminating(DGD_KIND)
    stale = _stale(dgd)
    if stale is not None:
        return stale
    condition = find_condition(dgd, READY_CONDITION) or {}
    generation = int_at(dgd, "metadata", "generation")
    not_ready = _not_ready_condition(dgd, condition, generation)
    if not_ready is not None:
        return not_ready
    reason = str(condition.get("reason", "") or SOME_RESOURCES_ARE_NOT_READY)
    observed = int_at(dgd, "status", "observedGeneration")
    if observed != generation:
        return ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, spec_not_yet_processed(generation, observed))
    state = dig(dgd, "status", "state")
    if state != STATE_SUCCESSFUL:
        return ReadinessResult(False, reason, f"state is {state or INITIALIZING!s}")
    return ReadinessResult(True, reason, str(condition.get("message", "")))


def terminal_reason(dgd: Mapping[str, Any] | None) -> str:
    """The message of a failure the operator will not retry ("" otherwise): ``state: failed`` with
    a :data:`TERMINAL_REASONS` reason on a ``Ready`` condition of the current generation."""
    if dgd is None or dig(dgd, "status", "state") != STATE_FAILED:
        return ""
    condition = find_condition(dgd, READY_CONDITION) or {}
    if condition.get("reason") not in TERMINAL_REASONS:
        return ""
    if _condition_generation(dgd) != int_at(dgd, "metadata", "generation"):
        return ""
    return f"{condition.get('reason')}: {condition.get('message', '')}".rstrip(": ")


def _desired(cr: Mapping[str, Any] | None, component: str) -> int | None:
    """``replicas`` of the component in the CR's spec (default 1), None when it is not listed."""
    if dig(cr, "kind") == DCD_KIND:
        return int_at(cr, "spec", "replicas", default=1)
    for entry in dig(cr, "spec", "components") or []:
        if isinstance(entry, Mapping) and entry.get("name") == component:
            value = entry.get("replicas")
            return 1 if value is None else int(value)
    return None


def _component_states(
    cr: Mapping[str, Any] | None, statuses: Mapping[str, Any], verdict: ReadinessResult, status: ObjectStatus
) -> tuple[ComponentState, ...]:
    """``status.components`` as component states. A component is ready when the graph is, or when
    its desired replicas are all updated and ready (available for a scaling group); a not-ready one
    carries the graph's reason and message, the operator's own words."""
    states = []
    for name in sorted(statuses):
        entry = statuses[name] or {}
        replicas = int(entry.get("replicas") or 0)
        desired = _desired(cr, name)
        desired = replicas if desired is None else desired
        ready = verdict.ready or _components_ready(entry, desired)
        states.append(
            ComponentState(
                component=name,
                kind=str(entry.get("componentKind", "")),
                names=tuple(entry.get("componentNames") or ()),
                desired=desired,
                replicas=replicas,
                updated=int(entry.get("updatedReplicas") or 0),
                ready_replicas=optional_int_at(entry, "readyReplicas"),
                available=optional_int_at(entry, "availableReplicas"),
                result=READY if ready else verdict,
                status=CURRENT if ready else status,
            )
        )
    return tuple(states)


def _components_ready(entry: Mapping[str, Any], desired: int) -> bool:
    counted = entry.get("readyReplicas", entry.get("availableReplicas"))
    replicas = int(entry.get("replicas") or 0)
    return replicas == desired and int(entry.get("updatedReplicas") or 0) >= desired and int(counted or 0) >= desired
def _object_status(cr: Mapping[str, Any] | None, verdict: ReadinessResult, state: str) -> ObjectStatus:
    """The custom resource's kstatus-shaped state: Failed (failing, still waited on) while the
    operator says ``failed``, Terminating while it is being deleted."""
    if verdict.ready:
        return CURRENT
    if cr is None:
        return ObjectStatus(ObjectState.NOT_FOUND, verdict.message)
    if dig(cr, "metadata", "deletionTimestamp"):
        return ObjectStatus(ObjectState.TERMINATING, verdict.message)
    failed = state == STATE_FAILED and _stale(cr) is None
    return ObjectStatus(ObjectState.FAILED if failed else ObjectState.IN_PROGRESS, verdict.message, verdict.reason)


def operator_status(kind: str, cr: Mapping[str, Any] | None) -> GraphStatus:
    """The graph status read off the custom resource (``kind`` is DGD or DCD)."""
    if kind == DCD_KIND:
        verdict = dcd_ready(cr)
        if cr is not None and dig(cr, "metadata", "deletionTimestamp"):
            verdict = _terminating(DCD_KIND)
        entries = {str(dig(cr, "spec", "name") or dig(cr, "metadata", "name") or ""): dig(cr, "status", "component")}
        entries = {k: v for k, v in entries.items() if isinstance(v, Mapping)}
        state = STATE_SUCCESSFUL if verdict.ready else STATE_PENDING
        terminal = ""
    else:
        verdict = dgd_ready(cr)
        entries = dig(cr, "status", "components") or {}
        state = str(dig(cr, "status", "state") or (INITIALIZING if cr is not None else STATE_PENDING))
        terminal = terminal_reason(cr)
    status = _object_status(cr, verdict, state)
    components = _component_states(cr, entries, verdict, status)
    return GraphStatus(state=state, ready=verdict, components=components, terminal=terminal, object_status=status)
