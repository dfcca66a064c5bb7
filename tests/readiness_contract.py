"""The readiness resource's contract, held against any transport through a driver.

Each ``contract_*`` function takes a :class:`ReadinessDriver` (the dynamic provider through
``python -m pulumi.dynamic``, or the ``dynamo`` plugin: ``plugin_support.PluginDriver``) and the
loopback replay server (``conftest.server``), scripts the cluster, calls the driver with the
inputs the program registers, and asserts what the user must see. A transport's test module
calls every function with its driver, so both transports are held to one contract.

A driver sends plain inputs (the ``kubeconfig`` may be wrapped with ``plugin_support.secret``)
and returns the properties as received (secrets still wrapped: ``plugin_support.unwrap``); a
failed call raises an exception whose ``message`` is the text the engine would show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pytest
from cluster_recordings import recording
from plugin_support import UNKNOWN, unwrap
from replay_support import ReplayServer, event, listing, stream
from test_cluster_waiter import DEPLOYMENT, NS, deployment

from dynamo_pulumi.cluster.waiter import EVENT, POD


class ReadinessDriver(Protocol):
    def check(self, news: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]: ...
    def diff(self, olds: Mapping[str, Any], news: Mapping[str, Any]) -> tuple[bool, list[str]]: ...
    def create(self, props: Mapping[str, Any], preview: bool = False) -> tuple[str, dict[str, Any]]: ...
    def update(self, olds: Mapping[str, Any], news: Mapping[str, Any], preview: bool = False) -> dict[str, Any]: ...
    def read(self, props: Mapping[str, Any]) -> dict[str, Any]: ...
    def delete(self, props: Mapping[str, Any]) -> None: ...


def props(server: ReplayServer | None, namespace: str = NS, **changes: Any) -> dict[str, Any]:
    """The inputs a render-mode graph ``llm`` registers (one Frontend Deployment watched)."""
    base = {
        "mode": "render", "kind": "DynamoGraphDeployment", "graph": "llm", "namespace": namespace,
        "targets": [{"api_version": "apps/v1", "kind": "Deployment", "namespace": namespace, "name": "llm-frontend",
                     "component": "Frontend", "group": "llm-frontend"}],
        "revision": "r1", "pod_selector": "nvidia.com/dynamo-graph-deployment-name=llm", "timeout_seconds": 120,
        "wait": True, "expansion": [], "predicted": [],
    }
    if server is not None:
        base["kubeconfig"] = server.kubeconfig()
    return {**base, **changes}


def ready_after_one_change(server: ReplayServer, namespace: str = NS, **stream_options: Any) -> None:
    """The Frontend is listed unready, then one watch event makes it ready."""
    server.on_list(DEPLOYMENT, namespace, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_watch(DEPLOYMENT, namespace, stream(
        [event("MODIFIED", deployment("llm-frontend", "Frontend", 2, version="11"))], **stream_options))
    server.on_list(POD, namespace, listing([]))


def contract_check_refuses_malformed_inputs_field_by_field(driver: ReadinessDriver) -> None:
    _, failures = driver.check(props(None, mode="sideways", timeout_seconds=-1, graph=""))
    assert {prop for prop, _ in failures} == {"mode", "timeout_seconds", "graph"}
    _, failures = driver.check(props(None))
    assert failures == []


def contract_check_takes_unknowns_and_integral_doubles(driver: ReadinessDriver) -> None:
    """In preview an input may be unknown; numbers arrive as doubles (600.0 is the integer 600)."""
    inputs, failures = driver.check(props(None, revision=UNKNOWN, timeout_seconds=600.0))
    assert failures == []
    assert inputs["revision"] == UNKNOWN and unwrap(inputs["timeout_seconds"]) == 600


def contract_diff_replaces_only_on_identity(driver: ReadinessDriver) -> None:
    assert driver.diff(props(None), props(None)) == (False, [])
    assert driver.diff(props(None), props(None, revision="r2")) == (True, [])
    changes, replaces = driver.diff(props(None), props(None, namespace="team-b"))
    assert changes and replaces == ["namespace"]
    # a connection or deadline change is an update (recorded without a new wait, see
    # contract_connection_change_is_recorded_without_a_wait), never a replacement
    assert driver.diff(props(None), props(None, timeout_seconds=99, context="other")) == (True, [])


def contract_create_waits_and_returns_the_status(driver: ReadinessDriver, server: ReplayServer) -> None:
    ready_after_one_change(server)
    resource_id, outs = driver.create(props(server))
    outs = unwrap(outs)
    assert resource_id == "team-a/llm"
    assert outs["state"] == "successful" and outs["ready"]["status"] == "True"
    assert outs["components"]["Frontend"]["readyReplicas"] == 2
    assert outs["revision"] == "r1" and outs["drift"] == []


def contract_update_waits_again(driver: ReadinessDriver, server: ReplayServer) -> None:
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 2)], "10"))
    server.on_list(POD, NS, listing([]))
    outs = unwrap(driver.update(props(server), props(server, revision="r2")))
    assert outs["revision"] == "r2" and outs["state"] == "successful"


def contract_read_refreshes_without_waiting(driver: ReadinessDriver, server: ReplayServer) -> None:
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 1)], "10"))
    server.on_list(POD, NS, listing([]))
    outs = unwrap(driver.read(props(server, state="successful")))
    assert outs["state"] == "pending" and outs["components"]["Frontend"]["readyReplicas"] == 1
    assert server.requests_to(DEPLOYMENT.path(NS), watch=True) == []


def contract_wait_false_touches_no_cluster(driver: ReadinessDriver, server: ReplayServer) -> None:
    _, outs = driver.create(props(server, wait=False))
    assert unwrap(outs)["state"] == ""
    driver.read(props(server, wait=False))
    assert server.log == []


def contract_delete_deletes_nothing(driver: ReadinessDriver, server: ReplayServer) -> None:
    driver.delete(props(server))
    assert server.log == []


def contract_failed_wait_is_one_message(driver: ReadinessDriver, server: ReplayServer) -> str:
    """A wait that times out fails with the components' reasons and nothing else."""
    server.on_list(DEPLOYMENT, NS, listing([deployment("llm-frontend", "Frontend", 0)], "10"))
    server.on_list(POD, NS, listing([recording("pod-image-pull")]))
    server.on_list(EVENT, NS, listing([]))
    with pytest.raises(Exception) as failure:
        driver.update(props(server), props(server, revision="r2", timeout_seconds=1))
    message = str(getattr(failure.value, "message", failure.value))
    assert message.startswith("DynamoGraphDeployment team-a/llm not ready after 1s:"), message
    assert ("Frontend: 0/2 ready (Deployment llm-frontend: 2 updated, 0 available of 2): "
            "ImagePullBackOff: image nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.99") in message, message
    for trace in ("Traceback", 'File "', "Unexpected <class", "line "):
        assert trace not in message, message
    return message


def contract_connection_change_is_recorded_without_a_wait(driver: ReadinessDriver, server: ReplayServer) -> None:
    """A kubeconfig, context or deadline change reaches the state (so a refresh connects with the
    current connection) without a new wait: no request reaches the cluster, the last status stays.
    (issue 15: after a kubeconfig-only change the engine kept the old connection)."""
    olds = {**props(server), "state": "successful", "ready": {"status": "True"}, "components": {}, "drift": []}
    outs = unwrap(driver.update(olds, props(server, timeout_seconds=99, context="other")))
    assert server.log == []
    assert outs["timeout_seconds"] == 99 and outs["context"] == "other"
    assert outs["state"] == "successful"


#: Every contract that needs the replay server, for a transport's test module to parametrize.
WITH_CLUSTER = (
    contract_create_waits_and_returns_the_status,
    contract_update_waits_again,
    contract_read_refreshes_without_waiting,
    contract_wait_false_touches_no_cluster,
    contract_delete_deletes_nothing,
    contract_failed_wait_is_one_message,
    contract_connection_change_is_recorded_without_a_wait,
)
#: Contracts that never touch a cluster.
PURE = (
    contract_check_refuses_malformed_inputs_field_by_field,
    contract_check_takes_unknowns_and_integral_doubles,
    contract_diff_replaces_only_on_identity,
)
