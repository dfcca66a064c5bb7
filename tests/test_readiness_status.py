"""Render mode: the DGD status we compute from live workloads, stricter than the operator where a
rollout would otherwise count as ready."""

from __future__ import annotations

from test_readiness_support import DELETE, patched, recorded

from dynamo_pulumi.readiness import InMemoryReader
from dynamo_pulumi.readiness.object_status import leader_worker_set_status
from dynamo_pulumi.readiness.status import changed_components, render_status
from dynamo_pulumi.readiness.targets import WatchTarget, render_targets, revision

NS = "dynamo"


def _target(obj, component):
    return WatchTarget(api_version=obj["apiVersion"], kind=obj["kind"], namespace=NS, name=obj["metadata"]["name"],
                       component=component, group=obj["metadata"]["name"])


def _status(*objs_and_components):
    objects = [o for o, _ in objs_and_components]
    targets = [_target(o, c) for o, c in objs_and_components]
    return render_status(targets, InMemoryReader(objects))


def test_all_workloads_ready_is_successful_with_the_operators_reason():
    status = _status((recorded("deployment"), "Frontend"), (recorded("leaderworkerset"), "prefill"))
    assert status.is_ready and status.state == "successful"
    assert status.ready_condition()["reason"] == "all_resources_are_ready"
    assert status.components_status()["prefill"] == {
        "componentKind": "LeaderWorkerSet", "componentNames": ["vllm-multinode-prefill-9127dbb5-0"],
        "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2,
    }


def test_a_deployment_rollout_in_progress_is_not_ready():
    rolling = patched(recorded("deployment"), {"metadata": {"generation": 3}, "status": {"updatedReplicas": 1}})
    status = _status((rolling, "Frontend"))
    assert not status.is_ready and status.state == "pending"
    assert status.ready.message == (
        "Resources not ready: vllm-agg-frontend: Component deployment not ready - Available condition not true"
    )
    assert "observedGeneration=2 < generation=3" in status.ready.detail


def test_an_lws_the_operator_calls_ready_is_not_ready_until_every_group_is_updated():
    lws = patched(recorded("leaderworkerset"), {"status": {"updatedReplicas": 1}})
    assert leader_worker_set_status(lws).message == "1 of 2 groups updated"
    status = _status((lws, "prefill"))
    assert not status.is_ready and status.not_ready()[0].result.reason == "updating"


def test_an_lws_whose_available_condition_describes_an_older_generation_is_not_ready():
    lws = recorded("leaderworkerset")
    lws["metadata"]["generation"] = 2
    lws["status"]["conditions"][0]["observedGeneration"] = 1
    assert not _status((lws, "prefill")).is_ready


def test_a_missing_workload_is_not_ready():
    target = WatchTarget(api_version="apps/v1", kind="Deployment", namespace=NS, name="gone", component="x", group="gone")
    status = render_status([target], InMemoryReader())
    assert not status.is_ready and status.not_ready()[0].summary() == "x: 0/1 ready (Deployment gone: 0 updated, 0 available of 1)"


def test_grove_children_are_judged_under_their_podcliqueset():
    clique = recorded("podclique")
    stale = patched(recorded("pcsg"), {"status": {"observedGeneration": DELETE}})
    targets = [
        WatchTarget(api_version=clique["apiVersion"], kind="PodClique", namespace=NS, name=clique["metadata"]["name"],
                    component="frontend", group="pcs"),
        WatchTarget(api_version=stale["apiVersion"], kind="PodCliqueScalingGroup", namespace=NS,
                    name=stale["metadata"]["name"], component="decode", group="pcs"),
    ]
    status = render_status(targets, InMemoryReader([clique, stale]))
    assert not status.is_ready
    assert status.ready.message == "Resources not ready: pcs: decode: observedGeneration is nil"
    assert "availableReplicas" in status.components_status()["decode"]


def test_progress_reports_only_components_whose_state_changed():
    before = _status((recorded("deployment"), "Frontend"), (patched(recorded("leaderworkerset"), {"status": {"readyReplicas": 1}}), "prefill"))
    after = _status((recorded("deployment"), "Frontend"), (recorded("leaderworkerset"), "prefill"))
    assert [c.component for c in changed_components(before, after)] == ["prefill"]
    assert [c.component for c in changed_components(None, after)] == ["Frontend", "prefill"]


def test_targets_are_the_workloads_of_a_rendered_graph():
    objects = [recorded("deployment"), {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}},
               recorded("leaderworkerset")]
    targets = render_targets(objects, NS)
    assert [(t.kind, t.component) for t in targets] == [("Deployment", "Frontend"), ("LeaderWorkerSet", "prefill")]


def test_revision_ignores_key_order_and_follows_every_value():
    deployment = recorded("deployment")
    reordered = dict(reversed(list(deployment.items())))
    assert revision([deployment]) == revision([reordered])
    assert revision([deployment]) != revision([patched(deployment, {"spec": {"replicas": 3}})])


# --- Grove: a ready child is not enough while it runs the previous PodCliqueSet spec ---------------

PCS = {
    "apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "llm", "namespace": NS},
    "spec": {"replicas": 1, "template": {"cliques": [
        {"name": "frontend", "labels": {"nvidia.com/dynamo-component": "Frontend"}, "spec": {"replicas": 3}},
    ]}},
}


def _live_pcs(generation: int, observed: int | None, revision: str | None) -> dict:
    status: dict = {}
    if observed is not None:
        status["observedGeneration"] = observed
    if revision is not None:
        status["currentGenerationHash"] = revision
    return patched(PCS, {"metadata": {"generation": generation}, "status": status})


def _grove_status(pcs_live: dict, child_revision: str | None = "7d9c8b6f5"):
    targets = render_targets([PCS], NS)
    child = patched(recorded("podclique"), {"metadata": {"name": "llm-0-frontend"}})
    if child_revision is None:
        child["status"].pop("currentPodCliqueSetGenerationHash")
    else:
        child["status"]["currentPodCliqueSetGenerationHash"] = child_revision
    return render_status(targets, InMemoryReader([pcs_live, child], default_namespace=NS))


def test_a_podcliqueset_is_watched_beside_its_children():
    targets = render_targets([PCS], NS)
    assert [(t.kind, t.name, t.component) for t in targets] == [("PodCliqueSet", "llm", ""),
                                                                 ("PodClique", "llm-0-frontend", "Frontend")]


def test_children_on_the_accepted_revision_are_ready():
    status = _grove_status(_live_pcs(1, 1, "7d9c8b6f5"))
    assert status.is_ready and [c.component for c in status.components] == ["Frontend"]


def test_children_are_not_ready_until_the_podcliqueset_has_observed_its_generation():
    status = _grove_status(_live_pcs(2, 1, "7d9c8b6f5"))
    assert not status.is_ready
    assert status.not_ready()[0].result.message == (
        "PodCliqueSet spec not yet processed: generation=2, observedGeneration=1"
    )


def test_a_ready_child_still_on_the_previous_revision_is_rolling_out():
    status = _grove_status(_live_pcs(2, 2, "newrev"))
    assert not status.is_ready and status.not_ready()[0].result.reason == "updating"
    assert status.not_ready()[0].result.message == "rolling out PodCliqueSet revision newrev"


def test_a_grove_without_revision_hashes_is_judged_on_generations_alone():
    assert _grove_status(_live_pcs(1, 1, None), child_revision=None).is_ready


def test_a_workload_the_operator_calls_ready_is_held_while_not_current():
    """Scaled to 0 before the controller saw it: the operator says ready, we do not, and say why."""
    scaled = patched(recorded("deployment"), {"metadata": {"generation": 3}, "spec": {"replicas": 0}})
    (state,) = _status((scaled, "Frontend")).components
    assert not state.ready and state.result.reason == "updating"
    assert state.result.message == state.result.detail == "Deployment generation 3 not yet observed (observedGeneration 2)"
    gone = patched(recorded("deployment"), {"metadata": {"deletionTimestamp": "2026-12-01T10:00:00Z"}})
    (state,) = _status((gone, "Frontend")).components
    assert not state.ready and state.result.reason == "some_resources_are_not_ready"
    assert state.status.state == "Terminating"
