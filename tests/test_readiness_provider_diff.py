"""The readiness provider's check and diff, called directly (they run in preview: no cluster)."""

from __future__ import annotations

import pickle

from dynamo_pulumi.cluster.provider import NOT_WAITED, UNKNOWN, ReadinessProvider

TARGET = {"api_version": "apps/v1", "kind": "Deployment", "namespace": "ns", "name": "g-frontend",
          "component": "Frontend", "group": "g-frontend"}


def props(**changes):
    base = {
        "mode": "render", "kind": "DynamoGraphDeployment", "graph": "g", "namespace": "ns",
        "targets": [TARGET], "revision": "r1", "pod_selector": "nvidia.com/dynamo-graph-deployment-name=g",
        "timeout_seconds": 3600, "wait": True, "expansion": [], "predicted": [],
    }
    return {**base, **changes}


def test_valid_inputs_pass_check_unchanged():
    result = ReadinessProvider().check({}, props())
    assert result.failures == [] and result.inputs == props()


def test_check_names_each_bad_input():
    result = ReadinessProvider().check({}, props(mode="cluster", timeout_seconds=0, graph="", targets=[{"kind": 1}]))
    failed = {f.property for f in result.failures}
    assert failed == {"mode", "timeout_seconds", "graph", "targets[0]"}


def test_check_accepts_unknown_values_during_preview():
    assert ReadinessProvider().check({}, props(timeout_seconds=UNKNOWN, targets=UNKNOWN)).failures == []


def test_nothing_changed_means_no_update_and_no_wait():
    result = ReadinessProvider().diff("ns/g", props(), props())
    assert result.changes is False and result.replaces == []


def test_a_new_revision_is_an_update_in_place():
    result = ReadinessProvider().diff("ns/g", props(), props(revision="r2"))
    assert result.changes is True and result.replaces == []


def test_new_watch_targets_are_an_update_in_place():
    moved = {**TARGET, "name": "g-decode-2222"}
    result = ReadinessProvider().diff("ns/g", props(), props(targets=[moved]))
    assert result.changes is True and result.replaces == []


def test_only_a_change_of_identity_replaces():
    for key, value in (("namespace", "other"), ("graph", "h"), ("mode", "operator"), ("kind", "DynamoComponentDeployment")):
        result = ReadinessProvider().diff("ns/g", props(), props(**{key: value}))
        assert result.replaces == [key], key


def test_connection_and_deadline_alone_do_not_trigger_a_wait():
    result = ReadinessProvider().diff("ns/g", props(), props(timeout_seconds=60, kubeconfig="x", context="c"))
    assert result.changes is False


def test_an_unknown_revision_in_preview_is_an_update():
    assert ReadinessProvider().diff("ns/g", props(), props(revision=UNKNOWN)).changes is True


def test_with_waiting_off_create_touches_no_cluster():
    result = ReadinessProvider().create(props(wait=False, kubeconfig="/nonexistent"))
    assert result.id == "ns/g" and {k: result.outs[k] for k in NOT_WAITED} == NOT_WAITED


def test_delete_deletes_nothing():
    assert ReadinessProvider().delete("ns/g", props()) is None


def test_the_provider_holds_no_state_and_pickles():
    provider = ReadinessProvider()
    assert vars(provider) == {}
    assert isinstance(pickle.loads(pickle.dumps(provider)), ReadinessProvider)
