"""One component's replica counts, verdict and state, and the words a progress line uses for them.

A progress line must not contradict itself: ``decode: 1/1 ready: Deployment is not ready`` counted
an *old* pod as the one ready replica. The count shown here is of the current revision (replicas
beyond ``updatedReplicas`` are old pods, and they are the ones counted as available first, so the
new generation is credited only with what remains), and the parenthesis gives the controller's own
counts: ``decode: 0/1 ready (Deployment decode-abc: 1 updated, 0 available of 1)``.
"""

from __future__ import annotations

from typing import Any, Final

from dynamo_pulumi.floor.constants import POD_CLIQUE_SCALING_GROUP_KIND
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.readiness.object_status import CURRENT, ObjectStatus
from dynamo_pulumi.readiness.result import ReadinessResult

#: Kinds whose serving count is ``availableReplicas`` (ready for ``minReadySeconds``, or a whole
#: scaling-group replica), not ``readyReplicas``.
AVAILABLE_KINDS: Final = frozenset({"Deployment", POD_CLIQUE_SCALING_GROUP_KIND})


@record
class ComponentState:
    """One component's replica counts and verdict (the operator's ``ComponentReplicaStatus``).

    ``result`` is the verdict in the operator's words (what the DGD aggregation sees); ``status``
    is the workload's kstatus-shaped state (:mod:`.object_status`), which carries the reason a
    user should read first (``ProgressDeadlineExceeded: ...``, terminating, generation not seen).
    """

    component: str
    kind: str
    names: tuple[str, ...]
    desired: int
    replicas: int
    updated: int
    ready_replicas: int | None
    available: int | None
    result: ReadinessResult
    status: ObjectStatus = CURRENT

    @property
    def ready(self) -> bool:
        return self.result.ready

    @property
    def _counted(self) -> int:
        """Available replicas for Deployments and scaling groups, ready ones for the rest."""
        if self.kind in AVAILABLE_KINDS or self.ready_replicas is None:
            return self.available or 0
        return self.ready_replicas

    @property
    def _count_word(self) -> str:
        return "available" if self.kind in AVAILABLE_KINDS or self.ready_replicas is None else "ready"

    @property
    def serving(self) -> int:
        """Serving replicas; while not ready, only those the current revision can claim."""
        if self.ready:
            return self._counted
        old = max(0, self.replicas - self.updated)
        return max(0, min(self.updated, self._counted - old))

    def as_status(self) -> dict[str, Any]:
        """The ``status.components[name]`` entry, with the operator's field names."""
        status: dict[str, Any] = {
            "componentKind": self.kind,
            "componentNames": list(self.names),
            "replicas": self.replicas,
            "updatedReplicas": self.updated,
        }
        if self.ready_replicas is not None:
            status["readyReplicas"] = self.ready_replicas
        if self.available is not None:
            status["availableReplicas"] = self.available
        return status

    def counts(self) -> str:
        """``Deployment decode-abc: 1 updated, 0 available of 1`` (+ old pods pending termination)."""
        label = " ".join(part for part in (self.kind, self.names[0] if self.names else "") if part)
        text = f"{self.updated} updated, {self.serving} {self._count_word} of {self.desired}"
        old = self.replicas - self.updated
        if old > 0:
            text += f", {old} old pending termination"
        return f"{label}: {text}" if label else text

    def summary(self) -> str:
        """``decode: 2/2 ready``; when not ready, with the controller's counts in parentheses.

        A component not ready with every replica up (generation not yet observed, conditions
        not yet True) says so rather than "2/2 ready".
        """
        head = f"{self.component}: {self.serving}/{self.desired}"
        if self.ready:
            return f"{head} ready"
        word = "up, not ready" if self.serving >= self.desired else "ready"
        return f"{head} {word} ({self.counts()})"

    def reason(self) -> str:
        """Why not ready, without reading pods: the workload's state, else the verdict's words."""
        if self.ready:
            return ""
        if not self.status.current:
            return str(self.status)
        return self.result.detail or self.result.message or self.result.reason
