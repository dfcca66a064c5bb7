"""The readiness resource each graph registers after its children, and the helper that does it.

Contract shared with operator mode (issue 9), stable once published:

* class :class:`GraphReadiness` (``dynamo_pulumi.resources.readiness``), a Pulumi dynamic
  resource of type ``pulumi-python:dynamic/dynamo:GraphReadiness`` served by
  :class:`dynamo_pulumi.cluster.provider.ReadinessProvider`;
* constructor ``GraphReadiness(name, args: ReadinessArgs, opts=None)``;
* inputs (:class:`ReadinessArgs` fields): ``mode`` ("render" | "operator"), ``kind``
  (DynamoGraphDeployment | DynamoComponentDeployment), ``graph``, ``namespace``, ``targets``
  (list of ``{api_version, kind, namespace, name, component, group}``), ``revision``,
  ``pod_selector``, ``timeout_seconds``, ``update_timeout_seconds``, ``wait``, ``kubeconfig``
  (secret), ``context``, ``cluster``, ``ambient``, ``expansion``
  (``[{apiVersion, kind, name, digest}]``), ``predicted`` (full objects);
* outputs: ``state``, ``ready`` (the ``Ready`` condition), ``components`` (per component
  ``componentKind``, ``componentNames``, ``replicas``, ``updatedReplicas``, ``readyReplicas``,
  ``availableReplicas``), ``drift``;
* helper :func:`register_readiness` (render mode) and :func:`register_operator_readiness`.

The connection is the one of the graph's children (:mod:`.kube_provider`): the kubeconfig,
context and cluster of the Kubernetes provider they inherit (for the default provider the
stack's ``kubernetes:*`` config), and ``ambient`` when they have none, so the wait watches the
cluster the objects went to; an explicit ``kubeconfig``/``context`` in :class:`ReadinessOptions`
wins. The kubeconfig is a secret input and a secret output; it is never logged. What is watched
(``targets``) and its ``revision`` come from the children's outputs (:mod:`.registered`), so a
transformation that changes a workload changes what the wait waits for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import pulumi
import pulumi.dynamic

from dynamo_pulumi.cluster.provider import ReadinessProvider
from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.records import field, record
from dynamo_pulumi.planning.plan import GraphPlan
from dynamo_pulumi.readiness.deadline import DEFAULT_TIMEOUT_SECONDS, parse_duration
from dynamo_pulumi.readiness.targets import DCD_KIND, Mode, WatchTarget, pod_selector
from dynamo_pulumi.resources.kube_provider import ChildrenProvider, Connection
from dynamo_pulumi.resources.readiness_plugin import PluginGraphReadiness
from dynamo_pulumi.resources.registered import Registered, targets_and_revision
from dynamo_pulumi.resources.timeouts import Deadlines

#: The readiness transports (:class:`ReadinessOptions` ``provider``).
TRANSPORTS = ("dynamic", "plugin")

#: A kubeconfig as the user has it: the file's contents or path, or the parsed document.
Kubeconfig = pulumi.Input[str] | pulumi.Input[Mapping[str, Any]]


@record
class ReadinessOptions:
    """What a user says about waiting: whether, how long, and (rarely) how to reach the cluster.

    ``timeout``: the graph's deadline (default 60 minutes; the component's ``custom_timeouts``
    bound it, :mod:`.timeouts`). Without ``kubeconfig`` and ``context`` the wait connects the way
    the graph's children do: their Kubernetes provider's kubeconfig, context and cluster (the
    default provider's: the stack config ``kubernetes:*``), else ``$KUBECONFIG``,
    ``~/.kube/config`` or the in-cluster service account. Give them only to reach the same
    cluster another way (other credentials); ``kubeconfig`` is the file's contents, its path or
    the parsed document (may be a secret Output).

    ``provider`` is the transport: ``"dynamic"`` (default, zero setup: the SDK's dynamic-provider
    host, at most 4 waits at once) or ``"plugin"`` (the ``dynamo`` provider plugin: any number of
    graphs wait at once, progress shown under each resource).
    """

    wait: bool = True
    timeout: float | int | str | None = None
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
    def timeout_given(self) -> int | None:
        """The timeout in seconds when one was given (None: the default applies)."""
        if self.timeout is None:
            return None
        try:
            return parse_duration(self.timeout)
        except ValueError as exc:
            raise InputError(f"readiness {exc}") from None

    @property
    def timeout_seconds(self) -> int:
        given = self.timeout_given
        return DEFAULT_TIMEOUT_SECONDS if given is None else given


def _secret(kubeconfig: Kubeconfig) -> pulumi.Output[Any]:
    """The kubeconfig as a secret; a provider's that turns out to be absent stays absent."""
    if not isinstance(kubeconfig, pulumi.Output):
        return pulumi.Output.secret(kubeconfig)
    return kubeconfig.apply(lambda value: None if value is None else pulumi.Output.secret(value))


@record(frozen=False)
class ReadinessArgs:
    """The readiness resource's inputs (see the module docstring for their meaning)."""

    graph: str
    namespace: str
    targets: pulumi.Input[list[dict[str, str]]]
    revision: pulumi.Input[str]
    kind: str = "DynamoGraphDeployment"
    mode: Mode = "render"
    pod_selector: str = ""
    timeout_seconds: int = DEFAULT_TIMEOUT_SECONDS
    #: An update's deadline when it differs from a create's (None: ``timeout_seconds``).
    update_timeout_seconds: int | None = None
    wait: bool = True
    kubeconfig: Kubeconfig | None = None
    context: pulumi.Input[str] | None = None
    cluster: pulumi.Input[str] | None = None
    #: The children use the ambient connection (True), or a provider's (False).
    ambient: pulumi.Input[bool] = False
    expansion: list[dict[str, Any]] = field(default_factory=list)
    predicted: list[dict[str, Any]] = field(default_factory=list)

    def props(self) -> dict[str, Any]:
        kubeconfig = _secret(self.kubeconfig) if self.kubeconfig is not None else None
        props = {
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
            "cluster": self.cluster,
            "ambient": self.ambient,
            "expansion": self.expansion,
            "predicted": self.predicted,
        }
        if self.update_timeout_seconds is not None:  # absent otherwise: older states stay unchanged
            props["update_timeout_seconds"] = self.update_timeout_seconds
        return props


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


def _connection(options: ReadinessOptions, children: ChildrenProvider) -> Connection:
    """An explicit connection in the options, else the one of the children's provider."""
    if options.kubeconfig is not None or options.context is not None:
        return Connection(options.kubeconfig, options.context)
    return children.connection()


def _component_name(plan: GraphPlan) -> str:
    return plan.components[0].name if plan.kind == DCD_KIND and plan.components else ""


def readiness_name(plan: GraphPlan) -> str:
    return f"{plan.namespace}/{plan.name}"


@record
class ReadinessPlan:
    """What a component hands over to register its readiness resource: the user's options, the
    provider its children use, and the graph's deadlines."""

    options: ReadinessOptions
    children: ChildrenProvider = field(default_factory=ChildrenProvider)
    deadlines: Deadlines = field(default_factory=Deadlines)


def _args(
    plan: GraphPlan, readiness: ReadinessPlan, mode: Mode, targets: pulumi.Input[list[dict[str, str]]],
    revision: pulumi.Input[str], **extra: Any,
) -> ReadinessArgs:
    """The inputs both modes share: identity, what to watch, deadline and connection."""
    connection = _connection(readiness.options, readiness.children)
    deadlines = readiness.deadlines
    return ReadinessArgs(
        graph=plan.name, namespace=plan.namespace, targets=targets, revision=revision,
        kind=plan.kind, mode=mode, pod_selector=pod_selector(plan.kind, plan.name, _component_name(plan)),
        timeout_seconds=deadlines.create, update_timeout_seconds=deadlines.update if deadlines.differ else None,
        wait=readiness.options.wait, kubeconfig=connection.kubeconfig, context=connection.context,
        cluster=connection.cluster, ambient=connection.ambient, **extra,
    )


def _own_timeouts(deadlines: Deadlines) -> pulumi.CustomTimeouts:
    """The deadlines as the readiness resource's own ``customTimeouts`` (what ``pulumi preview``
    shows; the plugin transport's engine passes them on, the dynamic host does not)."""
    return pulumi.CustomTimeouts(create=f"{deadlines.create}s", update=f"{deadlines.update}s")


def register_readiness(
    owner: pulumi.Resource,
    plan: GraphPlan,
    readiness: ReadinessPlan,
    children: Sequence[pulumi.Resource],
    registered: Sequence[Registered] = (),
) -> ReadinessResource:
    """Render mode: one readiness resource under ``owner``, after (depending on) ``children``,
    watching the workloads as ``registered`` (their outputs, after any transformation)."""
    targets, digest = targets_and_revision(registered, plan.namespace)
    args = _args(plan, readiness, "render", targets, digest)
    opts = pulumi.ResourceOptions(parent=owner, depends_on=list(children),
                                  custom_timeouts=_own_timeouts(readiness.deadlines))
    return _registered(readiness.options, readiness_name(plan), args, opts)


def register_operator_readiness(
    owner: pulumi.Resource,
    plan: GraphPlan,
    readiness: ReadinessPlan,
    custom_resource: pulumi.Resource,
    cr_targets: pulumi.Input[list[dict[str, str]]],
    cr_revision: pulumi.Input[str],
    expansion: Sequence[Mapping[str, Any]] = (),
    predicted: Sequence[Mapping[str, Any]] = (),
) -> ReadinessResource:
    """Operator mode: watch the DGD/DCD custom resource itself; ``cr_revision`` digests its spec
    and ``cr_targets`` name it, both as registered."""
    args = _args(plan, readiness, "operator", cr_targets, cr_revision,
                 expansion=[dict(e) for e in expansion], predicted=[dict(p) for p in predicted])
    # ``predicted`` (the full predicted objects, for the drift check) changes with ``expansion``; the
    # compact expansion is what `pulumi preview --diff` should show, not nested object diffs.
    opts = pulumi.ResourceOptions(parent=owner, depends_on=[custom_resource], hide_diffs=["predicted"],
                                  custom_timeouts=_own_timeouts(readiness.deadlines))
    return _registered(readiness.options, readiness_name(plan), args, opts)


def watch_targets(props: Mapping[str, Any]) -> list[WatchTarget]:
    """The targets a registered resource's inputs name (tests, ``status``)."""
    return [WatchTarget.from_input(t) for t in props.get("targets") or ()]
