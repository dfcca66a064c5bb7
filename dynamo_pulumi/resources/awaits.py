"""What pulumi-kubernetes should await per child kind, and for how long (readiness-lifecycle B1, B9).

The graph's readiness resource is the one wait that means "the graph serves". The provider's own
awaits must never give up before it does: its default is 10 minutes, and a Deployment whose pods
load a 70B model for 20 minutes would fail the update at minute 10. So every awaited built-in
kind gets the graph's timeout as ``customTimeouts`` (which wins over the
``pulumi.com/timeoutSeconds`` annotation) for create, update and delete.

Kinds whose await only duplicates the graph's wait, and which can skip it safely, get
``pulumi.com/skipAwait``: a selector Service (it waits for endpoints, i.e. for the same pods) and
an Ingress (it waits for a load-balancer address the operator never waits for). For these two
kinds pulumi-kubernetes still waits for *deletion* with skipAwait set (only Namespace, Pod,
ReplicationController, DaemonSet, Deployment, StatefulSet and Job skip the delete wait), so a
fixed-name delete-before-replace cannot race its own deletion. Deployments keep their await:
skipAwait would also skip their delete wait.
"""

from __future__ import annotations

from typing import Any, Final

import pulumi

#: Built-in kinds pulumi-kubernetes awaits that our graphs render (apiVersion, kind).
AWAITED_KINDS: Final = frozenset(
    {
        ("apps/v1", "Deployment"),
        ("apps/v1", "StatefulSet"),
        ("batch/v1", "Job"),
        ("v1", "Pod"),
        ("v1", "PersistentVolumeClaim"),
    }
)
#: Kinds whose await duplicates the graph's wait and whose delete wait survives skipAwait.
SKIP_AWAIT_KINDS: Final = frozenset({("v1", "Service"), ("networking.k8s.io/v1", "Ingress")})
SKIP_AWAIT_ANNOTATION: Final = "pulumi.com/skipAwait"


def await_timeouts(api_version: str, kind: str, timeout_seconds: int | None) -> pulumi.CustomTimeouts | None:
    """The graph's deadline for an awaited kind (None: not awaited, or no deadline given)."""
    if timeout_seconds is None or (api_version, kind) not in AWAITED_KINDS:
        return None
    text = f"{int(timeout_seconds)}s"
    return pulumi.CustomTimeouts(create=text, update=text, delete=text)


def with_await_annotations(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with ``pulumi.com/skipAwait: "true"`` when its kind's await is redundant.

    Returns a shallow copy with new ``metadata``/``annotations`` mappings; ``obj`` is untouched
    (the rendered object stays the operator's).
    """
    if (str(obj.get("apiVersion", "")), str(obj.get("kind", ""))) not in SKIP_AWAIT_KINDS:
        return obj
    metadata = dict(obj.get("metadata") or {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), SKIP_AWAIT_ANNOTATION: "true"}
    return {**obj, "metadata": metadata}
