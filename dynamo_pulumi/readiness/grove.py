"""Readiness of the Grove pathway: PodClique, PodCliqueScalingGroup and the PodCliqueSet wrapper.

The operator never asks a PodCliqueSet whether it is ready. For each DGD component it reads the
Grove child named ``<pcs>-0-<lower(component)>`` (a PodCliqueScalingGroup when the component
uses one, else a PodClique) and wraps all of them as one resource (``observePodCliqueReadiness``,
``observePCSGReadiness`` and ``evaluateGroveComponents`` in ``internal/dynamo/grove.go``; ERRATA
section 3, items 5-9). Each not-ready child also implies a DGD reason; the order of the checks
matters because a component can be, for instance, both schedule-gated and unready, and the
operator reports capacity first so that users look at the cluster, not at their pods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from dynamo_pulumi.floor.constants import (
    KUBE_LABEL_DYNAMO_COMPONENT,
    POD_CLIQUE_KIND,
    POD_CLIQUE_SCALING_GROUP_KIND,
)
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.model.pcs_naming import grove_component_resource_name
from dynamo_pulumi.readiness._fields import dig, find_condition, int_at, name_of, optional_int_at
from dynamo_pulumi.readiness.result import (
    INSUFFICIENT_CAPACITY,
    MIXED_NOT_READY_REASONS,
    OBSERVED_GENERATION_NIL_MESSAGE,
    PODS_NOT_READY,
    READY,
    RESOURCE_NOT_FOUND_MESSAGE,
    SOME_RESOURCES_ARE_NOT_READY,
    UPDATING,
    ReadinessResult,
    spec_not_yet_processed,
)

#: Grove condition on a PodClique (``constants.ConditionTypePodCliqueScheduled``).
POD_CLIQUE_SCHEDULED: Final = "PodCliqueScheduled"
#: Its capacity-shortfall reason (``constants.ConditionReasonInsufficientScheduledPods``).
INSUFFICIENT_SCHEDULED_PODS: Final = "InsufficientScheduledPods"
#: Grove condition on a PodCliqueScalingGroup (``constants.ConditionTypeMinAvailableBreached``).
MIN_AVAILABLE_BREACHED: Final = "MinAvailableBreached"
#: The legacy scheduling-shortfall reason Grove pairs with ``MinAvailableBreached=False``.
INSUFFICIENT_SCHEDULED_PCSG_REPLICAS: Final = "InsufficientScheduledPodCliqueScalingGroupReplicas"


def _not_ready(message: str, classification: str) -> ReadinessResult:
    return ReadinessResult(False, classification, message)


def _generation_gate(child: Mapping[str, Any] | None) -> ReadinessResult | None:
    """The three unclassifiable states shared by both child kinds, checked before anything else.

    A missing child, a child whose controller never reported ``observedGeneration``, and a child
    still describing an older spec cannot be diagnosed further: their replica counts are not about
    the current spec. All three imply ``some_resources_are_not_ready``.
    """
    if child is None:
        return _not_ready(RESOURCE_NOT_FOUND_MESSAGE, SOME_RESOURCES_ARE_NOT_READY)
    observed = optional_int_at(child, "status", "observedGeneration")
    if observed is None:
        return _not_ready(OBSERVED_GENERATION_NIL_MESSAGE, SOME_RESOURCES_ARE_NOT_READY)
    generation = int_at(child, "metadata", "generation")
    if observed < generation:
        return _not_ready(spec_not_yet_processed(generation, observed), SOME_RESOURCES_ARE_NOT_READY)
    return None


def _shortfall_condition(
    child: Mapping[str, Any], condition_type: str, reason: str
) -> Mapping[str, Any] | None:
    """The child's ``condition_type`` condition when it is ``False`` for the capacity ``reason``."""
    condition = find_condition(child, condition_type)
    if condition is not None and condition.get("status") == "False" and condition.get("reason") == reason:
        return condition
    return None


def _schedule_and_rollout_checks(
    desired: int, scheduled: int, updated: int, replicas: int
) -> ReadinessResult | None:
    """After the condition: a partial schedule (capacity), then unfinished rollouts (``updating``).

    Shared by both child kinds.
    """
    if 0 < scheduled < desired:
        return _not_ready(
            f"insufficient scheduled replicas: scheduled={scheduled}/{desired}", INSUFFICIENT_CAPACITY
        )
    if desired != updated:
        return _not_ready(f"desired={desired}, updated={updated}", UPDATING)
    if replicas != desired:
        return _not_ready(f"performing rolling update: desired={desired}, replicas={replicas}", UPDATING)
    return None


def pod_clique_ready(pod_clique: Mapping[str, Any] | None) -> ReadinessResult:
    """``observePodCliqueReadiness``: the readiness of one single-node component's PodClique.

    Ready when ``spec.replicas`` is 0, or when ``status.replicas``, ``updatedReplicas`` and
    ``readyReplicas`` all equal it; the full-ready test runs before the capacity diagnosis so that
    a healthy clique whose ``scheduledReplicas`` Grove left at 0 is not called short of capacity.
    Not ready, in order: schedule-gated pods, ``PodCliqueScheduled=False`` with
    ``InsufficientScheduledPods``, or ``0 < scheduled < desired`` (``insufficient_capacity``); then
    ``updated != desired`` or ``replicas != desired`` (``updating``); else ``pods_not_ready``.
    """
    gate = _generation_gate(pod_clique)
    if gate is not None:
        return gate
    desired = int_at(pod_clique, "spec", "replicas")
    replicas = int_at(pod_clique, "status", "replicas")
    updated = int_at(pod_clique, "status", "updatedReplicas")
    ready = int_at(pod_clique, "status", "readyReplicas")
    scheduled = int_at(pod_clique, "status", "scheduledReplicas")
    gated = int_at(pod_clique, "status", "scheduleGatedReplicas")
    if desired == 0 or replicas == updated == ready == desired:
        return READY
    if gated > 0:
        return _not_ready(f"schedule-gated replicas: {gated}", INSUFFICIENT_CAPACITY)
    condition = _shortfall_condition(pod_clique, POD_CLIQUE_SCHEDULED, INSUFFICIENT_SCHEDULED_PODS)
    if condition is not None:
        message = f"scheduling condition {condition.get('reason', '')}: {condition.get('message', '')}"
        return _not_ready(message, INSUFFICIENT_CAPACITY)
    later = _schedule_and_rollout_checks(desired, scheduled, updated, replicas)
    if later is not None:
        return later
    return _not_ready(f"scheduled but ready={ready}/{desired}", PODS_NOT_READY)


def pod_clique_scaling_group_ready(pcsg: Mapping[str, Any] | None) -> ReadinessResult:
    """``observePCSGReadiness``: the readiness of a multinode (or scaling-group) component.

    The same gates as a PodClique with ``availableReplicas`` (a group replica is available when
    every member clique has ``minAvailable`` ready pods) in place of ``readyReplicas``. The
    capacity signals are ``MinAvailableBreached=False`` with the legacy scheduling-shortfall reason
    (Grove pairs ``True`` with the *availability* reason, which is not a capacity problem) and a
    partial ``scheduledReplicas``; PCSGs have no schedule-gated count.
    """
    gate = _generation_gate(pcsg)
    if gate is not None:
        return gate
    desired = int_at(pcsg, "spec", "replicas")
    replicas = int_at(pcsg, "status", "replicas")
    updated = int_at(pcsg, "status", "updatedReplicas")
    available = int_at(pcsg, "status", "availableReplicas")
    scheduled = int_at(pcsg, "status", "scheduledReplicas")
    if desired == 0 or replicas == updated == available == desired:
        return READY
    condition = _shortfall_condition(pcsg, MIN_AVAILABLE_BREACHED, INSUFFICIENT_SCHEDULED_PCSG_REPLICAS)
    if condition is not None:
        message = f"min-available breached ({condition.get('reason', '')}): {condition.get('message', '')}"
        return _not_ready(message, INSUFFICIENT_CAPACITY)
    later = _schedule_and_rollout_checks(desired, scheduled, updated, replicas)
    if later is not None:
        return later
    return _not_ready(f"scheduled but available={available}/{desired}", PODS_NOT_READY)


# --- the PodCliqueSet wrapper ------------------------------------------------------------------


@record
class GroveComponent:
    """One DGD component as Grove realises it: the child object the operator reads for it."""

    component: str
    kind: str
    name: str


def grove_components(pcs: Mapping[str, Any]) -> list[GroveComponent]:
    """The Grove children of a rendered PodCliqueSet, one per DGD component, in component order.

    The operator walks ``dgd.spec.components``; we have only the PCS, so we recover the components
    from the clique templates' ``nvidia.com/dynamo-component`` label in template order (the
    renderer emits cliques in component order). A component is read as a PodCliqueScalingGroup
    when any of its cliques belongs to a scaling group (multinode roles, inter-pod GMS,
    ``forceScalingGroup``), which is when the operator's ``UsesPCSG`` holds.
    """
    pcs_name = name_of(pcs)
    template = dig(pcs, "spec", "template") or {}
    grouped: dict[str, str] = {}
    for group in template.get("podCliqueScalingGroups") or []:
        for clique_name in group.get("cliqueNames") or []:
            grouped[clique_name] = group.get("name", "")
    order: list[str] = []
    uses_group: dict[str, bool] = {}
    for clique in template.get("cliques") or []:
        clique_name = clique.get("name", "")
        group = grouped.get(clique_name)
        component = (clique.get("labels") or {}).get(KUBE_LABEL_DYNAMO_COMPONENT) or group or clique_name
        if component not in uses_group:
            order.append(component)
            uses_group[component] = False
        uses_group[component] = uses_group[component] or group is not None
    return [
        GroveComponent(
            component=component,
            kind=POD_CLIQUE_SCALING_GROUP_KIND if uses_group[component] else POD_CLIQUE_KIND,
            name=grove_component_resource_name(pcs_name, component),
        )
        for component in order
    ]


@record
class GroveComponentReadiness:
    """A component's child and the verdict on it."""

    component: GroveComponent
    result: ReadinessResult


def child_ready(kind: str, child: Mapping[str, Any] | None) -> ReadinessResult:
    """Dispatch to the PodClique or PodCliqueScalingGroup predicate."""
    if kind == POD_CLIQUE_SCALING_GROUP_KIND:
        return pod_clique_scaling_group_ready(child)
    if kind == POD_CLIQUE_KIND:
        return pod_clique_ready(child)
    raise ValueError(f"not a Grove child kind: {kind!r}")


def merge_classifications(classifications: Sequence[str]) -> str:
    """The DGD reason several not-ready components imply together.

    All agree: that reason; any disagreement: ``mixed_not_ready_reasons``; none: empty.
    """
    merged = ""
    for classification in classifications:
        if merged == "":
            merged = classification
        elif classification != merged:
            merged = MIXED_NOT_READY_REASONS
    return merged


def pod_clique_set_ready(components: Sequence[GroveComponentReadiness]) -> ReadinessResult:
    """``evaluateGroveComponents``: the PodCliqueSet as one resource of the DGD aggregation.

    Ready when every component is. Otherwise the message lists ``<component>: <reason>`` for
    each not-ready component in component order, joined by ``"; "``, and the reason is the merged
    classification that replaces the DGD's generic not-ready reason.
    """
    not_ready = [c for c in components if not c.result.ready]
    if not not_ready:
        return READY
    message = "; ".join(f"{c.component.component}: {c.result.message}" for c in not_ready)
    return ReadinessResult(False, merge_classifications([c.result.reason for c in not_ready]), message)


# --- revision cut-over (ERRATA 3.8-3.9) --------------------------------------------------------


def accepted_pcs_revision(pcs: Mapping[str, Any] | None) -> str | None:
    """The PCS revision Grove has accepted: ``status.currentGenerationHash``, but only once
    ``status.observedGeneration`` equals ``metadata.generation`` (a stale hash names the previous
    spec). None while stale, missing or unpublished.
    """
    if pcs is None:
        return None
    observed = optional_int_at(pcs, "status", "observedGeneration")
    if observed is None or observed != int_at(pcs, "metadata", "generation"):
        return None
    revision = dig(pcs, "status", "currentGenerationHash")
    return None if revision is None else str(revision)


def child_completed_revision(child: Mapping[str, Any] | None, accepted_revision: str | None) -> bool:
    """Has this PodClique/PCSG finished rolling out the accepted PCS revision?

    The operator switches workers to the new runtime namespace only when every worker child
    passes this: generation observed, ``currentPodCliqueSetGenerationHash`` equal to the accepted
    revision, ``replicas == updatedReplicas == spec.replicas``, and no update in progress (either
    no ``updateProgress`` at all, the initial realisation, or one with ``updateEndedAt`` set).
    Readiness alone is not enough for a waiting provider: a ready child may still run the old pods.
    """
    if child is None or accepted_revision is None:
        return False
    observed = optional_int_at(child, "status", "observedGeneration")
    if observed is None or observed < int_at(child, "metadata", "generation"):
        return False
    if dig(child, "status", "currentPodCliqueSetGenerationHash") != accepted_revision:
        return False
    desired = int_at(child, "spec", "replicas")
    if (
        int_at(child, "status", "replicas") != desired
        or int_at(child, "status", "updatedReplicas") != desired
    ):
        return False
    progress = dig(child, "status", "updateProgress")
    return progress is None or dig(progress, "updateEndedAt") is not None
