"""The readiness resource each graph registers after its children, and the helper that does it.

Contract shared with operator mode (issue 9), stable once published:

* class :class:`GraphReadiness` (``dynamo_pulumi.resources.readiness``), a Pulumi dynamic
  resource of type ``pulumi-python:dynamic/dynamo:GraphReadiness`` served by
  :class:`dynamo_pulumi.cluster.provider.ReadinessProvider`;
* constructor ``GraphReadiness(name, args: ReadinessArgs, opts=None)``;
* inputs (:class:`ReadinessArgs` fields): ``mode`` ("render" | "operator"), ``kind``
  (DynamoGraphDeployment | DynamoComponentDeployment), ``graph``, ``namespace``, ``targets``
  (list of ``{api_version, kind, namespace, name, component, group}``), ``revision``,
  ``pod_selector``, ``timeout_seconds``, ``wait``, ``kubeconfig`` (secret), ``context``,
  ``expansion`` (``[{apiVersion, kind, name, digest}]``), ``predicted`` (full objects);
* outputs: ``state``, ``ready`` (the ``Ready`` condition), ``components`` (per component
  ``componentKind``, ``componentNames``, ``replicas``, ``updatedReplicas``, ``readyReplicas``,
  ``availableReplicas``), ``drift``;
* helper :func:`register_readiness` (render mode) and :func:`register_operator_readiness`.

The kubeconfig, when given (or found in the stack config ``kubernetes:kubeconfig``), is a secret
input and a secret output; it is never logged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pulumi
import pulumi.dynamic

from dynamo_pulumi.cluster.provider import ReadinessProvider
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.planning.plan import GraphPlan
from dynamo_pulumi.planning.unknowns import restore
from dynamo_pulumi.readiness.deadline import DEFAULT_TIMEOUT_SECONDS, parse_duration
from dynamo_pulumi.readiness.plan_inputs import revision_workloads
from dynamo_pulumi.readiness.targets import (
    DCD_KIND,
    Mode,
    WatchTarget,
    operator_targets,
    pod_selector,
    render_targets,
    revision,
)
from dynamo_pulumi.resources.readiness_plugin import PluginGraphReadiness, provider_config_given

#: The readiness transports (:class:`ReadinessOptions` ``provider``).
TRANSPORTS = ("dynamic", "plugin")

#: A kubeconfig as the user has it: the file's contents or path, or the parsed document.
Kubeconfig = pulumi.Input[str] | pulumi.Input[Mapping[str, Any]]


@dataclass(frozen=True)
class ReadinessOptions:
    """What a user says about waiting: whether, how long, and how to reach the cluster.

    ``kubeconfig`` is the file's contents, its path or the parsed document (may be a secret
    Output, e.g. pulumi-eks' ``kubeconfig`` or ``kubeconfig_json``); without it and
    without ``context`` the stack config ``kubernetes:kubeconfig`` / ``kubernetes:context`` is
    used, else ``$KUBECONFIG``, ``~/.kube/config`` or the in-cluster service account.

    ``provider`` is the transport: ``"dynamic"`` (default, zero setup: the SDK's dynamic-provider
    host, at most 4 waits at once) or ``"plugin"`` (the ``dynamo`` provider plugin: any number of
    graphs wait at once, progress shown under each resource; with the plugin, the stack config
    ``dynamo:kubeconfig``/``dynamo:context`` configures the connection once for all graphs).
    """

    wait: bool = True
    timeout: float | int | str = DEFAULT_TIMEOUT_SECONDS
    kubeconfig: Kubeconfig | None = None
    context: str | None = None
    provider: Literal["dynamic", "plugin"] = "dynamic"

    def __post_init__(self) -> None:
        # Refused when the options are made, so a bad timeout registers nothing.
        _ = self.timeout_seconds
        if not isinstance(self.wait, bool):
            raise InputError(f"readiness wait must be true or false, not {self.wait!r}")
        if self.provider not in TRANSPORTS:
            raise InputError(f"readiness provider must be one of {', '.join(TRANSPORTS)}, not {self.provider!r}")

    @property
    def timeout_seconds(self) -> int:
        try:
            return parse_duration(self.timeout)
        except ValueError as exc:
            raise InputError(f"readiness {exc}") from None


@dataclass
class ReadinessArgs:
    """The readiness resource's inputs (see the module docstring for their meaning)."""

    graph: str
    namespace: str
    targets: list[dict[str, str]]
    revision: pulumi.Input[str]
    kind: str = "DynamoGraphDeployment"
    mode: Mode = "render"
    pod_selector: str = ""
    timeout_seconds: int = DEFAULT_TIMEOUT_SECONDS
    wait: bool = True
    kubeconfig: Kubeconfig | None = None
    context: str | None = None
    expansion: list[dict[str, Any]] = field(default_factory=list)
    predicted: list[dict[str, Any]] = field(default_factory=list)

    def props(self) -> dict[str, Any]:
        kubeconfig = pulumi.Output.secret(self.kubeconfig) if self.kubeconfig is not None else None
        return {
            "mode": self.mode,
            "kind": self.kind,
            "graph": self.graph,
            "namespace": self.namespace,
            "targets": self.targets,
            "revision": self.revision,
            "pod_selector": self.pod_selector,
            "timeout_seconds": self.timeout_seconds,
            "wait": self.wait,
            "kubeconfig": kubeconfig,
            "context": self.context,
            "expansion": self.expansion,
            "predicted": self.predicted,
        }


class GraphReadiness(pulumi.dynamic.Resource, module="dynamo", name="GraphReadiness"):
    """Waits, during ``pulumi up``, until the graph it watches is ready; see the module docstring."""

    state: pulumi.Output[str]
    ready: pulumi.Output[dict[str, Any]]
    components: pulumi.Output[dict[str, Any]]
    drift: pulumi.Output[list[dict[str, Any]]]

    def __init__(self, name: str, args: ReadinessArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        secret = pulumi.ResourceOptions(additional_secret_outputs=["kubeconfig"])
        props = {**args.props(), "state": None, "ready": None, "components": None, "drift": None}
        super().__init__(ReadinessProvider(), name, props, pulumi.ResourceOptions.merge(secret, opts))


#: The readiness resource of either transport.
ReadinessResource = GraphReadiness | PluginGraphReadiness


def _registered(
    options: ReadinessOptions, name: str, args: ReadinessArgs, opts: pulumi.ResourceOptions,
) -> ReadinessResource:
    """The readiness resource on the transport the options name (same name, inputs, outputs)."""
    if options.provider == "plugin":
        return PluginGraphReadiness(name, args.props(), opts)
    return GraphReadiness(name, args, opts)


def _connection(options: ReadinessOptions) -> tuple[Kubeconfig | None, str | None]:
    """The explicit connection, else the stack config pulumi-kubernetes would read."""
    if options.kubeconfig is not None or options.context is not None:
        return options.kubeconfig, options.context
    if options.provider == "plugin" and provider_config_given():
        return None, None  # the dynamo provider's own configuration connects
    from dynamo_pulumi.cluster.connection import ambient_kubeconfig

    return ambient_kubeconfig()


def _rendered_revision(plan: GraphPlan) -> pulumi.Output[str]:
    """Digest of the rendered workloads as updates send them (:func:`revision_workloads`), with
    their Outputs resolved (unknown during preview when an Output is, which makes preview show an
    update, as it should)."""
    workloads = [restore(obj, plan.outputs) for obj in revision_workloads(plan)]
    return pulumi.Output.from_input(workloads).apply(revision)


def _component_name(plan: GraphPlan) -> str:
    return plan.components[0].name if plan.kind == DCD_KIND and plan.components else ""


def readiness_name(plan: GraphPlan) -> str:
    return f"{plan.namespace}/{plan.name}"


def _args(
    plan: GraphPlan, options: ReadinessOptions, mode: Mode, targets: Sequence[WatchTarget],
    revision: pulumi.Input[str], **extra: Any,
) -> ReadinessArgs:
    """The inputs both modes share: identity, what to watch, deadline and connection."""
    kubeconfig, context = _connection(options)
    return ReadinessArgs(
        graph=plan.name, namespace=plan.namespace, targets=[t.as_input() for t in targets], revision=revision,
        kind=plan.kind, mode=mode, pod_selector=pod_selector(plan.kind, plan.name, _component_name(plan)),
        timeout_seconds=options.timeout_seconds, wait=options.wait, kubeconfig=kubeconfig, context=context,
        **extra,
    )


def register_readiness(
    owner: pulumi.Resource,
    plan: GraphPlan,
    options: ReadinessOptions,
    children: Sequence[pulumi.Resource],
) -> ReadinessResource:
    """Render mode: one readiness resource under ``owner``, after (depending on) ``children``."""
    targets = render_targets([p.obj for p in plan.all_objects()], plan.namespace)
    args = _args(plan, options, "render", targets, _rendered_revision(plan))
    return _registered(options, readiness_name(plan), args,
                       pulumi.ResourceOptions(parent=owner, depends_on=list(children)))


def register_operator_readiness(
    owner: pulumi.Resource,
    plan: GraphPlan,
    options: ReadinessOptions,
    custom_resource: pulumi.Resource,
    cr_revision: pulumi.Input[str],
    expansion: Sequence[Mapping[str, Any]] = (),
    predicted: Sequence[Mapping[str, Any]] = (),
) -> ReadinessResource:
    """Operator mode: watch the DGD/DCD custom resource itself; ``cr_revision`` digests its spec."""
    targets = operator_targets(plan.kind, plan.name, plan.namespace)
    args = _args(plan, options, "operator", targets, cr_revision,
                 expansion=[dict(e) for e in expansion], predicted=[dict(p) for p in predicted])
    # ``predicted`` (the full predicted objects, for the drift check) changes with ``expansion``; the
    # compact expansion is what `pulumi preview --diff` should show, not nested object diffs.
    opts = pulumi.ResourceOptions(parent=owner, depends_on=[custom_resource], hide_diffs=["predicted"])
    return _registered(options, readiness_name(plan), args, opts)


def watch_targets(props: Mapping[str, Any]) -> list[WatchTarget]:
    """The targets a registered resource's inputs name (tests, ``status``)."""
    return [WatchTarget.from_input(t) for t in props.get("targets") or ()]
