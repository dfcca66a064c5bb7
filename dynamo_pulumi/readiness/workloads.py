"""Readiness of the component pathway's objects: Deployment, LeaderWorkerSet and DCD.

The operator decides a DCD's ``Available`` condition from its workload with two boolean
predicates (``IsDeploymentReady``, ``IsLeaderWorkerSetReady`` in
``dynamocomponentdeployment_controller.go``), and the DGD controller decides each DCD's readiness
with ``DynamoComponentDeployment.IsReady``. We re-implement the three over plain API-server
dicts; check order and defaults follow the source (ERRATA section 3, items 1-3), because the
order decides which stale state counts as "not ready" first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.readiness._fields import conditions, dig, find_condition, int_at
from dynamo_pulumi.readiness.result import (
    DCD_NOT_AVAILABLE_MESSAGE,
    DEPLOYMENT_NOT_READY,
    DEPLOYMENT_NOT_READY_MESSAGE,
    DEPLOYMENT_READY,
    DEPLOYMENT_READY_MESSAGE,
    LEADER_WORKER_SET_NOT_READY,
    LEADER_WORKER_SET_NOT_READY_MESSAGE,
    LEADER_WORKER_SET_READY,
    LEADER_WORKER_SET_READY_MESSAGE,
    READY,
    RESOURCE_NOT_FOUND_MESSAGE,
    SOME_RESOURCES_ARE_NOT_READY,
    ReadinessResult,
    spec_not_yet_processed,
)

#: Condition type shared by Deployment (``appsv1.DeploymentAvailable``), LWS and DCD.
AVAILABLE: str = "Available"


def _deployment_not_ready(detail: str) -> ReadinessResult:
    return ReadinessResult(False, DEPLOYMENT_NOT_READY, DEPLOYMENT_NOT_READY_MESSAGE, detail)


def deployment_ready(deployment: Mapping[str, Any] | None) -> ReadinessResult:
    """``IsDeploymentReady``: has the Deployment fully rolled out the latest spec?

    Paused is never ready (a paused rollout cannot finish). Desired is ``spec.replicas``, default
    1, and 0 is ready at once (nothing to wait for). Otherwise the Deployment controller must have
    observed the current generation, every desired replica must be updated and available, no surge
    pods may remain (``replicas == desired``), and Kubernetes' own ``Available`` condition must be
    True. The result carries the DCD ``Available`` reason and message the operator writes from it.
    """
    if deployment is None:
        return _deployment_not_ready("Deployment not found")
    if dig(deployment, "spec", "paused") is True:
        return _deployment_not_ready("spec.paused is true")
    desired = int_at(deployment, "spec", "replicas", default=1)
    ready = ReadinessResult(True, DEPLOYMENT_READY, DEPLOYMENT_READY_MESSAGE)
    if desired == 0:
        return ready
    generation = int_at(deployment, "metadata", "generation")
    observed = int_at(deployment, "status", "observedGeneration")
    updated = int_at(deployment, "status", "updatedReplicas")
    available = int_at(deployment, "status", "availableReplicas")
    replicas = int_at(deployment, "status", "replicas")
    if observed < generation:
        return _deployment_not_ready(f"observedGeneration={observed} < generation={generation}")
    if updated < desired:
        return _deployment_not_ready(f"updatedReplicas={updated} < desired={desired}")
    if available < desired:
        return _deployment_not_ready(f"availableReplicas={available} < desired={desired}")
    if replicas != desired:
        return _deployment_not_ready(f"replicas={replicas} != desired={desired}")
    # The operator accepts any Available=True condition, not only the first one.
    if any(c.get("type") == AVAILABLE and c.get("status") == "True" for c in conditions(deployment)):
        return ready
    return _deployment_not_ready("condition Available is not True")


def _lws_not_ready(detail: str) -> ReadinessResult:
    return ReadinessResult(False, LEADER_WORKER_SET_NOT_READY, LEADER_WORKER_SET_NOT_READY_MESSAGE, detail)


def leader_worker_set_ready(lws: Mapping[str, Any] | None) -> ReadinessResult:
    """``IsLeaderWorkerSetReady``: enough ready groups and the LWS says it is Available.

    Desired defaults to 1; 0 is ready. Unlike the Deployment check there is no generation check,
    so an LWS that has not observed a new spec yet still counts as ready on its old pods: we keep
    that gap because the operator has it. Only the *first* ``Available`` condition is consulted.
    """
    if lws is None:
        return _lws_not_ready("LeaderWorkerSet not found")
    desired = int_at(lws, "spec", "replicas", default=1)
    ready = ReadinessResult(True, LEADER_WORKER_SET_READY, LEADER_WORKER_SET_READY_MESSAGE)
    if desired == 0:
        return ready
    ready_replicas = int_at(lws, "status", "readyReplicas")
    if ready_replicas < desired:
        return _lws_not_ready(f"readyReplicas={ready_replicas} < desired={desired}")
    condition = find_condition(lws, AVAILABLE)
    if condition is not None and condition.get("status") == "True":
        return ready
    return _lws_not_ready("condition Available is not True")


def dcd_ready(dcd: Mapping[str, Any] | None) -> ReadinessResult:
    """``DynamoComponentDeployment.IsReady``: the DGD controller's view of one component.

    A DCD whose controller has not yet written ``status.observedGeneration`` for the current
    generation is stale, whatever its conditions say (they describe an older spec). Otherwise it
    is ready exactly when ``Available=True``. A missing DCD (the operator never sees one, as it
    has just applied it) reads as "resource not found", the Grove wording for the same state.
    """
    if dcd is None:
        return ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, RESOURCE_NOT_FOUND_MESSAGE)
    generation = int_at(dcd, "metadata", "generation")
    observed = int_at(dcd, "status", "observedGeneration")
    if observed < generation:
        return ReadinessResult(
            False, SOME_RESOURCES_ARE_NOT_READY, spec_not_yet_processed(generation, observed)
        )
    if any(c.get("type") == AVAILABLE and c.get("status") == "True" for c in conditions(dcd)):
        return READY
    return ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, DCD_NOT_AVAILABLE_MESSAGE)


def workload_as_dcd(workload: ReadinessResult) -> ReadinessResult:
    """What the DGD aggregation would see for a DCD whose workload gave ``workload``.

    The DCD controller copies the workload verdict into ``Available`` and advances
    ``status.observedGeneration`` on every pass, so a DCD whose workload is not ready reads as
    "Available condition not true". Used when we deploy the workloads ourselves and there is no
    DCD object to read; ``detail`` keeps the workload's own explanation.
    """
    if workload.ready:
        return READY
    detail = f"{workload.message}: {workload.detail}" if workload.detail else workload.message
    return ReadinessResult(False, SOME_RESOURCES_ARE_NOT_READY, DCD_NOT_AVAILABLE_MESSAGE, detail)
