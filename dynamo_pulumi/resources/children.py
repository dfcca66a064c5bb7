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

from dynamo_pulumi.planning.options import deletes_first, replace_on_changes
from dynamo_pulumi.planning.plan import PlannedObject
from dynamo_pulumi.planning.unknowns import OutputTable, restore
from dynamo_pulumi.resources.awaits import await_timeouts, with_await_annotations
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


def child_options(
    planned: PlannedObject,
    parent: pulumi.Resource,
    ignore_changes: list[str] | None = None,
    depends_on: list[pulumi.Resource] | None = None,
    timeout_seconds: int | None = None,
    readiness_waits: bool = True,
) -> pulumi.ResourceOptions:
    """Parent, replacement, ignore and await rules for one object (providers flow from the
    parent). ``timeout_seconds`` is the graph's readiness deadline, given to awaited kinds;
    ``readiness_waits`` says whether the graph's readiness resource waits (see awaits.py)."""
    replace = replace_on_changes(planned.api_version, planned.kind)
    return pulumi.ResourceOptions(
        parent=parent,
        ignore_changes=list(ignore_changes) if ignore_changes else None,
        replace_on_changes=replace or None,
        delete_before_replace=deletes_first(planned) or None,
        depends_on=depends_on or None,
        custom_timeouts=await_timeouts(planned, timeout_seconds, readiness_waits),
        replacement_trigger=replacement_trigger(planned.api_version, planned.kind, planned.obj),
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
    timeout_seconds: int | None = None,
    readiness_waits: bool = True,
) -> pulumi.CustomResource:
    """Create the Pulumi resource for one planned object, Outputs restored at their leaves."""
    obj = with_await_annotations(restore(planned.obj, outputs), planned, readiness_waits)
    opts = child_options(planned, parent, ignore_changes, depends_on, timeout_seconds, readiness_waits)
    if planned.shared:
        return _register_shared(planned, obj, opts)
    cls = typed_class(planned.api_version, planned.kind)
    if cls is not None:
        return cls(planned.pulumi_name, opts=opts, **_typed_kwargs(obj))
    return k8s.apiextensions.CustomResource(planned.pulumi_name, opts=opts, **_custom_kwargs(obj))
