"""One rendered object (a plain dict) -> one Pulumi resource, with the options its kind needs.

Built-in kinds use the typed ``pulumi_kubernetes`` classes (so the provider applies its own await
and force-new logic to them); anything the typed SDK does not know (PodCliqueSet,
LeaderWorkerSet, InferencePool, VirtualService, DestinationRule, DGDSA, ...) becomes an
``apiextensions.CustomResource``. ``metadata.name`` is always the operator's name: nothing is
auto-named.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from dynamo_pulumi.floor.constants import CLUSTER_SCOPED_KINDS
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.planning.options import deletes_first, replace_on_changes
from dynamo_pulumi.planning.plan import PlannedObject
from dynamo_pulumi.planning.unknowns import OutputTable, restore
from dynamo_pulumi.resources.awaits import await_timeouts, with_await_annotations
from dynamo_pulumi.resources.timeouts import Deadlines
from dynamo_pulumi.resources.triggers import replacement_trigger

#: API group -> pulumi_kubernetes module (the typed SDK's package layout).
_GROUP_MODULES: dict[str, str] = {
    "": "core",
    "apps": "apps",
    "batch": "batch",
    "autoscaling": "autoscaling",
    "policy": "policy",
    "rbac.authorization.k8s.io": "rbac",
    "networking.k8s.io": "networking",
    "resource.k8s.io": "resource",
    "scheduling.k8s.io": "scheduling",
    "storage.k8s.io": "storage",
    "coordination.k8s.io": "coordination",
    "discovery.k8s.io": "discovery",
}

_HEADER = ("apiVersion", "kind")


def _split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


@cache
def typed_class(api_version: str, kind: str) -> type[pulumi.CustomResource] | None:
    """The typed ``pulumi_kubernetes`` class of a built-in kind, or None for custom resources."""
    group, version = _split_api_version(api_version)
    package = _GROUP_MODULES.get(group)
    if package is None:
        return None
    try:
        module = importlib.import_module(f"pulumi_kubernetes.{package}.{version}")
    except ModuleNotFoundError:
        return None
    cls = getattr(module, kind, None)
    return cls if isinstance(cls, type) and issubclass(cls, pulumi.CustomResource) else None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _typed_kwargs(obj: dict[str, Any]) -> dict[str, Any]:
    """Top-level fields as the typed class's keyword arguments (``roleRef`` -> ``role_ref``)."""
    return {_snake(key): value for key, value in obj.items() if key not in _HEADER}


def _custom_kwargs(obj: dict[str, Any]) -> dict[str, Any]:
    rest = {key: value for key, value in obj.items() if key not in (*_HEADER, "metadata")}
    return {"api_version": obj["apiVersion"], "kind": obj["kind"], "metadata": obj.get("metadata"), **rest}


@record
class ChildPolicy:
    """What the graph decides for every child: its deadlines (awaited kinds), whether the
    readiness resource waits, whether to adopt."""

    deadlines: Deadlines | None = None
    readiness_waits: bool = True
    #: ``adopt=True`` in render mode: every object is imported by its Kubernetes id.
    adopt: bool = False


#: Immutable fields the API server fills in when an object leaves them unset, which
#: pulumi-kubernetes replaces the object to change (a Service's ``clusterIP``; a claim's volume
#: and storage class once bound). An imported object's inputs are read from the live object and
#: hold the assigned value; the rendered object does not, so the engine's diff after the import
#: is a replacement, refused for an import ("previously-imported resources that still specify an
#: ID may not be replaced", seen with the real engine, tests/e2e/test_engine_provider_conventions.py).
SERVER_ASSIGNED: dict[tuple[str, str], tuple[str, ...]] = {
    ("v1", "Service"): ("spec.clusterIP",),
    ("v1", "PersistentVolumeClaim"): ("spec.volumeName", "spec.storageClassName"),
}


def server_assigned(planned: PlannedObject) -> list[str]:
    """The :data:`SERVER_ASSIGNED` paths the rendered object leaves to the server: ignored, so
    the assigned value stays (an object that sets one is diffed on it as before). Ignored for
    every object, adopted or not: an adopted one keeps the assigned value in its inputs, and a
    later ``up`` without ``adopt`` must not replace it for that; for a created one the path is
    absent on both sides, and ignoring it changes nothing."""
    spec = planned.obj.get("spec") or {}
    paths = SERVER_ASSIGNED.get((planned.api_version, planned.kind), ())
    return [path for path in paths if path.removeprefix("spec.") not in spec]


def import_id(planned: PlannedObject) -> str:
    """pulumi-kubernetes' import id of an object: ``namespace/name`` (``name`` when cluster-scoped)."""
    namespace = (planned.obj.get("metadata") or {}).get("namespace")
    if planned.kind in CLUSTER_SCOPED_KINDS or not namespace:
        return planned.name
    return f"{namespace}/{planned.name}"


def child_options(
    planned: PlannedObject,
    parent: pulumi.Resource,
    ignore_changes: list[str] | None = None,
    depends_on: list[pulumi.Resource] | None = None,
    policy: ChildPolicy | None = None,
) -> pulumi.ResourceOptions:
    """Parent, replacement, ignore, await and import rules for one object (providers flow from
    the parent). A namespace-shared patch is never imported: server-side apply already takes
    the object over, sharing it with the other graphs' patches."""
    policy = policy or ChildPolicy()
    replace = replace_on_changes(planned.api_version, planned.kind)
    ignored = [*(ignore_changes or []), *server_assigned(planned)]
    return pulumi.ResourceOptions(
        parent=parent,
        ignore_changes=ignored or None,
        replace_on_changes=replace or None,
        delete_before_replace=deletes_first(planned) or None,
        depends_on=depends_on or None,
        custom_timeouts=await_timeouts(planned, policy.deadlines, policy.readiness_waits),
        replacement_trigger=replacement_trigger(planned.api_version, planned.kind, planned.obj),
        import_=import_id(planned) if policy.adopt and not planned.shared else None,
    )


def _register_shared(planned: PlannedObject, obj: dict[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """A namespace-shared object as the typed ``*Patch`` class: server-side apply creates it if
    missing and lets every graph of the namespace co-own the same fields.

    Co-ownership holds only while every graph applies the same values: each patch keeps the field
    manager the provider generates for it (stored in its state), and nothing graph-specific is
    written into the object. A ``pulumi.com/patchFieldManager`` annotation naming the graph would
    be sent as an annotation too, with a different value per graph, and the second graph of a
    namespace would fail on that field ("Server-Side Apply field conflict", seen with the real
    engine, tests/e2e/test_engine_diff.py).

    The object outlives the graph, as the operator leaves it: the patch is retained on delete,
    because deleting a patch that is the last manager of a required field (a RoleBinding's
    ``roleRef``) is refused by the provider, which would fail ``pulumi destroy`` of the
    namespace's last graph (seen with the real engine, tests/e2e/)."""
    cls = typed_class(planned.api_version, f"{planned.kind}Patch")
    if cls is None:  # pragma: no cover - every shared kind has a Patch class
        raise TypeError(f"no server-side-apply patch class for {planned.kind}")
    opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(retain_on_delete=True))
    return cls(planned.pulumi_name, opts=opts, **_typed_kwargs(obj))


def register(
    planned: PlannedObject,
    parent: pulumi.Resource,
    outputs: OutputTable,
    ignore_changes: list[str] | None = None,
    depends_on: list[pulumi.Resource] | None = None,
    policy: ChildPolicy | None = None,
) -> pulumi.CustomResource:
    """Create the Pulumi resource for one planned object, Outputs restored at their leaves.

    An adopted object carries our ``pulumi.com/skipAwait`` too: pulumi-kubernetes imports every
    input property of the live object (the server's defaults included), so the import is
    followed by an update in the same ``up`` whatever we send, and without the annotation that
    update would run the provider's own await of each Service and worker (10 s per Service on
    the local cluster, seen with the real engine) before the readiness resource waits anyway."""
    policy = policy or ChildPolicy()
    obj = with_await_annotations(restore(planned.obj, outputs), planned, policy.readiness_waits)
    opts = child_options(planned, parent, ignore_changes, depends_on, policy)
    if planned.shared:
        return _register_shared(planned, obj, opts)
    cls = typed_class(planned.api_version, planned.kind)
    if cls is not None:
        return cls(planned.pulumi_name, opts=opts, **_typed_kwargs(obj))
    return k8s.apiextensions.CustomResource(planned.pulumi_name, opts=opts, **_custom_kwargs(obj))
