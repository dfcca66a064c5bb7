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


def test_connection_and_deadline_alone_are_an_update_that_does_not_wait():
    """The new kubeconfig must reach the state (``pulumi refresh`` reads with it), without a wait."""
    for key, value in (("timeout_seconds", 60), ("kubeconfig", "/nonexistent/new"), ("context", "c")):
        result = ReadinessProvider().diff("ns/g", props(), props(**{key: value}))
        assert result.changes is True and result.replaces == [], key
    olds = {**props(kubeconfig="/nonexistent/old"), "state": "successful", "ready": {"status": "True"},
            "components": {"Frontend": {}}, "drift": []}
    updated = ReadinessProvider().update("ns/g", olds, props(kubeconfig="/nonexistent/new", timeout_seconds=60))
    assert updated.outs["kubeconfig"] == "/nonexistent/new" and updated.outs["timeout_seconds"] == 60
    assert {k: updated.outs[k] for k in ("state", "ready", "components", "drift")} == {
        "state": "successful", "ready": {"status": "True"}, "components": {"Frontend": {}}, "drift": []}


def test_check_accepts_unknown_objects_anywhere_in_the_inputs():
    from pulumi.output import Unknown

    news = props(timeout_seconds=Unknown(), targets=[{**TARGET, "name": Unknown()}], mode=Unknown(), graph=Unknown())
    assert ReadinessProvider().check({}, news).failures == []
    assert ReadinessProvider().check({}, props(targets=Unknown())).failures == []


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
