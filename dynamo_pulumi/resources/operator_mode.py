"""Operator mode: register the DGD/DCD custom resource itself and let the installed operator expand it.

The custom resource is ``nvidia.com/v1beta1`` with the validated spec as the user wrote it (a
v1alpha1 file is converted, its alpha-only data kept in the operator's preservation annotation);
defaulting is left to the operator's mutating webhook, so the stored object is what ``kubectl
apply`` of the same file would store. The predicted expansion is computed from the same plan
but never registered (the operator owns those objects).

Options on the custom resource:

* ``replacement_trigger``: the immutable identity (:mod:`dynamo_pulumi.validation.immutable_identity`),
  a flat ``rule -> value`` mapping, so the DGD is replaced exactly for changes the update webhook
  refuses, and the changed key in the preview names the rule;
* ``delete_before_replace``: the name is fixed, a second object cannot exist beside the first;
* ``ignore_changes`` on the ``replicas`` of components with a ``scalingAdapter`` (the adapter,
  HPA or planner owns them);
* ``import_`` (adoption): a DGD already applied with kubectl or Argo comes under Pulumi by
  ``namespace/name`` without being recreated.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.model.deploy_mode import check_mode
from dynamo_pulumi.planning.operator_mode import (
    custom_resource_document,
    operator_expansion,
    plan_prediction,
    scaled_replica_paths,
)
from dynamo_pulumi.planning.plan import GraphPlan, PlannedObject
from dynamo_pulumi.planning.unknowns import restore
from dynamo_pulumi.resources.readiness import ReadinessPlan, ReadinessResource, register_operator_readiness
from dynamo_pulumi.resources.registered import Registered, custom_resource_inputs
from dynamo_pulumi.validation.immutable_identity import identity_of


def replacement_trigger(plan: GraphPlan) -> dict[str, str]:
    """What forces a replacement: the graph's immutable identity, rule by rule."""
    return identity_of(plan.graph, plan.platform)


def adoption_id(plan: GraphPlan) -> str:
    """The import id of the custom resource: ``namespace/name`` (pulumi-kubernetes' form)."""
    return f"{plan.namespace}/{plan.name}"


def custom_resource_options(
    plan: GraphPlan, parent: pulumi.Resource, depends_on: list[pulumi.Resource], adopt: bool
) -> pulumi.ResourceOptions:
    ignored = scaled_replica_paths(plan)
    return pulumi.ResourceOptions(
        parent=parent,
        depends_on=depends_on or None,
        ignore_changes=ignored or None,
        replacement_trigger=replacement_trigger(plan),
        delete_before_replace=True,
        import_=adoption_id(plan) if adopt else None,
    )


def register_custom_resource(
    plan: GraphPlan, parent: pulumi.Resource, depends_on: list[pulumi.Resource], adopt: bool = False
) -> k8s.apiextensions.CustomResource:
    """The DGD/DCD custom resource under ``parent``, Outputs restored at their leaves."""
    document = restore(custom_resource_document(plan), plan.outputs)
    return k8s.apiextensions.CustomResource(
        f"{plan.namespace}/{plan.name}",
        api_version=document["apiVersion"],
        kind=document["kind"],
        metadata=document["metadata"],
        spec=document["spec"],
        opts=custom_resource_options(plan, parent, depends_on, adopt),
    )


def resolve_mode(spec: object, mode: str | None) -> str | None:
    """The mode a ComponentResource plans in: a ready plan carries its own (a different explicit
    ``mode`` is an error, the plan was validated for the other one); None means the default."""
    if isinstance(spec, GraphPlan):
        if mode is not None and check_mode(mode) != spec.mode:
            raise InputError(f"the plan was made for mode {spec.mode!r}; plan it again with mode={mode!r}")
        return spec.mode
    return None if mode is None else check_mode(mode)


def register_operator_mode_readiness(
    owner: pulumi.Resource, plan: GraphPlan, readiness: ReadinessPlan, custom_resource: pulumi.CustomResource
) -> ReadinessResource:
    """The readiness resource watching the custom resource, with the predicted expansion as its
    inputs: the compact ``expansion`` (what ``pulumi preview --diff`` shows the operator will
    touch) and the full ``predicted`` objects (what the drift report compares against).

    The targets name the custom resource and the revision digests its spec as registered (its
    outputs, after any transformation), so any spec change makes the readiness resource wait
    again; the replicas a scaling adapter owns are left out, as from every diff."""
    entry = Registered(PlannedObject(custom_resource_document(plan), f"{plan.namespace}/{plan.name}"),
                       custom_resource, tuple(scaled_replica_paths(plan)))
    targets, cr_revision = custom_resource_inputs(entry, plan.kind)
    predicted = [restore(obj, plan.outputs) for obj in plan_prediction(plan)]
    return register_operator_readiness(
        owner, plan, readiness, custom_resource, targets, cr_revision, operator_expansion(plan), predicted
    )
