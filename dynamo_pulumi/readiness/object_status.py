"""One object's rollout state, kstatus-shaped: a state from a small enum and a message.

The operator's predicates (:mod:`.workloads`, :mod:`.grove`) answer "would the operator call
this ready?". That is not enough for a waiter: the operator calls a Deployment scaled to 0 ready
before its controller has seen the change, ignores ``metadata.deletionTimestamp`` and never reads
the ``Progressing`` condition, so it can neither say *why* a rollout stalled nor notice that the
replicas it counts belong to the previous generation. kubectl (``rollout status``),
pulumi-kubernetes (``await/deployment.go``) and kstatus (cli-utils ``pkg/kstatus/status``) each
read more; this module reads what they read and keeps the strictest "ready" (docs/READINESS.md).

Shape, as in kstatus: the generic rules first (not found, terminating, generation not observed),
then one function per kind. A waiter then needs only "all Current?"; :attr:`ObjectState.FAILED`
is *failing* (a reason worth showing, e.g. ``ProgressDeadlineExceeded``), never terminal: a model
that loads for 15 minutes passes the Deployment's 600 s progress deadline and then recovers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from dynamo_pulumi.floor.records import record
from dynamo_pulumi.readiness._fields import dig, find_condition, int_at, optional_int_at

#: ``spec.progressDeadlineSeconds`` value with which the Deployment controller writes no
#: ``Progressing`` condition at all (``util.HasProgressDeadline``).
NO_PROGRESS_DEADLINE: Final = 2**31 - 1
#: Deployment annotation naming the revision of the active ReplicaSet.
REVISION_ANNOTATION: Final = "deployment.kubernetes.io/revision"
#: ``Progressing`` reasons of the Deployment controller (``pkg/controller/deployment/util``).
NEW_RS_AVAILABLE: Final = "NewReplicaSetAvailable"
PROGRESS_DEADLINE_EXCEEDED: Final = "ProgressDeadlineExceeded"


class ObjectState(StrEnum):
    """kstatus' states, minus ``Unknown`` (we never compute a status we cannot read)."""

    CURRENT = "Current"
    IN_PROGRESS = "InProgress"
    #: Failing: the controller reports a problem; we show it and keep waiting.
    FAILED = "Failed"
    TERMINATING = "Terminating"
    NOT_FOUND = "NotFound"


@record
class ObjectStatus:
    """One object's state, the message a user reads and, when Kubernetes gave one, its reason."""

    state: ObjectState
    message: str = ""
    reason: str = ""

    @property
    def current(self) -> bool:
        return self.state is ObjectState.CURRENT

    def __str__(self) -> str:
        if self.reason and self.message:
            return f"{self.reason}: {self.message}"
        return self.message or self.reason or str(self.state)


CURRENT: Final = ObjectStatus(ObjectState.CURRENT)


def _in_progress(message: str, reason: str = "") -> ObjectStatus:
    return ObjectStatus(ObjectState.IN_PROGRESS, message, reason)


def generic_status(kind: str, obj: Mapping[str, Any] | None, *, absent_generation_is_zero: bool = False) -> ObjectStatus | None:
    """The rules every kind shares, checked before the kind's own (kstatus ``checkGenericProperties``).

    Not found; ``metadata.deletionTimestamp`` set (terminating: its pods are going away, so it
    can never count as ready); ``status.observedGeneration`` behind ``metadata.generation`` (the
    counts describe an older spec). kstatus skips the generation rule when the status has no
    ``observedGeneration``; kubectl reads a missing one as 0. ``absent_generation_is_zero``
    selects kubectl's stricter reading, for kinds whose controller always writes the field (a
    Deployment); an LWS release that predates the field would otherwise never be ready.
    None when no generic rule decides.
    """
    if obj is None:
        return ObjectStatus(ObjectState.NOT_FOUND, f"{kind} not found")
    if dig(obj, "metadata", "deletionTimestamp"):
        return ObjectStatus(ObjectState.TERMINATING, f"{kind} is being deleted (deletionTimestamp set)")
    generation = int_at(obj, "metadata", "generation")
    observed = optional_int_at(obj, "status", "observedGeneration")
    if observed is None and absent_generation_is_zero:
        observed = 0
    if observed is not None and observed < generation:
        return _in_progress(f"{kind} generation {generation} not yet observed (observedGeneration {observed})")
    return None


def _progressing(deployment: Mapping[str, Any]) -> ObjectStatus | None:
    """The ``Progressing`` condition when it reports a problem: the deadline passed, or any False."""
    condition = find_condition(deployment, "Progressing")
    if condition is None:
        return None
    reason = str(condition.get("reason") or "")
    if reason == PROGRESS_DEADLINE_EXCEEDED or condition.get("status") == "False":
        return ObjectStatus(ObjectState.FAILED, str(condition.get("message") or "").strip(), reason or "Progressing=False")
    return None


def _needs_new_rs_available(deployment: Mapping[str, Any]) -> bool:
    """Must ``Progressing`` say ``NewReplicaSetAvailable`` before the Deployment counts as ready?

    kstatus requires it whenever a progress deadline is set (the API server defaults it to 600 s,
    so always in practice); with no deadline the controller writes no ``Progressing`` condition,
    so requiring it would wait forever. pulumi-kubernetes requires it from revision 2 on (a
    rollout, not a first create); we take that too when the deadline field is absent.
    """
    deadline = optional_int_at(deployment, "spec", "progressDeadlineSeconds")
    if deadline is not None:
        return deadline != NO_PROGRESS_DEADLINE
    revision = str(dig(deployment, "metadata", "annotations", REVISION_ANNOTATION) or "")
    return revision.isdigit() and int(revision) > 1


def _deployment_counts(deployment: Mapping[str, Any]) -> ObjectStatus | None:
    """kubectl's and kstatus' replica checks, in kubectl's order and with its words."""
    desired = int_at(deployment, "spec", "replicas", default=1)
    replicas = int_at(deployment, "status", "replicas")
    updated = int_at(deployment, "status", "updatedReplicas")
    available = int_at(deployment, "status", "availableReplicas")
    ready = int_at(deployment, "status", "readyReplicas")
    if updated < desired:
        return _in_progress(f"{updated} of {desired} replicas updated")
    if replicas > updated:
        return _in_progress(f"{replicas - updated} old replicas pending termination")
    if available < updated:
        return _in_progress(f"{available} of {updated} updated replicas available")
    if ready < desired:
        return _in_progress(f"{ready} of {desired} replicas ready")
    if replicas != desired:
        return _in_progress(f"{replicas} replicas, {desired} desired")
    return None


def deployment_status(
    deployment: Mapping[str, Any] | None, replica_sets: Sequence[Mapping[str, Any]] | None = None
) -> ObjectStatus:
    """A Deployment: Current only once the latest spec is fully rolled out and available.

    Generic rules (a missing ``observedGeneration`` reads as 0, as kubectl reads it), a paused
    rollout (never finishes), a ``Progressing`` problem (``ProgressDeadlineExceeded`` or any
    ``False``: Failed with Kubernetes' reason and message), then the replica counts (scaled to 0
    included: no old pod may remain), then ``Progressing=NewReplicaSetAvailable`` where required
    and ``Available=True``. When the namespace's ``replica_sets`` are given, the ReplicaSet of
    the Deployment's revision must exist and be available too (pulumi-kubernetes' cross-check;
    the waiter lists none and relies on ``NewReplicaSetAvailable``, which the controller writes
    only once that ReplicaSet is available).
    """
    generic = generic_status("Deployment", deployment, absent_generation_is_zero=True)
    if generic is not None or deployment is None:
        return generic or ObjectStatus(ObjectState.NOT_FOUND, "Deployment not found")
    for rule in (_paused, _progressing, _counts, _completion):
        status = rule(deployment)
        if status is not None:
            return status
    if replica_sets is not None:
        return _active_replica_set_status(deployment, replica_sets)
    return CURRENT


def _paused(deployment: Mapping[str, Any]) -> ObjectStatus | None:
    return _in_progress("rollout is paused (spec.paused)") if dig(deployment, "spec", "paused") is True else None


def _counts(deployment: Mapping[str, Any]) -> ObjectStatus | None:
    """The replica checks, with ``Available=False``'s reason and message when Kubernetes gave one."""
    counts = _deployment_counts(deployment)
    available = find_condition(deployment, "Available")
    if counts is not None and available is not None and available.get("status") == "False" and available.get("message"):
        return _in_progress(f"{counts.message} ({available.get('message')})", str(available.get("reason") or ""))
    return counts


def _completion(deployment: Mapping[str, Any]) -> ObjectStatus | None:
    """``Progressing=NewReplicaSetAvailable`` where required, then ``Available=True``."""
    condition = find_condition(deployment, "Progressing") or {}
    if _needs_new_rs_available(deployment) and not (
        condition.get("status") == "True" and condition.get("reason") == NEW_RS_AVAILABLE
    ):
        return _in_progress("new ReplicaSet not yet available", str(condition.get("reason") or ""))
    available = find_condition(deployment, "Available")
    if available is None or available.get("status") != "True":
        return _in_progress("Deployment is not Available", str((available or {}).get("reason") or ""))
    return None


def active_replica_set(deployment: Mapping[str, Any], replica_sets: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The ReplicaSet of the Deployment's current revision (pulumi's "active ReplicaSet"): owned by
    the Deployment, with its ``deployment.kubernetes.io/revision`` annotation. None if not listed."""
    revision = dig(deployment, "metadata", "annotations", REVISION_ANNOTATION)
    owner = dig(deployment, "metadata", "name")
    for replica_set in replica_sets:
        owners = dig(replica_set, "metadata", "ownerReferences") or []
        owned = any(isinstance(o, Mapping) and o.get("kind") == "Deployment" and o.get("name") == owner for o in owners)
        if owned and revision is not None and dig(replica_set, "metadata", "annotations", REVISION_ANNOTATION) == revision:
            return replica_set
    return None


def _active_replica_set_status(deployment: Mapping[str, Any], replica_sets: Sequence[Mapping[str, Any]]) -> ObjectStatus:
    replica_set = active_replica_set(deployment, replica_sets)
    if replica_set is None:
        revision = dig(deployment, "metadata", "annotations", REVISION_ANNOTATION)
        return _in_progress(f"no ReplicaSet of revision {revision} yet")
    wanted = int_at(replica_set, "spec", "replicas", default=1)
    have = int_at(replica_set, "status", "availableReplicas")
    if have < wanted:
        return _in_progress(f"ReplicaSet {dig(replica_set, 'metadata', 'name')}: {have} of {wanted} available")
    return CURRENT


def leader_worker_set_status(lws: Mapping[str, Any] | None) -> ObjectStatus:
    """A LeaderWorkerSet: every desired group ready *and* on the current template, Available.

    The LWS controller writes ``Available`` only when all groups are ready and updated, and
    ``Progressing``/``UpdateInProgress`` otherwise; the generation rule applies only when the
    release publishes ``status.observedGeneration``. Scaled to 0 waits for its groups to go.
    """
    generic = generic_status("LeaderWorkerSet", lws)
    if generic is not None:
        return generic
    desired = int_at(lws, "spec", "replicas", default=1)
    updated = int_at(lws, "status", "updatedReplicas")
    ready = int_at(lws, "status", "readyReplicas")
    if desired == 0:
        replicas = int_at(lws, "status", "replicas")
        return CURRENT if replicas == 0 else _in_progress(f"{replicas} groups pending termination")
    if updated < desired:
        return _in_progress(f"{updated} of {desired} groups updated")
    if ready < desired:
        return _in_progress(f"{ready} of {desired} groups ready")
    available = find_condition(lws, "Available")
    if available is None or available.get("status") != "True":
        return _in_progress("LeaderWorkerSet is not Available", str((available or {}).get("reason") or ""))
    condition_generation = optional_int_at(available, "observedGeneration")
    generation = int_at(lws, "metadata", "generation")
    if condition_generation is not None and condition_generation < generation:
        return _in_progress(f"Available describes generation {condition_generation} < {generation}")
    return CURRENT


def workload_status(kind: str, obj: Mapping[str, Any] | None) -> ObjectStatus:
    """The status of a component workload of any kind we watch.

    Deployments and LeaderWorkerSets have their own rules; Grove objects get the generic ones
    (their own rules, generation gate included, live in :mod:`.grove` and :mod:`.status`).
    """
    if kind == "Deployment":
        return deployment_status(obj)
    if kind == "LeaderWorkerSet":
        return leader_worker_set_status(obj)
    return generic_status(kind, obj) or CURRENT
