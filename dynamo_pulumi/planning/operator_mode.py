"""Operator mode's plan: the custom resource as we send it, and what the operator will make of it.

In operator mode only the DGD (or DCD) custom resource is registered; the objects rendered from
the same plan are the operator's *predicted expansion* (:mod:`dynamo_pulumi.floor.expansion`), compared
after apply and shown by ``diff``. Both edges (the Pulumi components, the CLI's ``preview``,
``diff``, ``wait`` and ``status``) take these values from here, so they cannot disagree. Pure: no
Pulumi import; Outputs stay parked as tokens (the Pulumi edge restores them).
"""

from __future__ import annotations

from typing import Any

from dynamo_pulumi.api.v1beta1 import API_VERSION, DynamoComponentDeployment, DynamoGraphDeployment
from dynamo_pulumi.floor.expansion import ExpansionEntry, expansion_summary, predicted_objects, without_paths
from dynamo_pulumi.model.deploy_mode import without_unsent_metadata
from dynamo_pulumi.planning.options import ignore_changes
from dynamo_pulumi.planning.plan import GraphPlan


def custom_resource_document(plan: GraphPlan) -> dict[str, Any]:
    """The DGD/DCD as we apply it: v1beta1, the user's metadata and spec, no status."""
    wire = without_unsent_metadata(plan.graph).to_wire()
    metadata = dict(wire.get("metadata") or {})
    metadata["name"] = plan.name
    metadata["namespace"] = plan.namespace
    return {"apiVersion": API_VERSION, "kind": plan.kind, "metadata": metadata, "spec": wire.get("spec") or {}}


def scaled_replica_paths(plan: GraphPlan) -> list[str]:
    """``replicas`` of every component whose scale a scaling adapter owns."""
    graph = plan.graph
    if isinstance(graph, DynamoGraphDeployment):
        return [f"spec.components[{i}].replicas" for i, c in enumerate(graph.components) if c.scaling_adapter is not None]
    if isinstance(graph, DynamoComponentDeployment) and graph.spec.scaling_adapter is not None:
        return ["spec.replicas"]
    return []


def plan_prediction(plan: GraphPlan) -> list[dict[str, Any]]:
    """The predicted objects of a plan in summary order: what the drift check compares the
    operator's objects with (``pulumi.Output`` leaves still parked as tokens).

    Replica counts a scaling adapter owns are left out: the planner or an HPA scales the
    adapter, the operator writes the new count into the DCD and the workload, and the file's
    count (sent once, at create) predicts nothing after that. The same paths Pulumi ignores on
    rendered objects (:func:`dynamo_pulumi.planning.options.ignore_changes`)."""
    documents = [
        without_paths(c.dcd, ["spec.replicas"] if c.scaling_adapter else [])
        for c in plan.components if c.dcd is not None
    ]
    for component in [None, *plan.components]:
        owned = plan.graph_objects if component is None else component.objects
        documents.extend(without_paths(p.obj, ignore_changes(p, plan, component)) for p in owned)
    return predicted_objects(documents)


def operator_expansion(plan: GraphPlan) -> list[ExpansionEntry]:
    """The ``{apiVersion, kind, name, digest}`` summary of what the operator will create (operator
    mode), empty in render mode (there the objects are registered themselves). Digested without
    the replica counts a scaling adapter owns (:func:`plan_prediction`): a change of them in the
    file is never sent, so the operator touches nothing for it."""
    return expansion_summary(plan_prediction(plan)) if plan.mode == "operator" else []
