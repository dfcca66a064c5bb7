"""V-MN (rule 30): which components may span nodes, and that the node topology is fixed.

The workload shape (Deployment vs LeaderWorkerSet / scaling group) is chosen from the node count
at creation; switching it would orphan the running workload, so it is immutable. Objects stored
before the type restriction existed keep an identical legacy violation (ratchet).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid
from dynamo_pulumi.validation.component_common import (
    FIELD_IMMUTABLE_ERROR_MSG,
    is_lpx,
    is_worker_component,
)

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import ComponentSpecFields

MULTINODE_TYPE_MESSAGE = "multinode is supported only for worker, prefill, or decode components"


def has_unsupported_multinode(comp: ComponentSpecFields | None) -> bool:
    return comp is not None and comp.multinode is not None and not is_worker_component(comp.type)


def validate_multinode_type(
    new: ComponentSpecFields, old: ComponentSpecFields | None, path: Path
) -> list[FieldError]:
    """``multinode`` only on worker-class types; an unchanged non-LPX legacy violation is kept."""
    if not has_unsupported_multinode(new):
        return []
    if (
        not is_lpx(new)
        and old is not None
        and old.type == new.type
        and has_unsupported_multinode(old)
        and _same_multinode(old, new)
    ):
        return []
    return [forbidden(path.child("multinode"), MULTINODE_TYPE_MESSAGE)]


def _same_multinode(a: ComponentSpecFields, b: ComponentSpecFields) -> bool:
    left = a.multinode.to_wire() if a.multinode else None
    right = b.multinode.to_wire() if b.multinode else None
    return left == right


def removes_unsupported_multinode(new: ComponentSpecFields, old: ComponentSpecFields) -> bool:
    """Dropping a legacy ``multinode`` from an unsupported type is the one allowed toggle."""
    return has_unsupported_multinode(old) and new.multinode is None and new.type == old.type


def validate_multinode_update(new: ComponentSpecFields, old: ComponentSpecFields, path: Path) -> list[FieldError]:
    """Single-node <-> multi-node is fixed after creation, and so is ``nodeCount``."""
    if new.is_multinode != old.is_multinode:
        if removes_unsupported_multinode(new, old):
            return []
        value = new.multinode.to_wire() if new.multinode else None
        return [invalid(path.child("multinode"), value, "cannot change node topology between single-node and multi-node after creation")]
    if (
        not has_unsupported_multinode(new)
        and new.multinode is not None
        and old.multinode is not None
        and new.multinode.effective_node_count != old.multinode.effective_node_count
    ):
        return [invalid(path.child("multinode", "nodeCount"), new.multinode.effective_node_count, FIELD_IMMUTABLE_ERROR_MSG)]
    return []
