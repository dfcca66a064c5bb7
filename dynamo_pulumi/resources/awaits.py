"""What pulumi-kubernetes should await per child, and for how long (readiness-lifecycle B1, B9).

The graph's readiness resource is the one wait that means "the graph serves", and the one that
explains a stuck component ("decode: 0/2 ready: Unschedulable: ..."). The provider's own awaits
must never give up before it does (its default is 10 minutes; a Deployment whose pods load a 70B
model for 20 minutes would fail the update at minute 10), and where they would only duplicate
it they are skipped, so a failure surfaces in the readiness resource's words.

What ``pulumi.com/skipAwait: "true"`` does, read in pulumi-kubernetes
(``provider/pkg/await/await.go``, ``provider/pkg/metadata/overrides.go``):

* create and update: ``ReadyCondition`` returns an immediate condition, so the object counts as
  created/updated as soon as the API server stores it (the Deployment awaiter, which waits for
  the rollout and reports its pods, never runs); ``Read`` skips its await as well;
* delete: the DELETE request is still sent (foreground propagation by default), but
  ``DeletedCondition`` skips the wait for the object to be gone *only* for the legacy kinds
  ``allowsSkipAwaitWithDelete`` lists: Namespace, Pod, ReplicationController, DaemonSet,
  Deployment, StatefulSet and Job (pulumi-kubernetes#1232, #3154). Every other kind, Service and
  Ingress included, still waits for deletion.

So, per object:

* a selector Service (its endpoint wait is for the same pods) and an Ingress (its load-balancer
  wait is nothing the operator waits for) skip their await; their delete wait stays;
* a **hash-named** worker Deployment (``metadata.name`` carries the worker hash) skips its
  await. Its name changes with every worker generation and its selector is its own name, so the
  provider only ever replaces it under a new name, create-before-delete (the provider's
  ``DeleteBeforeReplace`` needs an unchanged name, ``provider/pkg/provider/provider.go`` Diff),
  and a skipped delete wait can race nothing. The readiness resource, which depends on it, then
  does the waiting with the operator's predicates (observedGeneration, updated replicas) and
  the per-component reasons. Only when that resource waits: with ``wait=False`` nothing else
  would hold the old generation until the new one is rolled out, so the await stays;
* a **fixed-name** Deployment (frontend, planner, a standalone DCD's workload, ...) keeps its
  await: a delete-before-replace of the same name must wait for the old object to be gone, and
  skipAwait would skip exactly that wait;
* every awaited built-in kind gets the graph's deadlines as ``customTimeouts`` (which win over
  the ``pulumi.com/timeoutSeconds`` annotation) for create, update and delete (the readiness
  deadline, bounded by the component's ``custom_timeouts``: :mod:`.timeouts`); a skipped await
  gets none (there is nothing to time out).

A ``pulumi.com/`` annotation the user put on an object (:mod:`dynamo_pulumi.planning.directives`)
is the user's word to the provider and wins over ours: an explicit ``pulumi.com/skipAwait``
decides whether the object is awaited (``"false"`` restores the provider's await of a worker
Deployment or a Service, beside the readiness wait), and an explicit
``pulumi.com/timeoutSeconds`` is left to count (no ``customTimeouts``, which would override it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import pulumi

from dynamo_pulumi.planning.options import delete_before_replace
from dynamo_pulumi.planning.plan import PlannedObject

if TYPE_CHECKING:
    from dynamo_pulumi.resources.timeouts import Deadlines

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
#: Kinds whose await is skipped only when hash-named (skipAwait also skips their delete wait).
GENERATION_NAMED_SKIP_KINDS: Final = frozenset({("apps/v1", "Deployment")})
SKIP_AWAIT_ANNOTATION: Final = "pulumi.com/skipAwait"
TIMEOUT_ANNOTATION: Final = "pulumi.com/timeoutSeconds"


def _annotation(planned: PlannedObject, key: str) -> Any:
    return ((planned.obj.get("metadata") or {}).get("annotations") or {}).get(key)


def skips_await(planned: PlannedObject, readiness_waits: bool = True) -> bool:
    """Whether pulumi-kubernetes' await is skipped for this object (see the module docstring);
    ``readiness_waits``: the graph's readiness resource waits (``ReadinessOptions.wait``). The
    user's own ``pulumi.com/skipAwait`` decides when given (the provider reads ``"true"``)."""
    user = _annotation(planned, SKIP_AWAIT_ANNOTATION)
    if isinstance(user, str):
        return user.strip().lower() == "true"
    key = (planned.api_version, planned.kind)
    if key in SKIP_AWAIT_KINDS:
        return True
    return (
        readiness_waits
        and key in GENERATION_NAMED_SKIP_KINDS
        and planned.generation_named
        and not delete_before_replace(*key)
    )


def await_timeouts(
    planned: PlannedObject, deadlines: Deadlines | None, readiness_waits: bool = True
) -> pulumi.CustomTimeouts | None:
    """The graph's deadlines for an awaited object (None: not awaited, no deadline given, or the
    user's own ``pulumi.com/timeoutSeconds`` on it)."""
    key = (planned.api_version, planned.kind)
    if deadlines is None or key not in AWAITED_KINDS or skips_await(planned, readiness_waits):
        return None
    if _annotation(planned, TIMEOUT_ANNOTATION) is not None:
        return None
    return pulumi.CustomTimeouts(create=f"{deadlines.create}s", update=f"{deadlines.update}s",
                                 delete=f"{deadlines.delete}s")


def with_await_annotations(obj: dict[str, Any], planned: PlannedObject, readiness_waits: bool = True) -> dict[str, Any]:
    """``obj`` (``planned``'s object, Outputs restored) with ``pulumi.com/skipAwait: "true"``
    when its await is skipped and the user did not say otherwise.

    Returns a shallow copy with new ``metadata``/``annotations`` mappings; ``obj`` is untouched
    (the rendered object stays the operator's).
    """
    if not skips_await(planned, readiness_waits) or _annotation(planned, SKIP_AWAIT_ANNOTATION) is not None:
        return obj
    metadata = dict(obj.get("metadata") or {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), SKIP_AWAIT_ANNOTATION: "true"}
    return {**obj, "metadata": metadata}
