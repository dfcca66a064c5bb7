"""Which pods belong to a workload's current revision (``readiness/revisions.py``), and the waiter
blaming only those: after a worker change an old pod's ImagePullBackOff is not the new generation's."""

from __future__ import annotations

from typing import Any

import pytest
from replay_support import listing
from test_readiness_support import DELETE, patched

from dynamo_pulumi.cluster.api import ResourceRef
from dynamo_pulumi.cluster.errors import WaitTimeout
from dynamo_pulumi.cluster.waiter import EVENT, POD, Waiter
from dynamo_pulumi.readiness.revisions import current_pods, grove_updated_pods, made_from
from dynamo_pulumi.readiness.targets import WaitRequest, WatchTarget

NS = "team-a"
TEMPLATE = {"metadata": {"labels": {"nvidia.com/dynamo-component": "decode", "nvidia.com/selector": "llm-decode"},
                         "annotations": {"nvidia.com/restartAt": "2026-12-01T10:00:00Z"}},
            "spec": {"containers": [{"name": "main", "image": "vllm-runtime:1.4.0", "command": ["python3"],
                                     "args": ["-m", "dynamo.vllm"]}]}}


def workload(kind: str = "Deployment", updated: int = 1) -> dict[str, Any]:
    spec: dict[str, Any] = {"replicas": 1, "template": TEMPLATE}
    if kind == "LeaderWorkerSet":
        spec = {"replicas": 1, "leaderWorkerTemplate": {"size": 2, "workerTemplate": TEMPLATE}}
    return {"apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": "llm-decode", "namespace": NS, "generation": 3,
                         "annotations": {"deployment.kubernetes.io/revision": "3"}},
            "spec": spec,
            "status": {"observedGeneration": 3, "replicas": 2, "updatedReplicas": updated, "readyReplicas": 1,
                       "availableReplicas": 1}}


def pod(name: str, image: str = "vllm-runtime:1.4.0", waiting: str = "", **labels: str) -> dict[str, Any]:
    state = {"waiting": {"reason": waiting}} if waiting else {"running": {}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS,
                         "labels": {"nvidia.com/dynamo-component": "decode", "nvidia.com/selector": "llm-decode",
                                    "nvidia.com/dynamo-graph-deployment-name": "llm", "pod-template-hash": "abc",
                                    **labels},
                         "annotations": {"nvidia.com/restartAt": "2026-12-01T10:00:00Z", "injected": "by-webhook"}},
            "spec": {"containers": [{"name": "main", "image": image, "command": ["python3"], "args": ["-m", "dynamo.vllm"]},
                                    {"name": "sidecar", "image": "proxy:1"}]},
            "status": {"containerStatuses": [{"name": "main", "image": image, "ready": not waiting, "state": state}]}}


def test_a_pod_made_from_the_template_matches_whatever_admission_added():
    assert made_from(pod("new"), TEMPLATE)


@pytest.mark.parametrize(("change", "value"), [
    (("spec", "containers", 0, "image"), "vllm-runtime:1.3.0"),
    (("spec", "containers", 0, "args"), ["-m", "dynamo.sglang"]),
    (("spec", "containers", 0, "command"), ["bash"]),
    (("metadata", "labels", "nvidia.com/selector"), "other"),
    (("metadata", "annotations", "nvidia.com/restartAt"), "2026-11-30T10:00:00Z"),
])
def test_a_pod_of_an_older_template_does_not_match(change: tuple[Any, ...], value: Any):
    old = pod("old")
    target: Any = old
    for key in change[:-1]:
        target = target[key]
    target[change[-1]] = value
    assert not made_from(old, TEMPLATE)


def test_a_pod_without_the_templates_container_does_not_match():
    lone = pod("lone")
    lone["spec"]["containers"] = [{"name": "sidecar", "image": "proxy:1"}]
    assert not made_from(lone, TEMPLATE)


@pytest.mark.parametrize("kind", ["Deployment", "LeaderWorkerSet"])
def test_only_pods_of_the_current_template_are_read(kind: str):
    new, old = pod("new"), pod("old", image="vllm-runtime:1.3.0", waiting="ImagePullBackOff")
    assert current_pods(kind, workload(kind), [new, old]) == [new]


def test_a_rollout_whose_new_pods_do_not_exist_yet_blames_no_old_pod():
    old = pod("old", image="vllm-runtime:1.3.0", waiting="ImagePullBackOff")
    assert current_pods("Deployment", workload(updated=0), [old]) == []


def test_when_no_pod_matches_although_pods_are_updated_every_pod_is_read():
    """An admission webhook that pins images to digests makes the template match fail; the
    controller's count says new pods exist, so we read them all rather than none."""
    rewritten = pod("new", image="vllm-runtime@sha256:0123")
    assert current_pods("Deployment", workload(updated=1), [rewritten]) == [rewritten]


def test_without_the_workload_or_for_a_scaling_group_every_pod_is_read():
    pods = [pod("a"), pod("b", image="x")]
    assert current_pods("Deployment", None, pods) == pods
    assert current_pods("PodCliqueScalingGroup", {"metadata": {"name": "g"}}, pods) == pods


def test_the_active_replica_sets_pods_win_over_the_template_match():
    replica_set = {"metadata": {"name": "llm-decode-7f", "labels": {"pod-template-hash": "7f"},
                                "annotations": {"deployment.kubernetes.io/revision": "3"},
                                "ownerReferences": [{"kind": "Deployment", "name": "llm-decode"}]}}
    by_hash, by_owner, other = pod("h", **{"pod-template-hash": "7f"}), pod("o"), pod("x")
    by_owner["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "llm-decode-7f"}]
    assert current_pods("Deployment", workload(), [by_hash, by_owner, other], [replica_set]) == [by_hash, by_owner]


def test_a_replica_set_of_another_revision_or_owner_is_not_active():
    old_rs = {"metadata": {"name": "llm-decode-6e", "labels": {"pod-template-hash": "abc"},
                           "annotations": {"deployment.kubernetes.io/revision": "2"},
                           "ownerReferences": [{"kind": "Deployment", "name": "llm-decode"}]}}
    foreign = patched(old_rs, {"metadata": {"annotations": {"deployment.kubernetes.io/revision": "3"},
                                            "ownerReferences": [{"kind": "Deployment", "name": "other"}]}})
    new, old = pod("new"), pod("old", image="vllm-runtime:1.3.0")
    # neither is the active ReplicaSet, so the template decides
    assert current_pods("Deployment", workload(), [new, old], [old_rs, foreign]) == [new]


def test_the_waiter_blames_the_new_generation_only_for_its_own_pods(server):
    """Issue 15: after a worker change, an old pod's ImagePullBackOff was blamed on the new generation."""
    deployment = patched(workload(), {"apiVersion": "apps/v1", "kind": "Deployment",
                                      "metadata": {"resourceVersion": "10",
                                                   "labels": {"nvidia.com/dynamo-component": "decode"}},
                                      "status": {"readyReplicas": 1, "availableReplicas": 1}})
    server.on_list(ResourceRef("apps/v1", "Deployment"), NS, listing([deployment], "10"))
    stuck_new = pod("llm-decode-new", waiting="CrashLoopBackOff")
    stuck_new["status"]["containerStatuses"][0]["lastState"] = {"terminated": {"exitCode": 3, "reason": "Error"}}
    old = pod("llm-decode-old", image="vllm-runtime:1.3.0", waiting="ImagePullBackOff")
    server.on_list(POD, NS, listing([old, stuck_new], "5"))
    server.on_list(EVENT, NS, listing([]))
    target = WatchTarget(api_version="apps/v1", kind="Deployment", namespace=NS, name="llm-decode", component="decode",
                         group="llm-decode")
    request = WaitRequest(graph="llm", namespace=NS, targets=(target,), timeout_seconds=1,
                          pod_selector="nvidia.com/dynamo-graph-deployment-name=llm")
    with pytest.raises(WaitTimeout) as caught:
        Waiter(server.api(), request).wait()
    report = str(caught.value)
    assert "CrashLoopBackOff: container main last exit code 3 (Error)" in report
    assert "ImagePullBackOff" not in report
    assert "decode: 0/1 ready (Deployment llm-decode: 1 updated, 0 available of 1, 1 old pending termination)" in report


def _grove_pod(name: str, template_hash: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"grove.io/pod-template-hash": template_hash}}}


@pytest.mark.parametrize(("clique", "expected"), [
    ({"metadata": {"labels": {"grove.io/pod-template-hash": "label"}},
      "status": {"updateProgress": {"podTemplateHash": "progress"}, "currentPodTemplateHash": "current"}}, "label"),
    ({"metadata": {"labels": {}}, "status": {"updateProgress": {"podTemplateHash": "progress"},
                                             "currentPodTemplateHash": "current"}}, "progress"),
    ({"metadata": {}, "status": {"updateProgress": {"podTemplateHash": ""}, "currentPodTemplateHash": "current"}}, "current"),
    ({"metadata": {}, "status": {"updateProgress": "not-a-mapping", "currentPodTemplateHash": "current"}}, "current"),
    ({"metadata": {}, "status": {"currentPodTemplateHash": ""}}, None),
])
def test_the_hash_grove_expects_label_first_then_update_then_current(clique: dict[str, Any], expected: str | None):
    pods = [_grove_pod("l", "label"), _grove_pod("p1", "progress"), _grove_pod("p2", "progress"),
            _grove_pod("c1", "current"), _grove_pod("c2", "current"), _grove_pod("c3", "current")]
    counts = {"label": 1, "progress": 2, "current": 3, None: 0}
    assert len(grove_updated_pods(clique, pods)) == counts[expected]
    assert current_pods("PodClique", clique, pods) == (pods if expected is None else grove_updated_pods(clique, pods))


def test_lws_leader_pods_are_matched_against_the_leader_template():
    leader_template = patched(TEMPLATE, {"spec": {"containers": [{"name": "main", "image": "vllm-runtime:1.4.0",
                                                                  "command": ["python3"], "args": ["--leader"]}]}})
    lws = patched(workload("LeaderWorkerSet"), {"spec": {"leaderWorkerTemplate": {"leaderTemplate": leader_template}}})
    leader, worker = pod("leader"), pod("worker")
    leader["spec"]["containers"][0]["args"] = ["--leader"]
    stranger = pod("stranger")
    stranger["spec"]["containers"][0]["args"] = ["--other"]
    assert current_pods("LeaderWorkerSet", lws, [leader, worker, stranger]) == [leader, worker]


def test_a_workload_without_a_template_matches_no_pod():
    bare = patched(workload(updated=0), {"spec": {"template": DELETE}})
    assert current_pods("Deployment", bare, [pod("a")]) == []
