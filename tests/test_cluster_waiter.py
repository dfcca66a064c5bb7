"""The waiter through the real ``kubernetes`` client against a loopback server replaying recorded
API responses: lists, chunked watch streams, a 410 Gone, a dropped connection, API errors."""

from __future__ import annotations

import threading

import pytest
from cluster_recordings import recording
from replay_support import ReplayServer, event, gone, listing, status_error, stream
from test_readiness_support import patched, recorded

from dynamo_pulumi.cluster.api import ClusterApi, ResourceRef
from dynamo_pulumi.cluster.errors import ClusterError, WaitFailed, WaitTimeout
from dynamo_pulumi.cluster.waiter import EVENT, POD, Waiter
from dynamo_pulumi.readiness.targets import WaitRequest, WatchTarget, operator_targets

NS = "team-a"
DEPLOYMENT = ResourceRef("apps/v1", "Deployment")
LWS = ResourceRef("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")
DGD = ResourceRef("nvidia.com/v1beta1", "DynamoGraphDeployment")


def deployment(name: str, component: str, ready: int, desired: int = 2, version: str = "10") -> dict:
    base = patched(recorded("deployment"), {
        "metadata": {"name": name, "namespace": NS, "resourceVersion": version,
                     "labels": {"nvidia.com/dynamo-component": component}},
        "spec": {"replicas": desired},
        "status": {"availableReplicas": ready, "readyReplicas": ready, "updatedReplicas": desired, "replicas": desired},
    })
    if ready < desired:
        base["status"]["conditions"][0].update(status="False", reason="MinimumReplicasUnavailable",
                                               message="Deployment does not have minimum availability.")
    return base


def target(name: str, component: str, kind: str = "Deployment", api_version: str = "apps/v1") -> WatchTarget:
    return WatchTarget(api_version=api_version, kind=kind, namespace=NS, name=name, component=component, group=name)


def request(*targets: WatchTarget, timeout: float = 10.0) -> WaitRequest:
    return WaitRequest(graph="llm", namespace=NS, targets=targets, timeout_seconds=timeout,
                       pod_selector="nvidia.com/dynamo-graph-deployment-name=llm")


def no_pods(server: ReplayServer, *pods: dict) -> None:
    server.on_list(POD, NS, listing(pods, "5"))


def test_wait_returns_when_the_watched_deployment_becomes_ready(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 1, version="11")),
                                            event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="12"))]))
    no_pods(server)
    lines: list[str] = []
    status = Waiter(server.api(), request(target("llm-frontend", "Frontend")), lines.append).wait()
    assert status.is_ready and status.state == "successful"
    assert lines[0] == ("Frontend: 0/2 ready (Deployment llm-frontend: 2 updated, 0 available of 2): MinimumReplicasUnavailable: "
                        "0 of 2 updated replicas available (Deployment does not have minimum availability.)")
    assert lines[-1] == "Frontend: 2/2 ready"
    (first_watch,) = server.requests_to(DEPLOYMENT.path(NS), watch=True)[:1]
    assert first_watch["resourceVersion"] == "10" and first_watch["fieldSelector"] == "metadata.name=llm-frontend"


def test_a_410_gone_relists_and_continues(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"),
                   listing([deployment("llm-frontend", "Frontend", 2, version="30")], "30"))
    server.on_watch(DEPLOYMENT, NS, stream([gone("10")]))
    no_pods(server)
    status = Waiter(server.api(), request(target("llm-frontend", "Frontend"))).wait()
    assert status.is_ready
    assert len(server.requests_to(DEPLOYMENT.path(NS), watch=False)) == 2


def test_a_dropped_watch_resumes_from_the_last_resource_version(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_watch(
        DEPLOYMENT, NS,
        stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 1, version="11"))], drop=True),
        stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="12"))]),
    )
    no_pods(server)
    status = Waiter(server.api(), request(target("llm-frontend", "Frontend"))).wait()
    assert status.is_ready
    watches = server.requests_to(DEPLOYMENT.path(NS), watch=True)
    assert [w["resourceVersion"] for w in watches[:2]] == ["10", "11"]
    assert len(server.requests_to(DEPLOYMENT.path(NS), watch=False)) == 1  # no relist needed


def test_ready_only_when_every_component_is_ready_and_updated(server):
    rolling = patched(deployment("llm-decode-2222", "decode", 2), {"metadata": {"generation": 5}})
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2), rolling], "10"))
    done = patched(rolling, {"metadata": {"resourceVersion": "11"}, "status": {"observedGeneration": 5}})
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", done)], delay=0.3))
    no_pods(server)
    lines: list[str] = []
    waiter = Waiter(server.api(), request(target("llm-frontend", "Frontend"), target("llm-decode-2222", "decode")), lines.append)
    status = waiter.wait()
    assert status.is_ready
    assert lines[:2] == ["Frontend: 2/2 ready", "decode: 2/2 up, not ready (Deployment llm-decode-2222: 2 updated, 2 available "
                                                "of 2): Deployment generation 5 not yet observed (observedGeneration 2)"]
    assert lines[2:] == ["decode: 2/2 ready"]


def test_timeout_fails_with_one_line_per_unready_component_and_its_reason(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2),
                                            deployment("llm-decode-1a2b3c4d", "decode", 0)], "10"))
    no_pods(server, recording("pod-unschedulable"))
    server.on_list(EVENT, NS, listing(recording("events")))
    with pytest.raises(WaitTimeout) as caught:
        Waiter(server.api(), request(target("llm-frontend", "Frontend"), target("llm-decode-1a2b3c4d", "decode"),
                                     timeout=1)).wait()
    assert str(caught.value).splitlines() == [
        "DynamoGraphDeployment team-a/llm not ready after 1s:",
        "  decode: 0/2 ready (Deployment llm-decode-1a2b3c4d: 2 updated, 0 available of 2): Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: "
        "0/4 nodes are available: 4 No preemption victims found for incoming pod.; FailedCreate: pods "
        '"llm-decode-1a2b3c4d-6d9f7c8b4-zz" is forbidden: exceeded quota: gpu-quota, requested: nvidia.com/gpu=1, '
        "used: nvidia.com/gpu=4, limited: nvidia.com/gpu=4",
    ]


def test_timeout_is_honoured_while_watches_stay_idle(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    no_pods(server)
    server.on_list(EVENT, NS, listing([]))
    clock = [0.0]
    with pytest.raises(WaitTimeout, match="not ready after 2s"):
        Waiter(server.api(), request(target("llm-frontend", "Frontend"), timeout=2), clock=lambda: clock.append(clock[-1] + 1) or clock[-1]).wait()


def test_a_missing_crd_is_a_one_line_error(server):
    server.on_list(LWS, NS, status_error(404, "NotFound", "the server could not find the requested resource"))
    with pytest.raises(ClusterError, match=r"^LeaderWorkerSet \(leaderworkerset.x-k8s.io/v1\) is not served by this cluster"):
        Waiter(server.api(), request(target("llm-decode-0", "decode", "LeaderWorkerSet", LWS.api_version))).wait()


def test_forbidden_is_a_one_line_error_naming_what_was_refused(server):
    message = 'deployments.apps is forbidden: User "ci" cannot list resource "deployments" in API group "apps"'
    server.on_list(DEPLOYMENT, NS, status_error(403, "Forbidden", message))
    with pytest.raises(ClusterError) as caught:
        Waiter(server.api(), request(target("llm-frontend", "Frontend"))).status()
    assert str(caught.value) == f"forbidden: cannot list deployments in namespace 'team-a': {message}"


def test_an_unreachable_api_server_is_a_one_line_error():
    replay = ReplayServer()
    url = replay.url
    replay.httpd.server_close()
    from kubernetes import client

    configuration = client.Configuration()
    configuration.host = url
    with pytest.raises(ClusterError, match=r"^cannot reach the API server at http://127.0.0.1:\d+"):
        Waiter(ClusterApi(client.ApiClient(configuration)), request(target("llm-frontend", "Frontend"))).status()


def test_status_reads_once_without_watching(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 1)], "10"))
    no_pods(server, recording("pod-probe-failing"))
    status = Waiter(server.api(), request(target("llm-frontend", "Frontend"))).status()
    assert not status.is_ready and server.requests_to(DEPLOYMENT.path(NS), watch=True) == []


def test_operator_mode_waits_for_the_dgd_through_a_rollout(server):
    rollout, ready = recording("dgd-rollout"), recording("dgd-ready")
    ready["metadata"]["generation"] = ready["status"]["observedGeneration"] = 4
    ready["status"]["conditions"][0]["observedGeneration"] = 4
    ready["metadata"]["resourceVersion"] = "21"
    server.on_list(DGD, NS, listing([rollout], "20"))
    server.on_watch(DGD, NS, stream([event("MODIFIED", ready)]))
    no_pods(server)
    lines: list[str] = []
    req = WaitRequest(mode="operator", graph="llm", namespace=NS, targets=tuple(operator_targets("DynamoGraphDeployment", "llm", NS)),
                      pod_selector="nvidia.com/dynamo-graph-deployment-name=llm")
    status = Waiter(server.api(), req, lines.append).wait()
    assert status.is_ready and status.ready.reason == "all_resources_are_ready"
    assert ("decode: 0/2 ready (Deployment llm-decode-1a2b3c4d: 1 updated, 0 available of 2, 2 old pending termination): "
            "rolling_update_in_progress: Rolling update in progress") in lines


def test_operator_mode_failed_state_is_reported_and_waited_through(server):
    """The operator requeues every ordinary failure: the reason is shown, the wait goes on and ends
    when the graph recovers (issue 15: a graph that recovered 8 s later made `wait` exit 1)."""
    failed, ready = recording("dgd-failed"), recording("dgd-ready")
    ready["metadata"]["resourceVersion"] = "21"
    server.on_list(DGD, NS, listing([failed], "20"))
    server.on_watch(DGD, NS, stream([event("MODIFIED", ready)], delay=0.3))
    no_pods(server)
    lines: list[str] = []
    req = WaitRequest(mode="operator", graph="llm", namespace=NS, targets=tuple(operator_targets("DynamoGraphDeployment", "llm", NS)),
                      timeout_seconds=30)
    assert Waiter(server.api(), req, lines.append).wait().is_ready
    assert lines[0] == "llm: failed_to_initialize_worker_hash: failed to compute worker hash: json: unsupported value: NaN"


def test_operator_mode_failure_the_operator_does_not_retry_ends_the_wait_at_once(server):
    failed = recording("dgd-failed")
    failed["status"]["conditions"][0].update(
        reason="selected_workload_provider_unavailable", observedGeneration=failed["metadata"]["generation"],
        message='selected workload provider "grove" is unavailable because Grove is disabled')
    server.on_list(DGD, NS, listing([failed], "20"))
    no_pods(server)
    server.on_list(EVENT, NS, listing([]))
    req = WaitRequest(mode="operator", graph="llm", namespace=NS, targets=tuple(operator_targets("DynamoGraphDeployment", "llm", NS)),
                      timeout_seconds=30)
    with pytest.raises(WaitFailed, match="failed: selected_workload_provider_unavailable: selected workload provider"):
        Waiter(server.api(), req).wait()


def test_waiting_makes_no_request_while_nothing_changes(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    gate = threading.Event()
    server.on_watch(DEPLOYMENT, NS, stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="11"))], gate=gate, hold=True))
    no_pods(server)
    timer = threading.Timer(1.0, gate.set)
    timer.start()
    Waiter(server.api(), request(target("llm-frontend", "Frontend"))).wait()
    timer.join()
    # one list + one watch per kind (deployments, pods): a second of waiting added nothing
    assert len(server.log) == 4


def test_a_server_error_on_a_watch_backs_off_and_watches_again(server):
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_watch(DEPLOYMENT, NS, status_error(500, "InternalError", "etcdserver: leader changed"),
                    stream([event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="11"))]))
    no_pods(server)
    status = Waiter(server.api(), request(target("llm-frontend", "Frontend"))).wait()
    assert status.is_ready
    watches = server.requests_to(DEPLOYMENT.path(NS), watch=True)
    assert [w["resourceVersion"] for w in watches[:2]] == ["10", "10"]


PCLQ = ResourceRef("grove.io/v1alpha1", "PodClique")


def test_grove_and_lws_components_are_watched_by_kind_and_ready_only_once_rolled_out(server):
    clique = patched(recorded("podclique"), {"metadata": {"namespace": NS, "resourceVersion": "5"},
                                             "status": {"readyReplicas": 2}})
    lws = patched(recorded("leaderworkerset"), {"metadata": {"namespace": NS, "resourceVersion": "6"},
                                                "status": {"updatedReplicas": 1}})
    server.on_list(PCLQ, NS, listing([clique], "5"))
    server.on_list(LWS, NS, listing([lws], "6"))
    server.on_watch(PCLQ, NS, stream([event("MODIFIED", patched(clique, {"metadata": {"resourceVersion": "7"},
                                                                         "status": {"readyReplicas": 3}}))], hold=True))
    server.on_watch(LWS, NS, stream([event("MODIFIED", patched(lws, {"metadata": {"resourceVersion": "8"},
                                                                     "status": {"updatedReplicas": 2}}))],
                                    delay=0.3, hold=True))
    no_pods(server)
    targets = (
        WatchTarget(api_version=PCLQ.api_version, kind="PodClique", namespace=NS, name=clique["metadata"]["name"],
                    component="Frontend", group="vllm-multinode"),
        target(lws["metadata"]["name"], "prefill", "LeaderWorkerSet", LWS.api_version),
    )
    lines: list[str] = []
    status = Waiter(server.api(), request(*targets), lines.append).wait()
    assert status.is_ready
    assert ("prefill: 1/2 ready (LeaderWorkerSet vllm-multinode-prefill-9127dbb5-0: 1 updated, 1 ready of 2, 1 old pending "
            "termination): 1 of 2 groups updated") in lines
    assert lines[-1] == "prefill: 2/2 ready"
    assert server.requests_to(PCLQ.path(NS), watch=True) and server.requests_to(LWS.path(NS), watch=True)
