"""The Kubernetes provider a component's children use, and what that provider decides.

A pulumi-kubernetes user says where objects go with a provider: ``opts=ResourceOptions(provider=p)``,
``providers=[p]``, ``providers={"kubernetes": p}``, a parent component that holds one, or none at
all (the default provider, configured by the stack's ``kubernetes:*`` keys). The children of our
components inherit it through Pulumi's parent chain; :func:`children_provider` resolves it the
way the SDK does for a child (``Resource._get_providers``: the ``providers`` entry of the
package, else an explicit ``provider`` of it, else the parent's), before the component exists, because
the plan needs what the provider decides:

* the **cluster** the readiness resource watches: the provider's ``kubeconfig``, ``context`` and
  ``cluster`` (for the default provider the stack's), and the ambient connection exactly when the
  children have none either (:meth:`ChildrenProvider.connection`);
* the graph's **default namespace**: the provider's ``namespace``, which pulumi-kubernetes gives
  objects that name none (Chart v4 and ConfigGroup follow it too); a ``namespace=`` argument or
  the graph's ``metadata.namespace`` wins, as an object's own namespace wins over the provider's;
* whether **server-side apply** is on: the namespace-shared objects are ``*Patch`` resources,
  which the provider refuses without it (:func:`check_patchable`).

An explicit provider's settings are read from its state through the engine
(``pulumi:pulumi:getResource``, the provider's outputs are its inputs): the SDK's attribute
Outputs do not resolve its multi-word inputs (``enableServerSideApply``), and a provider a
multi-language caller hands to ``Construct`` is a bare reference without any. A setting the plan
needs now (the namespace when none is given, server-side apply when the graph has shared
objects) waits for the provider's registration, as a synchronous invoke does; the connection
never waits (it stays an Output of the readiness resource).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import pulumi

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.kube_names import dns1123_label_problems
from dynamo_pulumi.floor.records import record

if TYPE_CHECKING:
    from dynamo_pulumi.planning.plan import GraphPlan

#: The package whose provider the Kubernetes children use.
KUBERNETES: Final = "kubernetes"
#: A type of that package, to ask the SDK which provider a child of a resource inherits.
_MEMBER: Final = "kubernetes:core/v1:Service"
#: The engine's invoke that returns a registered resource's state.
GET_RESOURCE: Final = "pulumi:pulumi:getResource"
#: pulumi-kubernetes' environment switch for the default provider's server-side apply.
SSA_ENV: Final = "PULUMI_K8S_ENABLE_SERVER_SIDE_APPLY"
#: The connection keys of a provider's (and the default provider's) configuration.
CONNECTION_KEYS: Final = ("kubeconfig", "context", "cluster")


def _package(provider: Any) -> str | None:
    return getattr(provider, "package", None)


def _listed(providers: Any) -> dict[str, pulumi.ProviderResource]:
    if isinstance(providers, Mapping):
        return dict(providers)
    if isinstance(providers, Sequence) and not isinstance(providers, str):
        return {p.package: p for p in providers}
    return {}


def children_provider(opts: pulumi.ResourceOptions | None) -> pulumi.ProviderResource | None:
    """The Kubernetes provider a child of a component made with ``opts`` inherits (None: the
    default provider). Mirrors the SDK: ``providers`` first for the children's map (an explicit
    ``provider`` of a package already in it does not replace it), then ``provider``, then what
    the parent passes down."""
    opts = opts or pulumi.ResourceOptions()
    given = _listed(opts.providers)
    if KUBERNETES in given:
        return given[KUBERNETES]
    if opts.provider is not None and _package(opts.provider) == KUBERNETES:
        return opts.provider
    # without a parent the SDK inherits nothing (the stack passes no providers down)
    return opts.parent.get_provider(_MEMBER) if opts.parent is not None else None


def _is_unknown(value: Any) -> bool:
    from pulumi.output import Unknown
    from pulumi.runtime.rpc import UNKNOWN

    return isinstance(value, Unknown) or (isinstance(value, str) and value == UNKNOWN)


def _flag(value: Any) -> bool | None:
    """A provider boolean as the provider reads it (its inputs are JSON text: ``"true"``)."""
    if value is None or _is_unknown(value):
        return None
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() == "true"


@record
class ProviderSettings:
    """What a provider decides for the plan, as plain values. ``namespace_known`` and
    ``server_side_apply is None`` say a value is not known yet (preview of a provider whose
    input is another resource's output)."""

    namespace: str | None = None
    namespace_known: bool = True
    server_side_apply: bool | None = True


def _explicit_settings(provider: pulumi.ProviderResource) -> ProviderSettings:
    """An explicit provider's settings, read from its registered state (waits for it)."""
    result = pulumi.runtime.invoke(GET_RESOURCE, {"urn": provider.urn})
    state = dict(((result.value or {}).get("state")) or {})
    namespace = state.get("namespace")
    return ProviderSettings(
        namespace=None if _is_unknown(namespace) else (namespace or None),
        namespace_known=not _is_unknown(namespace),
        # absent: pulumi-kubernetes 4 applies server-side (the SDK already put the env value in)
        server_side_apply=True if "enableServerSideApply" not in state else _flag(state["enableServerSideApply"]),
    )


def _default_settings() -> ProviderSettings:
    """The default provider's settings: the stack's ``kubernetes:*`` config, then the
    environment pulumi-kubernetes reads (``Configure``: config wins over the variable)."""
    config = pulumi.Config(KUBERNETES)
    ssa = config.get("enableServerSideApply")
    if ssa is None:
        ssa = os.environ.get(SSA_ENV)
    return ProviderSettings(
        namespace=config.get("namespace") or None,
        server_side_apply=True if ssa is None else _flag(ssa),
    )


@record
class Connection:
    """The readiness resource's connection inputs: what the children's provider connects with.

    ``ambient`` (an Output for an explicit provider) is true exactly when the children use the
    ambient connection (``$KUBECONFIG``, ``~/.kube/config``, in-cluster): the readiness
    resource then uses it too, whatever the ``dynamo`` plugin is configured with."""

    kubeconfig: pulumi.Input[Any] | None = None
    context: pulumi.Input[str] | None = None
    cluster: pulumi.Input[str] | None = None
    ambient: pulumi.Input[bool] = False


def _attribute(provider: pulumi.ProviderResource, key: str) -> pulumi.Output[Any] | None:
    value = provider.__dict__.get(key)
    return value if isinstance(value, pulumi.Output) else None


@record
class ChildrenProvider:
    """The provider the children use (None: the default provider) and what it decides."""

    provider: pulumi.ProviderResource | None = None

    @classmethod
    def of(cls, opts: pulumi.ResourceOptions | None) -> ChildrenProvider:
        return cls(children_provider(opts))

    def describe(self) -> str:
        """How messages name it: ``provider "gke"`` or ``the default kubernetes provider``."""
        if self.provider is None:
            return "the default kubernetes provider"
        name = getattr(self.provider, "_name", "") or ""
        if not name:  # a bare reference (Construct): its name is the URN's last part
            from pulumi.runtime.sync_await import _sync_await

            urn = _sync_await(self.provider.urn.future()) or ""
            name = urn.rsplit("::", 1)[-1]
        return f'provider "{name}"'

    def settings(self) -> ProviderSettings:
        """The namespace and server-side apply the children get (for an explicit provider this
        waits for its registration)."""
        return _default_settings() if self.provider is None else _explicit_settings(self.provider)

    def default_namespace(self, owner: str = "") -> str:
        """The graph's namespace when neither ``namespace=`` nor ``metadata.namespace`` names one:
        the provider's, else ``default``. Refused when not known at preview or not a namespace
        (``owner`` names the component in the error)."""
        settings = self.settings()
        prefix = f"{owner}: " if owner else ""
        if not settings.namespace_known:
            raise InputError(
                f"{prefix}the namespace of {self.describe()} is not known yet (it is another resource's output, "
                "unknown during preview), and the rendered names, the Dynamo namespace and the readiness "
                "targets need it now: pass namespace= to the component, or give the provider a plain namespace"
            )
        namespace = settings.namespace or "default"
        problems = dns1123_label_problems(namespace)
        if problems:
            raise InputError(f"{prefix}the namespace {namespace!r} of {self.describe()} is not a valid Kubernetes "
                             "namespace (DNS-1123 label): " + "; ".join(problems))
        return namespace

    def connection(self) -> Connection:
        """Where the children go, as readiness inputs (never waits)."""
        if self.provider is None:
            config = pulumi.Config(KUBERNETES)
            stack_kubeconfig = config.get_secret("kubeconfig")
            stack_context, stack_cluster = config.get("context"), config.get("cluster")
            return Connection(stack_kubeconfig, stack_context, stack_cluster,
                              stack_kubeconfig is None and not stack_context and not stack_cluster)
        found = [_attribute(self.provider, key) for key in CONNECTION_KEYS]
        values: list[pulumi.Output[Any]] = [v for v in found if v is not None]
        if len(values) < len(CONNECTION_KEYS):  # a bare reference: read its state
            state = pulumi.runtime.invoke_output(GET_RESOURCE, {"urn": self.provider.urn}).apply(_state_of)
            values = [state.apply(_key(key)) for key in CONNECTION_KEYS]
        kubeconfig, context, cluster = values
        ambient = pulumi.Output.all(*values).apply(_none_given)
        return Connection(kubeconfig, context, cluster, ambient)


def _state_of(result: Any) -> dict[str, Any]:
    return dict(((result or {}).get("state")) or {})


def _key(key: str) -> Callable[[Mapping[str, Any]], Any]:
    def value(state: Mapping[str, Any]) -> Any:
        return state.get(key) or None

    return value


def _none_given(values: Sequence[Any]) -> bool:
    return not any(values)


def lazily(resolve: Callable[[], str]) -> Callable[[], str]:
    """``resolve`` called at most once (the plan asks for the default namespace only when the
    graph names none)."""
    cache: list[str] = []

    def once() -> str:
        if not cache:
            cache.append(resolve())
        return cache[0]

    return once


def check_patchable(plan: GraphPlan, children: ChildrenProvider, owner: str) -> None:
    """Refuse, before anything is registered, a render-mode graph with namespace-shared objects
    (registered as ``*Patch`` resources) on a provider with server-side apply off, which would
    refuse every one of them ("patch resources require Server-side Apply mode")."""
    shared = [p for p in plan.all_objects() if p.shared]
    if plan.mode != "render" or not shared:
        return
    if children.settings().server_side_apply is not False:  # on, or not known before `up`
        return
    objects = ", ".join(f"{p.kind} {p.name}" for p in shared)
    kinds = ", ".join(dict.fromkeys(p.resource_kind for p in shared))
    raise InputError(
        f"{owner}: {children.describe()} has server-side apply off (enableServerSideApply: false), and this "
        f"graph needs it: {objects} are shared by every graph in namespace {plan.namespace!r} (a cluster-wide "
        "operator creates them once per namespace, with no owner), so each graph applies its share as a "
        f"server-side-apply patch ({kinds}), which pulumi-kubernetes refuses without it. Turn server-side "
        "apply on for that provider (enable_server_side_apply=True, the pulumi-kubernetes default; for the "
        "default provider the stack config kubernetes:enableServerSideApply), or use mode=\"operator\" "
        "(the operator creates them)"
    )


def refuse_component_import(opts: pulumi.ResourceOptions | None, kind: str, name: str) -> None:
    """``opts.import_`` on our component: Pulumi imports custom resources only and ignores it on
    a component, so it would silently adopt nothing; ``adopt=True`` is the way."""
    if opts is not None and opts.import_:
        raise InputError(
            f'{kind} "{name}": opts.import_ imports one custom resource by its id, and Pulumi ignores it on a '
            f"component such as this one; adopt=True imports what the graph creates (render mode: every "
            f"rendered object by namespace/name; operator mode: the {kind} custom resource)"
        )
