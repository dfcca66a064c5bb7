"""The result type every readiness predicate returns, and the operator's reason literals.

The operator reports readiness as strings that users see in ``kubectl get dgd -o yaml``
(``status.conditions[type=Ready].reason`` and ``.message``) and on DCD ``Available`` conditions.
A waiting provider that says *why* a graph is not serving yet should print the same words, so
the literals below are copied from the operator snapshot (ERRATA section 3, items 4 and 12),
not invented.
"""

from __future__ import annotations

from typing import Final

from dynamo_pulumi.floor.records import record

# --- DGD ``Ready`` condition reasons (api/v1beta1 dynamographdeployment_types.go) ----------------

#: Every resource of the graph is ready; the DGD state becomes ``successful``.
ALL_RESOURCES_ARE_READY: Final = "all_resources_are_ready"
#: A Grove component is blocked before runtime readiness (gated, unschedulable, partly scheduled).
INSUFFICIENT_CAPACITY: Final = "insufficient_capacity"
#: Pods are scheduled and rolled out, but not enough are ready (PodClique) or available (PCSG).
PODS_NOT_READY: Final = "pods_not_ready"
#: A Grove component has not finished rolling out updated replicas.
UPDATING: Final = "updating"
#: Several not-ready Grove components disagree on their classification.
MIXED_NOT_READY_REASONS: Final = "mixed_not_ready_reasons"
#: The generic not-ready reason: unclassified causes, and every non-Grove resource.
SOME_RESOURCES_ARE_NOT_READY: Final = "some_resources_are_not_ready"
#: Checkpoint ``startupPolicy: WaitForCheckpoint`` gate (not computed here; listed for completeness).
WAITING_FOR_CHECKPOINT: Final = "waiting_for_checkpoint"
#: Forced while ``status.rollingUpdate.phase`` is Pending or InProgress (not computed here).
ROLLING_UPDATE_IN_PROGRESS: Final = "rolling_update_in_progress"

#: The classifications a not-ready Grove component can imply, in the operator's priority order.
GROVE_CLASSIFICATIONS: Final = (INSUFFICIENT_CAPACITY, UPDATING, PODS_NOT_READY, SOME_RESOURCES_ARE_NOT_READY)

# --- DCD ``Available`` condition reasons and messages (dynamocomponentdeployment_controller.go) -

DEPLOYMENT_READY: Final = "DeploymentReady"
DEPLOYMENT_NOT_READY: Final = "DeploymentNotReady"
LEADER_WORKER_SET_READY: Final = "LeaderWorkerSetReady"
LEADER_WORKER_SET_NOT_READY: Final = "LeaderWorkerSetNotReady"

DEPLOYMENT_READY_MESSAGE: Final = "Deployment is ready"
DEPLOYMENT_NOT_READY_MESSAGE: Final = "Deployment is not ready"
LEADER_WORKER_SET_READY_MESSAGE: Final = "LeaderWorkerSet is ready"
LEADER_WORKER_SET_NOT_READY_MESSAGE: Final = "LeaderWorkerSet is not ready"

# --- messages of the DGD aggregation and the DCD helper -----------------------------------------

ALL_RESOURCES_ARE_READY_MESSAGE: Final = "All resources are ready"
#: Prefix of the aggregated not-ready message; entries are ``<name>: <reason>`` joined by ``"; "``.
RESOURCES_NOT_READY_PREFIX: Final = "Resources not ready: "
#: ``DynamoComponentDeployment.IsReady`` when the generation is observed but Available is not True.
DCD_NOT_AVAILABLE_MESSAGE: Final = "Component deployment not ready - Available condition not true"
#: Grove child (or any object we look up) that the API server does not have.
RESOURCE_NOT_FOUND_MESSAGE: Final = "resource not found"
#: Grove child whose controller has never written ``status.observedGeneration``.
OBSERVED_GENERATION_NIL_MESSAGE: Final = "observedGeneration is nil"


def spec_not_yet_processed(generation: int, observed_generation: int) -> str:
    """The operator's stale-generation message, shared by the DCD helper and the Grove checks."""
    return f"spec not yet processed: generation={generation}, observedGeneration={observed_generation}"


@record
class ReadinessResult:
    """One readiness verdict, worded as the operator words it.

    ``reason`` and ``message`` are always the operator's own strings, so a waiting provider can
    print exactly what ``kubectl`` would show. What they mean depends on the level:

    * workload predicates (Deployment, LeaderWorkerSet): the DCD ``Available`` condition the
      operator writes from that predicate (``DeploymentNotReady`` / "Deployment is not ready");
    * resource predicates feeding the DGD aggregation (DCD, PodClique, PCSG, PodCliqueSet): the
      DGD reason this resource implies and its per-resource text; both empty when ready, as the
      operator returns ``(true, "")``;
    * the graph (DGD aggregation): the DGD ``Ready`` condition reason and message.

    ``detail`` is ours, not the operator's: the operator's workload predicates are plain booleans,
    so "Deployment is not ready" cannot say *which* check failed. ``detail`` names it (for example
    ``availableReplicas=0 < desired=1``) for logs and timeouts; it never changes the verdict.
    """

    ready: bool
    reason: str
    message: str
    detail: str = ""

    def __str__(self) -> str:
        text = f"{'ready' if self.ready else 'not ready'}: {self.reason}"
        if self.message:
            text += f" ({self.message})"
        if self.detail:
            text += f" [{self.detail}]"
        return text


#: A resource predicate's verdict when the resource is ready (the operator's ``(true, "")``).
READY: Final = ReadinessResult(True, "", "")
