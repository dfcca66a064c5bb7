"""V-MN (rule 30): multinode component types and the fixed node topology."""

from __future__ import annotations

from validation_component_support import P, dgd_ctx, errors, update_errors, worker


def test_multinode_worker_is_valid() -> None:
    assert errors(worker(multinode={"nodeCount":2})) == []


def test_multinode_frontend_is_forbidden() -> None:
    assert errors(worker(type="frontend", multinode={"nodeCount":2})) == [
        f"{P}.multinode: Forbidden: multinode is supported only for worker, prefill, or decode components"
    ]


def test_multinode_without_type_is_forbidden() -> None:
    assert errors(worker(type=None, multinode={})) == [
        f"{P}.multinode: Forbidden: multinode is supported only for worker, prefill, or decode components"
    ]


def test_unchanged_legacy_multinode_frontend_is_ratcheted_on_update() -> None:
    legacy = worker(type="frontend", multinode={"nodeCount":2})
    assert errors(legacy, dgd_ctx("update")) == []
    assert update_errors(legacy, legacy) == []


def test_changed_legacy_multinode_frontend_is_rejected_on_update() -> None:
    old = worker(type="frontend", multinode={"nodeCount":2})
    new = worker(type="frontend", multinode={"nodeCount": 3})
    assert update_errors(old, new) == [
        f"{P}.multinode: Forbidden: multinode is supported only for worker, prefill, or decode components"
    ]


def test_toggling_single_and_multi_node_is_invalid_on_update() -> None:
    assert update_errors(worker(), worker(multinode={"nodeCount":2})) == [
        f'{P}.multinode: Invalid value: {{"nodeCount":2}}: cannot change node topology between single-node '
        "and multi-node after creation"
    ]
    assert update_errors(worker(multinode={"nodeCount":2}), worker()) == [
        f"{P}.multinode: Invalid value: null: cannot change node topology between single-node and multi-node after creation"
    ]


def test_removing_legacy_multinode_from_unsupported_type_is_allowed() -> None:
    assert update_errors(worker(type="planner", multinode={}), worker(type="planner")) == []


def test_node_count_is_immutable() -> None:
    assert update_errors(worker(multinode={}), worker(multinode={"nodeCount":2})) == []
    assert update_errors(worker(multinode={"nodeCount":2}), worker(multinode={"nodeCount": 4})) == [
        f"{P}.multinode.nodeCount: Invalid value: 4: field is immutable"
    ]
