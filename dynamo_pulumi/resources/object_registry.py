"""One owner per Kubernetes object in a Pulumi program.

Two ``DynamoGraphDeployment``s built from the same file into one namespace (or a graph and a
standalone ``DynamoComponentDeployment`` of the same name) would register the same Deployment,
Service, ... twice under different Pulumi parents; the second apply would silently take the object
over. Before a component registers anything it claims every object it would create, keyed by
(apiVersion, kind, namespace, name); a claim already held by another component fails with one
error naming both owners, and nothing of the second component is registered.

Namespace-shared objects (planner/EPP RBAC, applied as server-side-apply patches so several
graphs co-own them) are not claimed. The claims live for one program run: they are kept in a
context variable together with the Pulumi monitor they were made under, so a new program (a
fresh ``pulumi.runtime.set_mocks`` in tests, one ``run_program`` each) starts with none.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable

from pulumi.runtime import settings

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.planning.plan import CLUSTER_SCOPED_KINDS, GraphPlan, PlannedObject

ObjectKey = tuple[str, str, str, str]
MAX_LISTED = 5

_CLAIMS: contextvars.ContextVar[tuple[object, dict[ObjectKey, str]] | None] = contextvars.ContextVar(
    "dynamo_pulumi_object_claims", default=None
)


class DuplicateObjectError(InputError):
    """Two components of one program would create the same Kubernetes object."""


def _claims() -> dict[ObjectKey, str]:
    """The claims of the running program (a new program, under a new monitor, has none)."""
    monitor = settings.SETTINGS.monitor
    current = _CLAIMS.get()
    if current is None or current[0] is not monitor:
        current = (monitor, {})
        _CLAIMS.set(current)
    return current[1]


def object_key(planned: PlannedObject, namespace: str) -> ObjectKey:
    metadata = planned.obj.get("metadata") or {}
    ns = "" if planned.kind in CLUSTER_SCOPED_KINDS else str(metadata.get("namespace") or namespace)
    return (planned.api_version, planned.kind, ns, planned.name)


def _describe(key: ObjectKey) -> str:
    api_version, kind, namespace, name = key
    return f'{kind} "{namespace}/{name}" ({api_version})' if namespace else f'{kind} "{name}" ({api_version})'


def claim_objects(plan: GraphPlan, objects: Iterable[PlannedObject], owner: str) -> None:
    """Claim ``objects`` for ``owner`` (e.g. ``DynamoGraphDeployment "llama"``), or raise naming
    every object another component of this program already creates, and that component."""
    claims = _claims()
    wanted = [object_key(o, plan.namespace) for o in objects if not o.shared]
    taken = [(key, claims[key]) for key in wanted if key in claims and claims[key] != owner]
    if taken:
        others = sorted({holder for _, holder in taken})
        listed = [_describe(key) for key, _ in taken[:MAX_LISTED]]
        more = f" and {len(taken) - MAX_LISTED} more" if len(taken) > MAX_LISTED else ""
        raise DuplicateObjectError(
            f"{owner} would create {len(taken)} Kubernetes object(s) that {' and '.join(others)} already "
            f"creates in this program: {', '.join(listed)}{more}. Two owners of one object would overwrite "
            "each other; give one graph another metadata.name or namespace, or deploy it once"
        )
    for key in wanted:
        claims[key] = owner
