"""The two deployment modes, and what only operator mode can deploy.

* ``render`` (the default): the graph is expanded in Python and the rendered objects are created;
  no DynamoGraphDeployment or DynamoComponentDeployment custom resource exists in the cluster.
* ``operator``: the DGD/DCD custom resource itself is created (``nvidia.com/v1beta1``, the spec as
  the user wrote it) and an installed Dynamo operator expands it; the expansion is predicted in
  Python for preview and drift, never registered.

Some features need the operator's own objects or controllers, so render mode refuses them with an
error that names operator mode (``dynamo-pulumi render`` still prints what the operator would make):

* a planner that scales through the Kubernetes API (its default connector): it reads and patches
  the DGD or its scaling adapters (:mod:`dynamo_pulumi.model.planner_connector`);
* an LPX component: the LPX controller builds it from the operator's build registry;
* a checkpoint (``experimental.checkpoint.enabled``): the operator creates the DynamoCheckpoint and
  its job, and the Snapshot operator takes and restores it;
* component groups (``spec.experimental.componentGroups``, newest types only): one Grove
  PodCliqueScalingGroup per group, which no operator code we follow renders, so rendering them
  here would be invented; operator mode sends them as written (its prediction is then empty, with
  a warning).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

from dynamo_pulumi.api.kinds import ComponentType
from dynamo_pulumi.api.v1beta1_helpers import ComponentDeploymentHelpers, GraphHelpers
from dynamo_pulumi.errors import FieldError, InputError, Path, forbidden, not_supported
from dynamo_pulumi.floor.constants import COMPONENT_TYPE_LPX, COMPONENT_TYPE_PLANNER
from dynamo_pulumi.floor.records import replace
from dynamo_pulumi.model.planner_connector import planner_connector

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import (
        ComponentSpecFields,
        DynamoComponentDeployment,
        DynamoGraphDeployment,
    )

    Graph = DynamoGraphDeployment | DynamoComponentDeployment



Mode = Literal["render", "operator"]
MODES: tuple[Mode, ...] = ("render", "operator")
DEFAULT_MODE: Mode = "render"

#: Metadata operator mode never sends: the API server or the operator writes it, or, like
#: ``ownerReferences`` (uids), it names objects of one particular cluster.
NOT_SENT_METADATA: tuple[str, ...] = (
    "uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
    "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences", "selfLink",
)
USE_OPERATOR_MODE = 'deploy it with mode="operator" (CLI: --mode operator) on a cluster running the Dynamo operator'


def check_mode(value: object) -> Mode:
    """``value`` as a Mode, or an InputError naming the choices."""
    if value in MODES:
        return value  # type: ignore[return-value]
    raise InputError(f"mode must be one of {', '.join(repr(m) for m in MODES)}, not {value!r}")


def operator_only(path: Path, detail: str) -> FieldError:
    """A render-mode refusal: why (``detail``), and operator mode as the fix (JSON's ``fix``)."""
    return replace(forbidden(path, detail), fix=USE_OPERATOR_MODE)


def _planner_errors(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    if comp.type != COMPONENT_TYPE_PLANNER:
        return []
    connector = planner_connector(comp.pod_template)
    if not connector.uses_kubernetes_api:
        return []
    what = "a GlobalPlanner" if connector.global_planner else (
        f'a planner with environment "{connector.environment}" ({connector.source})'
    )
    return [
        operator_only(
            path.child("podTemplate"),
            f"{what} scales through the Kubernetes API: it reads and patches the DynamoGraphDeployment "
            "and its scaling adapters, which render mode never creates",
        )
    ]


def _lpx_errors(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    if comp.type != COMPONENT_TYPE_LPX and comp.lpx is None:
        return []
    return [
        operator_only(
            path.child("type" if comp.type == COMPONENT_TYPE_LPX else "lpx"),
            "an LPX component is built by the operator's LPX controller from its build registry, "
            "which render mode cannot reach",
        )
    ]


def _checkpoint_errors(comp: ComponentSpecFields, path: Path) -> list[FieldError]:
    checkpoint = comp.checkpoint
    if checkpoint is None or not checkpoint.enabled:
        return []
    return [
        operator_only(
            path.child("experimental", "checkpoint", "enabled"),
            "a checkpoint restore needs the operator (it creates the DynamoCheckpoint and its job) and "
            "the Snapshot operator; render mode has neither",
        )
    ]


COMPONENT_GROUPS_NOT_RENDERED = (
    "component groups scale their members together as one Grove PodCliqueScalingGroup per group, "
    "and no operator code this package follows renders them (its 2026-08-21 snapshot has none), so "
    "their objects are not known offline"
)


def _component_groups_errors(graph: GraphHelpers) -> list[FieldError]:
    experimental = graph.spec.experimental
    if experimental is None or not experimental.component_groups:
        return []
    return [operator_only(Path("spec", "experimental", "componentGroups"),
                          f"{COMPONENT_GROUPS_NOT_RENDERED}: render mode would create the components ungrouped")]


def operator_only_errors(graph: object) -> list[FieldError]:
    """Why render mode cannot deploy ``graph`` (empty when it can, and for other kinds such as a
    scaling adapter), one error per feature."""
    if isinstance(graph, GraphHelpers):
        entries: list[tuple[ComponentSpecFields, Path]] = [
            (comp, Path("spec", "components").index(i)) for i, comp in enumerate(graph.components)
        ]
        graph_errors = _component_groups_errors(graph)
    elif isinstance(graph, ComponentDeploymentHelpers):
        entries, graph_errors = [(graph.spec, Path("spec"))], []
    else:
        return []
    errors: list[FieldError] = graph_errors
    for comp, path in entries:
        errors += _planner_errors(comp, path)
        errors += _lpx_errors(comp, path)
        errors += _checkpoint_errors(comp, path)
    return errors


def render_mode_notes(graph: object) -> list[str]:
    """What render mode accepts but cannot act on, said rather than ignored: a DGD's own
    ``metadata.labels`` label the DynamoGraphDeployment object, which render mode never creates
    (the operator copies none of them to what it creates; ``spec.labels`` does)."""
    if isinstance(graph, GraphHelpers) and graph.metadata.labels:
        return ["metadata.labels label the DynamoGraphDeployment object itself, which render mode does not "
                "create, and the operator copies none of them to the objects it creates: to label those, use "
                "spec.labels (operator mode applies metadata.labels to the custom resource)"]
    return []


RESTART_IN_RENDER_MODE = (
    "render mode applies every graph as a create (it creates no DynamoGraphDeployment to restart); a restart "
    f"is a request to the operator's controller on an existing one: {USE_OPERATOR_MODE}"
)


# --- what operator mode sends ------------------------------------------------------------------

OWNER_REFERENCES_NOT_SENT = (
    "metadata.ownerReferences is not sent in operator mode (its uids name objects of one cluster); "
    "the operator, and the prediction, treat the object as unowned"
)


def without_unsent_metadata(graph: Graph) -> Graph:
    """The graph as operator mode sends it (without :data:`NOT_SENT_METADATA`): what the operator
    expands, so the prediction must be rendered from it (a DCD's DGD owner reference, for one,
    decides its parent graph in render mode but never reaches the operator)."""
    wire = graph.to_wire()
    metadata = wire.get("metadata") or {}
    if not any(key in metadata for key in NOT_SENT_METADATA):
        return graph
    wire["metadata"] = {k: v for k, v in metadata.items() if k not in NOT_SENT_METADATA}
    return type(graph).model_validate(wire)


#: The v1beta1 ``type`` values, in the CRD enum's order (how the API server lists them).
SENT_COMPONENT_TYPES: tuple[str, ...] = get_args(ComponentType)
UNSENT_TYPE_FIX = (
    "operator mode sends the custom resource as nvidia.com/v1beta1, whose type enum has no such value (the "
    "v1alpha1 conversion copies componentType unchanged): use a v1beta1 type (e.g. componentType: worker with "
    "subComponentType: prefill or decode)"
)


def sent_type_errors(graph: Graph) -> list[FieldError]:
    """The custom resource as operator mode sends it, against the v1beta1 CRD's ``type`` enum.

    A v1alpha1 ``componentType`` outside it (``main``) survives conversion as written; sent in
    v1beta1, the API server refuses the whole object at ``spec.components[i].type``."""
    if isinstance(graph, GraphHelpers):
        typed = [(Path("spec", "components").index(i).child("type"), c.type) for i, c in enumerate(graph.components)]
    else:
        typed = [(Path("spec", "type"), graph.spec.type)]
    return [
        replace(not_supported(path, value, SENT_COMPONENT_TYPES), fix=UNSENT_TYPE_FIX)
        for path, value in typed
        if isinstance(value, str) and value not in SENT_COMPONENT_TYPES
    ]


def sent_in_operator_mode(graph: Graph) -> tuple[Graph, list[str]]:
    """The graph the operator will expand, and a warning when metadata the user wrote is dropped."""
    extra = graph.metadata.model_extra or {}
    warnings = [OWNER_REFERENCES_NOT_SENT] if "ownerReferences" in extra else []
    return without_unsent_metadata(graph), warnings
