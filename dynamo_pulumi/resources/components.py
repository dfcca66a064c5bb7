"""The two Pulumi ComponentResources: ``DynamoGraphDeployment`` and ``DynamoComponentDeployment``.

Order matters: the spec is loaded, judged and rendered *before* ``super().__init__``, so an
invalid graph raises its GraphValidationError (a ``pulumi.RunError``, see :mod:`.run_errors`) and
nothing at all is registered (not even the component); so does a graph whose objects another
component of the program already creates (:mod:`.object_registry`). After that, registration is a straight walk over the plan: graph-level objects under
the DGD, one DCD per component, the component's objects under its DCD. Providers given to the
DGD (``provider=`` or ``providers=``) reach every child through Pulumi's parent chain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pulumi

from dynamo_pulumi.api.v1beta1 import DCD_KIND, DGD_KIND
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.planning.operator_mode import operator_expansion
from dynamo_pulumi.planning.options import ignore_changes
from dynamo_pulumi.planning.outputs import ComponentSummary, GraphSummary, summarize, summarize_component
from dynamo_pulumi.planning.placement import GpuPlacement
from dynamo_pulumi.planning.plan import ComponentPlan, GraphPlan, PlannedObject, SpecSource, plan_graph
from dynamo_pulumi.planning.settled import record_known_values
from dynamo_pulumi.planning.tokens import DCD_TYPE, DGD_TYPE
from dynamo_pulumi.planning.typed_outputs import component_counts, total_of
from dynamo_pulumi.platform import Platform
from dynamo_pulumi.readiness.targets import is_workload
from dynamo_pulumi.resources.children import register
from dynamo_pulumi.resources.object_registry import claim_objects
from dynamo_pulumi.resources.operator_mode import (
    register_custom_resource,
    register_operator_mode_readiness,
    resolve_mode,
)
from dynamo_pulumi.resources.readiness import ReadinessOptions, ReadinessResource, register_readiness
from dynamo_pulumi.resources.run_errors import reported_to_pulumi

PlatformSource = Platform | Mapping[str, Any] | str | Path | None


def _depends_on(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """The component's ``depends_on`` as a list, to hand to every child.

    Pulumi does not make a component's children wait for what the component depends on; a graph
    that depends on its Namespace (or on a node pool) means every object must wait for it.
    """
    deps = opts.depends_on if opts is not None else None
    if deps is None:
        return []
    if isinstance(deps, pulumi.Resource):
        return [deps]
    return [d for d in deps if isinstance(d, pulumi.Resource)] if isinstance(deps, (list, tuple)) else []


def _require_kind(plan: GraphPlan, kind: str, name: str, hint: str) -> None:
    if plan.kind != kind:
        raise InputError(f"{name!r} was given a {plan.kind}; {hint}")


Registered = list[tuple[PlannedObject, pulumi.CustomResource]]


def register_graph_level(
    objects: Sequence[PlannedObject], parent: pulumi.Resource, plan: GraphPlan, deps: list[pulumi.Resource],
    readiness: ReadinessOptions,
) -> Registered:
    """The graph-level objects under ``parent``: first those the pods use, then a graph-level
    workload (the Grove PodCliqueSet) depending on them (see :func:`supporting`)."""
    def one(planned: PlannedObject, depends_on: list[pulumi.Resource]) -> pulumi.CustomResource:
        return register(planned, parent, plan.outputs, ignore_changes(planned, plan, None), depends_on,
                        readiness.timeout_seconds, readiness.wait)

    support = [(planned, one(planned, deps)) for planned in objects if not is_workload(planned.obj)]
    pods_need = [*deps, *supporting(support)]
    return [*support, *((planned, one(planned, pods_need)) for planned in objects if is_workload(planned.obj))]


def supporting(registered: Registered) -> list[pulumi.CustomResource]:
    """The graph-level objects the graph's pods use: its ServiceAccounts and RBAC, ConfigMaps
    (scripts, EPP configuration), claim templates; every workload is created after them.

    Without the order, the ReplicaSet controller may try to create a worker's pods before its
    ServiceAccount exists ("error looking up service account"): it retries with backoff, so the
    pods come later than they could and a ``FailedCreate`` warning is left on the workload (seen
    with the real engine, tests/e2e/test_engine_failure.py). The operator creates them first too."""
    return [resource for planned, resource in registered if not is_workload(planned.obj)]


class DynamoComponentDeployment(pulumi.ComponentResource):
    """One Dynamo component: its workload (Deployment, LeaderWorkerSet) and its Services."""

    workload_kind: pulumi.Output[str]
    workload_names: pulumi.Output[list[str]]
    service_name: pulumi.Output[str | None]
    replicas: pulumi.Output[int]
    gpus: pulumi.Output[int]

    def __init__(
        self,
        name: str,
        spec: SpecSource | GraphPlan | None = None,
        namespace: str | None = None,
        platform: PlatformSource = None,
        placement: GpuPlacement | None = None,
        opts: pulumi.ResourceOptions | None = None,
        *,
        objects: Sequence[Mapping[str, Any]] = (),
        mode: str | None = None,
        adopt: bool = False,
        readiness: ReadinessOptions | None = None,
        _graph: GraphPlan | None = None,
        _component: ComponentPlan | None = None,
    ) -> None:
        """``spec``: a DCD model, dict, YAML path or ready plan. ``objects``: other Kubernetes
        objects of the program that rendering reads (DRA claim templates). ``mode``: ``"render"``
        (default) or ``"operator"`` (register the DCD custom resource; ``adopt`` imports an
        existing one). ``readiness``: whether and how long ``pulumi up`` waits for a standalone
        component (default: 60 minutes). ``_graph``/``_component`` are how a
        DynamoGraphDeployment hands over one of its components."""
        standalone = _graph is None
        with reported_to_pulumi():
            if _graph is None:
                if spec is None:
                    raise InputError(f"DynamoComponentDeployment {name!r} needs a spec")
                resolved = resolve_mode(spec, mode)
                _graph = spec if isinstance(spec, GraphPlan) else plan_graph(
                    spec, platform, namespace, name, placement, objects, mode=resolved or "render"
                )
                _require_kind(_graph, DCD_KIND, name, "use DynamoGraphDeployment for graphs")
                _component = _graph.components[0]
            if _component is None:
                raise InputError(f"DynamoComponentDeployment {name!r}: no component given")
            if standalone:
                claim_objects(_graph, [*_graph.graph_objects, *_component.objects], f'{DCD_KIND} "{name}"')
        self.plan = _graph
        self.component = _component
        if standalone:
            record_known_values(_graph.outputs)
        deps = _depends_on(opts)
        readiness = readiness or ReadinessOptions()
        deadline = readiness.timeout_seconds
        super().__init__(DCD_TYPE, name, None, opts)
        self.custom_resource: pulumi.CustomResource | None = None
        self.readiness: ReadinessResource | None = None
        self.resources: list[pulumi.CustomResource] = []
        if _graph.mode == "operator":  # the operator creates the objects; we create the DCD itself
            if standalone:
                self.custom_resource = register_custom_resource(_graph, self, deps, adopt)
                self.readiness = register_operator_mode_readiness(self, _graph, readiness, self.custom_resource)
        else:
            # A standalone DCD owns what would otherwise be graph-level; its pods need that first.
            registered = register_graph_level(_graph.graph_objects, self, _graph, deps, readiness) if standalone else []
            graph_level = [resource for _, resource in registered]
            pods_need = [*deps, *supporting(registered)]
            self.resources = [
                register(planned, self, _graph.outputs, ignore_changes(planned, _graph, _component), pods_need,
                         deadline, readiness.wait)
                for planned in _component.objects
            ]
            if standalone:
                self.readiness = register_readiness(self, _graph, readiness, [*deps, *graph_level, *self.resources])
        self.summary = summarize_component(_component, _graph)
        self.expansion = pulumi.Output.from_input(operator_expansion(_graph) if standalone else [])
        self._export(self.summary)

    def _export(self, summary: ComponentSummary) -> None:
        self.workload_kind = pulumi.Output.from_input(summary.workload_kind)
        self.workload_names = pulumi.Output.from_input(summary.workload_names)
        self.service_name = pulumi.Output.from_input(summary.service_name)
        replicas, gpus = component_counts(self.plan, summary)
        self.replicas = pulumi.Output.from_input(replicas)
        self.gpus = pulumi.Output.from_input(gpus)
        self.register_outputs(
            {
                "workloadKind": self.workload_kind,
                "workloadNames": self.workload_names,
                "serviceName": self.service_name,
                "replicas": self.replicas,
                "gpus": self.gpus,
                "expansion": self.expansion,
            }
        )


class DynamoGraphDeployment(pulumi.ComponentResource):
    """A whole Dynamo inference graph, expanded into what the operator would create."""

    dynamo_namespace: pulumi.Output[str]
    frontend_url: pulumi.Output[str | None]
    total_gpus: pulumi.Output[int]
    component_outputs: pulumi.Output[dict[str, Any]]

    def __init__(
        self,
        name: str,
        spec: SpecSource | GraphPlan,
        namespace: str | None = None,
        platform: PlatformSource = None,
        placement: GpuPlacement | None = None,
        opts: pulumi.ResourceOptions | None = None,
        *,
        objects: Sequence[Mapping[str, Any]] = (),
        mode: str | None = None,
        adopt: bool = False,
        readiness: ReadinessOptions | None = None,
    ) -> None:
        """``spec``: a DGD model, dict (whole object or bare spec), YAML path, or a ready plan.
        ``objects``: other Kubernetes objects of the program that rendering reads (the DRA
        ResourceClaimTemplates and DeviceClasses a DRA-only GPU count comes from).
        ``mode``: ``"render"`` (default: create the rendered objects) or ``"operator"`` (create the
        DGD custom resource for an installed operator); ``adopt`` imports an existing DGD.
        ``readiness``: whether and how long ``pulumi up`` waits for the graph to serve, and how to
        reach the cluster (default: wait up to 60 minutes, ambient connection)."""
        with reported_to_pulumi():
            resolved = resolve_mode(spec, mode)
            plan = spec if isinstance(spec, GraphPlan) else plan_graph(
                spec, platform, namespace, name, placement, objects, mode=resolved or "render"
            )
            _require_kind(plan, DGD_KIND, name, "use DynamoComponentDeployment for a standalone component")
            claim_objects(plan, plan.all_objects(), f'{DGD_KIND} "{name}"')
        self.plan = plan
        record_known_values(plan.outputs)  # offline tools show the values, never stand-ins
        for warning in plan.warnings:
            pulumi.log.warn(f"{plan.kind} {plan.name}: {warning}")
        deps = _depends_on(opts)
        readiness = readiness or ReadinessOptions()
        super().__init__(DGD_TYPE, name, None, opts)
        self.custom_resource: pulumi.CustomResource | None = None
        self.graph_resources: list[pulumi.CustomResource] = []
        self.components: dict[str, DynamoComponentDeployment] = {}
        if plan.mode == "operator":  # the operator expands the DGD; nothing rendered is registered
            self.custom_resource = register_custom_resource(plan, self, deps, adopt)
            self.readiness = register_operator_mode_readiness(self, plan, readiness, self.custom_resource)
        else:
            self._register_rendered(plan, deps, readiness)
            children = [*deps, *self.graph_resources, *(r for c in self.components.values() for r in c.resources)]
            self.readiness = register_readiness(self, plan, readiness, children)
        summary = summarize(plan)
        self.summary = summary
        self.dynamo_namespace = pulumi.Output.from_input(summary.dynamo_namespace)
        self.frontend_url = pulumi.Output.from_input(summary.frontend_url)
        counts = {name: component_counts(plan, s) for name, s in summary.components.items()}
        self.total_gpus = pulumi.Output.from_input(total_of([gpus for _, gpus in counts.values()]))
        self.component_outputs = pulumi.Output.from_input(self._component_outputs(summary, counts))
        self.expansion = pulumi.Output.from_input(operator_expansion(plan))
        self.register_outputs(
            {
                "dynamoNamespace": self.dynamo_namespace,
                "frontendUrl": self.frontend_url,
                "totalGpus": self.total_gpus,
                "components": self.component_outputs,
                "expansion": self.expansion,
            }
        )

    @staticmethod
    def _component_outputs(summary: GraphSummary, counts: dict[str, tuple[Any, Any]]) -> dict[str, Any]:
        """Per component, its summary with the Output-aware replica and GPU counts (the same the
        registered DCDs export; operator mode registers none)."""
        return {
            name: {**s.as_dict(), "replicas": counts[name][0], "gpus": counts[name][1]}
            for name, s in summary.components.items()
        }

    def _register_rendered(self, plan: GraphPlan, deps: list[pulumi.Resource], readiness: ReadinessOptions) -> None:
        """Render mode: graph-level objects under the DGD, one DCD per component (its objects
        after the graph-level objects their pods use); awaited kinds get the graph's deadline."""
        registered = register_graph_level(plan.graph_objects, self, plan, deps, readiness)
        self.graph_resources = [resource for _, resource in registered]
        pods_need = [*deps, *supporting(registered)]
        self.components = {
            component.name: DynamoComponentDeployment(
                component.pulumi_name,
                opts=pulumi.ResourceOptions(parent=self, depends_on=pods_need or None),
                readiness=readiness,
                _graph=plan,
                _component=component,
            )
            for component in plan.components
        }
