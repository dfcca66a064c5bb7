"""The readiness resource's inputs that follow from a graph's plan, and the step ``pulumi up``
takes on that resource from one plan to the next.

Each graph registers one readiness resource (:mod:`dynamo_pulumi.resources.readiness`) whose
inputs name what it watches (``targets``, ``pod_selector``), a digest of what is deployed
(``revision``) and, in operator mode, the predicted expansion. Its provider updates it, and so
makes ``pulumi up`` wait again, whenever one of them changes, and replaces it when the graph's
identity (namespace, name, kind, mode) changes (:mod:`dynamo_pulumi.cluster.provider`).
``dynamo-pulumi diff`` predicts that step from the two plans with the same functions, so it lists
the update the engine shows (seen with the real engine: every changed worker also updates the
readiness resource, tests/e2e/test_engine_diff.py).

The readiness options a program passes (``wait``, ``timeout``, the connection) are not part of a
plan: a change of them alone is not predicted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from dynamo_pulumi.diff.diffing import ObjectChange, field_changes
from dynamo_pulumi.floor.expansion import json_digest, without_paths
from dynamo_pulumi.planning.operator_mode import (
    custom_resource_document,
    operator_expansion,
    plan_prediction,
    scaled_replica_paths,
)
from dynamo_pulumi.planning.options import ignore_changes
from dynamo_pulumi.planning.plan import GraphPlan
from dynamo_pulumi.readiness.targets import (
    DCD_KIND,
    is_workload,
    operator_targets,
    pod_selector,
    render_targets,
)

#: The type token of the readiness resource on the default transport (the SDK's dynamic provider).
READINESS_TYPE: Final = "pulumi-python:dynamic/dynamo:GraphReadiness"
#: Its type token on the ``dynamo`` provider plugin (``ReadinessOptions(provider="plugin")``).
PLUGIN_READINESS_TYPE: Final = "dynamo:index:GraphReadiness"

#: Inputs whose change replaces the resource (as :data:`dynamo_pulumi.cluster.provider.IDENTITY_INPUTS`).
IDENTITY: Final = ("namespace", "graph", "kind", "mode")
#: Inputs whose change updates it, and makes ``pulumi up`` wait again. ``predicted`` (the full
#: predicted objects) is compared but, as in ``pulumi preview --diff`` (hidden there), not listed
#: field by field: ``expansion`` names what changed in it.
WATCHED: Final = ("targets", "revision", "pod_selector", "expansion", "predicted")
_SHOWN: Final = ("targets", "revision", "pod_selector", "expansion")


def readiness_name(plan: GraphPlan) -> str:
    """The readiness resource's Pulumi name: ``namespace/graph``."""
    return f"{plan.namespace}/{plan.name}"


def _component_name(plan: GraphPlan) -> str:
    return plan.components[0].name if plan.kind == DCD_KIND and plan.components else ""


def workload_digest(obj: Mapping[str, Any], ignored: Iterable[str] = ()) -> str:
    """One workload's share of the revision: its kind, name, namespace and ``spec`` as every
    update sends them, without the paths Pulumi ignores (``ignored``: the replicas a scaling
    adapter owns, sent once at create), so a change of those in the file, which updates nothing,
    does not make ``pulumi up`` wait again. The rest of ``metadata`` is left out: labels are the
    plan's, and annotations (``pulumi.com/`` directives, the controller's
    ``deployment.kubernetes.io/revision``) change nothing that runs.

    The components digest the workloads as registered (:mod:`dynamo_pulumi.resources.registered`:
    after any transformation, read from the children's outputs), :func:`plan_inputs` the plan's;
    both through this function, so the prediction is what a program registers."""
    meta = obj.get("metadata") or {}
    kept = without_paths({"spec": obj.get("spec") or {}}, ignored)
    return json_digest({"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"),
                        "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")},
                        "spec": kept.get("spec") or {}})


def revision_of(digests: Sequence[str]) -> str:
    """The revision input: the digest of the workloads' digests, in plan order."""
    return json_digest(list(digests))


def _rendered_revision(plan: GraphPlan) -> str:
    owned = [(p, None) for p in plan.graph_objects] + [(p, c) for c in plan.components for p in c.objects]
    return revision_of([workload_digest(p.obj, ignore_changes(p, plan, c)) for p, c in owned if is_workload(p.obj)])


def plan_inputs(plan: GraphPlan) -> dict[str, Any]:
    """The identity and watched inputs of the plan's readiness resource, as registered (values
    that are Outputs in a program stay as the plan's stand-ins)."""
    objects = [p.obj for p in plan.all_objects()]
    if plan.mode == "operator":
        targets = operator_targets(plan.kind, plan.name, plan.namespace)
        digest = revision_of([workload_digest(custom_resource_document(plan), scaled_replica_paths(plan))])
        expansion: list[Any] = [dict(e) for e in operator_expansion(plan)]
        predicted = plan_prediction(plan)
    else:
        targets = render_targets(objects, plan.namespace)
        digest = _rendered_revision(plan)
        expansion, predicted = [], []
    return {
        "namespace": plan.namespace,
        "graph": plan.name,
        "kind": plan.kind,
        "mode": plan.mode,
        "targets": [t.as_input() for t in targets],
        "revision": digest,
        "pod_selector": pod_selector(plan.kind, plan.name, _component_name(plan)),
        "expansion": expansion,
        "predicted": predicted,
    }


def readiness_changes(old: GraphPlan | None, new: GraphPlan | None, type_token: str = READINESS_TYPE) -> list[ObjectChange]:
    """The readiness resource's step(s) from OLD to NEW: ``create``/``delete`` when a side has no
    graph or the resource's name moves (a renamed graph), ``replace`` when its identity changes,
    ``update`` when what it watches changes, else ``same``."""
    shown = new or old
    if shown is None:
        return []
    if old is None or new is None or readiness_name(old) != readiness_name(new):
        gone = [ObjectChange("delete", type_token, readiness_name(old), old.name, old_name=old.name)] if old else []
        made = [ObjectChange("create", type_token, readiness_name(new), new.name, new_name=new.name)] if new else []
        return [*made, *gone]
    before, after = plan_inputs(old), plan_inputs(new)
    shown_fields = field_changes({k: before[k] for k in _SHOWN}, {k: after[k] for k in _SHOWN})
    change = ObjectChange("same", type_token, readiness_name(new), new.name, old.name, new.name, shown_fields)
    identity = [key for key in IDENTITY if before[key] != after[key]]
    if identity:
        change.action = "replace"
        change.reasons = [f"the readiness resource watches another graph ({', '.join(identity)} changes): "
                          "the new one is created and waited for before the old one is deleted"]
        change.fields = field_changes({k: before[k] for k in IDENTITY}, {k: after[k] for k in IDENTITY}) + shown_fields
    elif any(before[key] != after[key] for key in WATCHED):
        change.action = "update"
    return [change]
