"""The Dynamo operator's readiness predicates, as pure functions over recorded Kubernetes objects.

The operator decides whether a DynamoGraphDeployment serves by reading its children: a Deployment
or LeaderWorkerSet per DCD on the component pathway, a PodClique or PodCliqueScalingGroup per
component on the Grove pathway. A provider that deploys the rendered objects itself has to wait
on the same facts, and should explain a wait in the operator's words, so the predicates here
follow the operator snapshot check for check and string for string (ERRATA section 3;
readiness-lifecycle A2-A4, A6; rendering-grove section 8).

Layers:

* :mod:`.result`: :class:`ReadinessResult` and the reason/message literals;
* :mod:`.workloads`: Deployment, LeaderWorkerSet, DCD;
* :mod:`.grove`: PodClique, PodCliqueScalingGroup, the PodCliqueSet wrapper, revision cut-over;
* :mod:`.graph`: the DGD aggregation and :func:`graph_readiness` over a rendered object list;
* :mod:`.readers`: the :class:`ObjectReader` Protocol and an in-memory reader (the waiter reads its watch cache);
* :mod:`.targets`, :mod:`.status`: what a waiter watches, and the DGD status it computes;
* :mod:`.operator_mode`: readiness read off the DGD/DCD custom resource itself;
* :mod:`.reasons`, :mod:`.drift`, :mod:`.deadline`: why not ready, prediction drift, durations.

Nothing here waits, polls or talks to a cluster by itself: :mod:`dynamo_pulumi.cluster` does.
"""

from dynamo_pulumi.readiness.graph import (
    ResourceReadiness,
    aggregate,
    check_resources_readiness,
    graph_readiness,
    resource_readiness,
)
from dynamo_pulumi.readiness.grove import (
    GroveComponent,
    GroveComponentReadiness,
    accepted_pcs_revision,
    child_completed_revision,
    grove_component_resource_name,
    grove_components,
    merge_classifications,
    pod_clique_ready,
    pod_clique_scaling_group_ready,
    pod_clique_set_ready,
)
from dynamo_pulumi.readiness.readers import InMemoryReader, ObjectReader
from dynamo_pulumi.readiness.result import (
    ALL_RESOURCES_ARE_READY,
    INSUFFICIENT_CAPACITY,
    MIXED_NOT_READY_REASONS,
    PODS_NOT_READY,
    ROLLING_UPDATE_IN_PROGRESS,
    SOME_RESOURCES_ARE_NOT_READY,
    UPDATING,
    WAITING_FOR_CHECKPOINT,
    ReadinessResult,
)
from dynamo_pulumi.readiness.workloads import (
    dcd_ready,
    deployment_ready,
    leader_worker_set_ready,
    workload_as_dcd,
)

__all__ = [
    "ALL_RESOURCES_ARE_READY",
    "INSUFFICIENT_CAPACITY",
    "MIXED_NOT_READY_REASONS",
    "PODS_NOT_READY",
    "ROLLING_UPDATE_IN_PROGRESS",
    "SOME_RESOURCES_ARE_NOT_READY",
    "UPDATING",
    "WAITING_FOR_CHECKPOINT",
    "GroveComponent",
    "GroveComponentReadiness",
    "InMemoryReader",
    "ObjectReader",
    "ReadinessResult",
    "ResourceReadiness",
    "accepted_pcs_revision",
    "aggregate",
    "check_resources_readiness",
    "child_completed_revision",
    "dcd_ready",
    "deployment_ready",
    "graph_readiness",
    "grove_component_resource_name",
    "grove_components",
    "leader_worker_set_ready",
    "merge_classifications",
    "pod_clique_ready",
    "pod_clique_scaling_group_ready",
    "pod_clique_set_ready",
    "resource_readiness",
    "workload_as_dcd",
]
